"""With a real language model served on this machine (scripts/local_model.sh starts
llama.cpp's llama-server on 127.0.0.1:8090): its window and tokenizer are read, a tool
call comes back as one, and a full `run` on the demo shop succeeds.

These take minutes on a CPU, so they run only when asked for (`pytest -m local_model`)
and are skipped, saying why, when no server answers at LOCAL_MODEL_URL
(default http://127.0.0.1:8090/v1)."""

from __future__ import annotations

import json
import os
import urllib.request
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.llm.model_window import probe_window
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.planner.prompts import prompt, task_message
from browser_agent.planner.tool_calls import Tools
from browser_agent.settings import Settings

pytestmark = pytest.mark.local_model
URL = os.environ.get("LOCAL_MODEL_URL", "http://127.0.0.1:8090/v1")


@pytest.fixture(scope="module")
def model(request: pytest.FixtureRequest) -> str:
    """The name of the model the local server runs; the test is skipped without one."""
    if "local_model" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("needs a local model server; run with -m local_model")
    try:
        with urllib.request.urlopen(f"{URL}/models", timeout=5) as answer:
            return json.loads(answer.read())["data"][0]["id"]
    except (OSError, ValueError, KeyError, IndexError) as exc:
        pytest.skip(f"no local model server answers at {URL} ({exc}); scripts/local_model.sh")


def test_the_server_reports_its_window_and_tokenizer(model: str) -> None:
    window = probe_window(URL, model)
    assert window.context_tokens is not None and window.context_tokens >= 4096
    assert window.tokenizer is not None
    assert 0 < window.tokenizer.text("search for trail shoes") < 10


@pytest.mark.timeout(900)
async def test_the_planner_tools_come_back_as_a_tool_call(model: str, demo: DemoSite) -> None:
    client = OpenAIClient(model, base_url=URL)
    messages = [
        {"role": "system", "content": prompt("system").strip()},
        {"role": "user", "content": task_message("open the shop", demo.url)},
    ]
    reply = await client.complete(messages, Tools.default().schemas())
    await client.aclose()
    assert client.local
    assert [call.name for call in reply.tool_calls][:1] == ["open_url"], reply
    assert json.loads(reply.tool_calls[0].arguments)["url"].startswith(demo.url)


@pytest.mark.timeout(1800)
def test_a_full_run_on_the_demo_shop(model: str, settings: Settings, demo: DemoSite) -> None:
    environ = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_BASE_URL": URL,
        "BROWSER_AGENT_LLM_API_KEY": "local",
        "BROWSER_AGENT_LLM_MODEL": model,
    }
    command = "search for trail shoes and sort by price low to high"
    done = CliRunner().invoke(
        app, ["run", command, "--url", demo.url, "--json", "--max-steps", "15"], env=environ
    )
    result = json.loads(done.stdout)
    assert done.exit_code == 0 and result["status"] == "succeeded", result["answer"]
    final = urlsplit(result["final_url"])
    query = {key: values[0] for key, values in parse_qs(final.query).items()}
    assert final.path == "/search" and query.get("q") == "trail shoes", result["final_url"]
    assert query.get("sort") == "price_asc", result["final_url"]
    assert result["model"] == model and result["cost_usd"] == 0.0 and result["llm_calls"] > 0
