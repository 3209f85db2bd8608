"""The product's tools served over the Model Context Protocol (stdio), for agents and editors
that reach browser tools through MCP; ``browser-agent mcp`` starts it.

The tools answer with what the Python API gives (:mod:`browser_agent.api`), as JSON text:
carry out a command, list skills, call a skill with arguments, list runs, show a run. A
failure the product can say (a bad argument, an unknown skill or run, a skill that did not
do its command) comes back as the tool's error in one line. The ``mcp`` package is an
extra (``pip install 'browser-agent[mcp]'``); it loads only when the server starts.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict, is_dataclass
from datetime import datetime
from functools import wraps
from typing import TYPE_CHECKING, Any

from browser_agent.errors import BrowserAgentError, one_line

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from browser_agent.api import Agent


def as_text(value: object) -> str:
    """``value`` (API records, lists and dicts of them) as indented JSON text."""

    def plain(item: object) -> object:
        if isinstance(item, datetime):
            return item.isoformat()
        if is_dataclass(item) and not isinstance(item, type):
            return asdict(item)
        raise TypeError(f"{type(item).__name__} is not JSON serialisable")

    return json.dumps(value, indent=2, default=plain, ensure_ascii=False)


def said(tool: Callable[..., Awaitable[str]]) -> Callable[..., Awaitable[str]]:
    """``tool`` with the product's own errors made the tool's error in one line (MCP's
    ToolError: the client reads it), not a crash with a traceback."""
    from mcp.server.mcpserver.exceptions import ToolError

    @wraps(tool)
    async def answer(*args: Any, **kwargs: Any) -> str:
        try:
            return await tool(*args, **kwargs)
        except (BrowserAgentError, ValueError) as exc:
            raise ToolError(one_line(exc)) from None

    return answer


def mcp_server(agent: Agent, server_type: type[MCPServer]) -> MCPServer:
    """An MCP server whose tools call ``agent``."""
    server = server_type("browser-agent", instructions=INSTRUCTIONS)

    @server.tool()
    @said
    async def run_command(command: str, url: str | None = None) -> str:
        """Carry out a web command in a browser (a harvested skill when one matches, else
        the planner), starting from url; the run's status, answer, steps, LLM calls and id."""
        return as_text(await agent.run(command, url=url))

    @server.tool()
    @said
    async def list_skills() -> str:
        """The harvested skills: name, status, command templates, example arguments."""
        return as_text(agent.skills())

    @server.tool()
    @said
    async def run_skill(name: str, params: dict[str, Any], url: str | None = None) -> str:
        """Run the harvested skill name with params (its parameters by name, as
        list_skills' example_args show them) in a fresh browser page, starting from url
        (else the page it was learnt on); what it did and the final address."""
        return await skill_in_own_page(agent, name, params, url)

    @server.tool()
    @said
    async def list_runs(limit: int = 20) -> str:
        """The most recent runs, newest first: id, command, status, answer, counts."""
        return as_text(agent.runs(limit=limit))

    @server.tool()
    @said
    async def show_run(id: str) -> str:  # noqa: A002 - the tool's argument as clients name it
        """One run with its steps (tool, arguments, response), by its id or its unique start."""
        return as_text(agent.run_info(id))

    return server


async def skill_in_own_page(
    agent: Agent, name: str, params: dict[str, Any], url: str | None
) -> str:
    """The skill ``name`` run on a page of a browser launched for this call."""
    from browser_agent.browser.session import launched_browser

    skill = agent.skill(name)
    arguments = {**params, **({"start_url": url} if url else {})}
    skill.arguments(arguments)  # a bad parameter is said before a browser starts
    async with launched_browser(agent.settings) as browser:
        page = await browser.new_page()
        answer = await skill(page, **arguments)
        return as_text({"skill": name, "answer": answer, "final_url": page.url})


INSTRUCTIONS = (
    "A browser agent that carries out web commands and learns skills from its runs. "
    "run_command does a command in plain words; list_skills shows the skills learnt so far, "
    "which run_skill calls with their parameters and no model; list_runs and show_run read "
    "what was done."
)
