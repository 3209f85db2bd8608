"""Pages that move while the run reads them (a meta refresh to themselves or to another
address, a script reload, a script that navigates when the page is read) end a run
through the real command line as succeeded or failed with its reason: never a traceback,
`--json` always prints its object, and a failed run's stored error is never empty.

The pages are this suite's own (tests/pages), served on 127.0.0.1; the model runs'
decisions come from a scripted policy behind the local OpenAI-compatible test server."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

import pytest

from browser_agent.llm.types import LLMReply, ToolCall
from browser_agent.settings import Settings
from browser_agent.testing.openai_server import LLMTestServer, start_test_llm_server
from tests.test_bad_inputs import cli
from tests.test_runtime_guards import pages  # noqa: F401 (the served tests/pages)

MOVING = ["refresh.html", "refresh-away.html", "reload.html", "moves-when-read.html"]
COMMAND = "click Go"


def looks_clicks_finishes(messages: list[dict], tools: list[dict]) -> LLMReply:
    """A model that looks at the page, clicks Go, looks again and says it is done."""
    answered = sum(1 for m in messages if m.get("role") == "tool")
    calls = [
        ("get_dom", {"content_type": "all_fields"}),
        ("click", {"selector": "#go"}),
        ("get_dom", {"content_type": "text_only"}),
    ]
    if answered < len(calls):
        name, arguments = calls[answered]
        return LLMReply(None, [ToolCall(f"c{answered}", name, json.dumps(arguments))])
    done = {"answer": "Clicked Go.", "success": True}
    return LLMReply(None, [ToolCall(f"c{answered}", "finish", json.dumps(done))])


@pytest.fixture(scope="module")
def model() -> Iterator[LLMTestServer]:
    with start_test_llm_server(looks_clicks_finishes) as server:
        yield server


def stored_error(settings: Settings, run_id: str) -> tuple[str, str | None]:
    """The stored status and error of run ``run_id``."""
    with sqlite3.connect(settings.workspace / "browser_agent.db") as db:
        return db.execute("SELECT status, error FROM run WHERE id = ?", (run_id,)).fetchone()


def ended_in_words(settings: Settings, done) -> None:  # type: ignore[no-untyped-def]
    """The run ended with exit code 0 or 1, no traceback and nothing on stderr, its
    --json object printed, and a stored error (one line) unless it succeeded."""
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert not done.stderr.strip(), done.stderr
    assert done.returncode in (0, 1), done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert (result["status"] == "succeeded") == (done.returncode == 0), result
    status, error = stored_error(settings, result["run_id"])
    assert status == result["status"]
    if status != "succeeded":
        assert error and error.strip() and "\n" not in error, (status, error)


@pytest.mark.parametrize("page", MOVING)
def test_an_offline_run_on_a_moving_page_ends_in_words(
    settings: Settings,
    pages: str,  # noqa: F811
    page: str,
) -> None:
    url = f"{pages}/{page}"
    done = cli(settings, "run", COMMAND, "--url", url, "--model", "offline", "--json")
    ended_in_words(settings, done)


@pytest.mark.parametrize("page", MOVING)
def test_a_model_run_on_a_moving_page_ends_in_words(
    settings: Settings,
    pages: str,  # noqa: F811
    page: str,
    model: LLMTestServer,
) -> None:
    done = cli(
        settings,
        "run",
        COMMAND,
        "--url",
        f"{pages}/{page}",
        "--json",
        BROWSER_AGENT_LLM_BASE_URL=model.base_url,
        BROWSER_AGENT_LLM_API_KEY="k",
    )
    ended_in_words(settings, done)


@pytest.mark.parametrize("page", MOVING)
def test_dom_of_a_moving_page_is_the_page_or_one_line(
    settings: Settings,
    pages: str,  # noqa: F811
    page: str,
) -> None:
    done = cli(settings, "dom", f"{pages}/{page}")
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    if done.returncode == 0:
        assert done.stdout.startswith("Page ") and not done.stderr.strip()
    else:
        assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "kept navigating while it was read" in done.stderr, done.stderr
