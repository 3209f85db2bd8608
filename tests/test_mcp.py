"""``browser-agent mcp`` driven by the ``mcp`` package's own client over stdio: the server is
the installed command in a process of its own, on a fresh workspace and the demo shop."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from browser_agent import Agent
from browser_agent.demo import FIRST_COMMAND
from browser_agent.demo_site import DemoSite

COMMAND = Path(sys.executable).parent / "browser-agent"
TOOLS = {"run_command", "list_skills", "run_skill", "list_runs", "show_run"}


def server(workspace: Path) -> StdioServerParameters:
    """``browser-agent mcp`` on ``workspace``, with the offline planner."""
    env = {"BROWSER_AGENT_WORKSPACE": str(workspace), "BROWSER_AGENT_LLM_MODEL": "offline"}
    for name in ("XDG_STATE_HOME", "BROWSER_AGENT_CHROMIUM"):  # the session's, when set
        if name in os.environ:
            env[name] = os.environ[name]
    return StdioServerParameters(command=str(COMMAND), args=["mcp"], env=env)


def text(result: object) -> str:
    """The text a tool answered."""
    return "".join(part.text for part in result.content)  # type: ignore[attr-defined]


async def session_on(workspace: Path, shop: str) -> dict[str, object]:
    """List the tools, run a command, harvest it, call the skill and read the runs, as an MCP
    client does; what each answered."""
    seen: dict[str, object] = {}
    with open(workspace / "server.err", "w") as errors:
        async with (
            stdio_client(server(workspace), errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            seen["tools"] = {tool.name for tool in (await session.list_tools()).tools}
            seen["no skills"] = json.loads(text(await session.call_tool("list_skills", {})))
            arguments = {"command": FIRST_COMMAND, "url": shop}
            seen["run"] = json.loads(text(await session.call_tool("run_command", arguments)))
            run_id = seen["run"]["run_id"]  # type: ignore[index]
            await Agent(workspace=workspace).harvest(run_id)
            seen["skills"] = json.loads(text(await session.call_tool("list_skills", {})))
            params = {"search_term": "sandals", "sort_by": "customer rating"}
            call = {"name": "search_sort", "params": params, "url": shop}
            seen["skill"] = json.loads(text(await session.call_tool("run_skill", call)))
            wrong = {"name": "search_sort", "params": {"colour": "red"}}
            seen["wrong"] = await session.call_tool("run_skill", wrong)
            seen["runs"] = json.loads(text(await session.call_tool("list_runs", {"limit": 5})))
            shown = await session.call_tool("show_run", {"id": run_id})
            seen["shown"] = json.loads(text(shown))
            seen["unknown"] = await session.call_tool("show_run", {"id": "nothing"})
    return seen


def test_the_mcp_client_runs_a_command_and_a_skill_and_reads_the_runs(
    demo: DemoSite, tmp_path: Path
) -> None:
    shop = f"{demo.url}/"
    seen = asyncio.run(session_on(tmp_path, shop))
    assert seen["tools"] == TOOLS
    assert seen["no skills"] == []
    run = seen["run"]
    assert (run["status"], run["model"]) == ("succeeded", "offline"), run  # type: ignore[index]
    assert [s["name"] for s in seen["skills"]] == ["search_sort"]  # type: ignore[attr-defined]
    skill = seen["skill"]
    assert skill["final_url"] == f"{demo.url}/search?q=sandals&sort=rating", skill  # type: ignore[index]
    wrong = seen["wrong"]
    assert wrong.is_error and "search_sort has no parameter 'colour'" in text(wrong)  # type: ignore[attr-defined]
    assert [r["id"] for r in seen["runs"]] == [run["run_id"]]  # type: ignore[attr-defined,index]
    shown = seen["shown"]
    assert shown["command"] == FIRST_COMMAND and shown["steps"]  # type: ignore[index]
    unknown = seen["unknown"]
    said = text(unknown)  # type: ignore[arg-type]
    assert unknown.is_error and said.endswith(": No run 'nothing': Agent.runs() lists the ids.")  # type: ignore[attr-defined]
    assert "Traceback" not in (tmp_path / "server.err").read_text()


def test_without_the_mcp_package_the_command_says_how_to_install_it() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['mcp'] = None; "
            "from browser_agent.cli.app import entry; sys.argv[1:] = ['mcp']; entry()",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "Error: browser-agent mcp needs the mcp package: pip install 'browser-agent[mcp]' "
        "(or pip install 'mcp>=2' beside it)"
    ]
    assert done.stdout == ""
