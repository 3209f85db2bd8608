"""``browser-agent mcp``: the MCP server (:mod:`browser_agent.mcp_server`) on stdio."""

from __future__ import annotations

from browser_agent.errors import UserError

MISSING = (
    "browser-agent mcp needs the mcp package: pip install 'browser-agent[mcp]' "
    "(or pip install 'mcp>=2' beside it)"
)


def mcp_command() -> None:
    """Serve the agent's tools over MCP on stdin and stdout (run a command, list skills, run
    a skill, list runs, show a run), with the settings and workspace of the command line."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        raise UserError(MISSING) from None
    from browser_agent.api import Agent
    from browser_agent.mcp_server import mcp_server

    mcp_server(Agent(), MCPServer).run("stdio")
