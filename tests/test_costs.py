"""What runs cost: the configured prices over genai-prices' price map turn a run's prompt
and completion tokens into dollars in `run`'s summary and --json, `runs` and `show`, kept
on the run when it ends; a model with no price shows no cost (not zero), the offline
planner and a model served on this machine cost nothing.

The end-to-end tests run the real CLI against the local OpenAI-compatible test server,
which reports each call's token usage, in a real Chromium on the demo shop."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.llm.prices import cost_of_run, run_cost, shown_cost
from browser_agent.settings import Settings, SettingsError, load_settings
from browser_agent.testing.openai_server import estimate_tokens, start_test_llm_server
from tests.scripted import Script

PRICED = '{"test-model": [1000, 3000]}'  # dollars per 1M tokens: large, so cents show


def test_a_cost_is_tokens_times_the_models_price() -> None:
    assert run_cost("gpt-4o", 1_000_000, 1_000_000, {}) == pytest.approx(12.5)
    assert run_cost("gpt-4o-mini", 2_000, 1_000, {}) == pytest.approx(0.0009)
    assert run_cost("gpt-4o-2024-08-06", 1_000_000, 0, {}) == pytest.approx(2.5)
    assert run_cost("offline", 5_000, 500, {}) == 0.0
    assert run_cost("mystery-model", 1_000, 100, {}) is None
    # priced as itself, not as gpt-4o-mini
    assert run_cost("gpt-4o-mini-tts", 1_000_000, 0, {}) != run_cost(
        "gpt-4o-mini", 1_000_000, 0, {}
    )
    assert run_cost("mystery-model", 1_000_000, 0, {"mystery-model": (0.5, 1.5)}) == 0.5
    assert shown_cost(None) == "" and shown_cost(0.0) == "$0"
    assert shown_cost(0.0009) == "$0.0009" and shown_cost(12.345) == "$12.35"


def test_a_local_model_costs_nothing_unless_priced() -> None:
    assert run_cost("qwen2.5-7b-instruct", 5_000, 500, {}, local=True) == 0.0
    assert run_cost("gpt-4o", 1_000_000, 0, {}, local=True) == 0.0  # a gateway's name, served here
    assert run_cost("my-model", 1_000_000, 0, {"my-model": (0.5, 1.5)}, local=True) == 0.5


def test_prices_are_a_setting_over_the_maintained_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER_AGENT_PRICES", '{"my-model": [0.5, 1.5], "gpt-4o": [1, 2]}')
    prices = load_settings().prices
    assert run_cost("my-model", 1_000_000, 1_000_000, prices) == 2.0
    assert run_cost("gpt-4o", 1_000_000, 0, prices) == 1.0
    assert run_cost("gpt-4.1", 1_000_000, 0, prices) == pytest.approx(2.0)  # genai-prices'


def test_stored_runs_are_shown_without_loading_the_price_map(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # importing it would fail

    def run(model: str, cost: float | None, tokens: int = 1_000_000) -> SimpleNamespace:
        return SimpleNamespace(
            model=model, prompt_tokens=tokens, completion_tokens=0, cost_usd=cost
        )

    assert cost_of_run(run("gpt-4o", 2.5), {}) == 2.5  # as priced when it ended
    assert cost_of_run(run("gpt-4o", 2.5), {"gpt-4o": (1.0, 2.0)}) == 1.0  # the override wins
    assert cost_of_run(run("gpt-4o", None), {}) is None  # stored before costs were kept
    assert cost_of_run(run("offline", None), {}) == 0.0
    assert run_cost("gpt-4o", 0, 0, {}) == 0.0  # a routed run called no model
    with pytest.raises(ImportError):
        run_cost("gpt-4o", 1, 0, {})


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("{my-model: 1}", "must be a JSON object"),
        ('{"m": [-1, 2]}', "must be at least 0"),
        ('{"m": ["cheap", 2]}', "must be a number"),
    ],
)
def test_a_bad_price_table_stops_every_command_in_one_line(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, value: str, said: str
) -> None:
    monkeypatch.setenv("BROWSER_AGENT_PRICES", value)
    with pytest.raises(SettingsError, match=said):
        load_settings()
    done = CliRunner().invoke(
        app, ["runs"], env={"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    )
    assert done.exit_code == 2
    assert done.output.strip().splitlines() == [done.output.strip()]
    assert "BROWSER_AGENT_PRICES" in done.output and "Traceback" not in done.output


def run_on_test_server(settings: Settings, demo: DemoSite, model: str, *args: str):  # type: ignore[no-untyped-def]
    """``browser-agent run`` with the test server playing ``model``: the CLI's result and the
    prompt tokens the server counted."""
    script = Script(
        [
            ("open_url", lambda _dom: {"url": f"{demo.url}/search?q=trail"}),
            ("get_dom", lambda _dom: {"content_type": "text_only"}),
        ],
        answer="Looked at the trail shoes.",
    )
    with start_test_llm_server(script, model=model) as server:
        done = invoke(settings, model, server.base_url, "run", "look at trail shoes", *args)
        prompt = sum(estimate_tokens(r["messages"], r.get("tools") or []) for r in server.requests)
    return done, prompt


def invoke(settings: Settings, model: str, base_url: str, *args: str, prices: str = PRICED):  # type: ignore[no-untyped-def]
    environ = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_BASE_URL": base_url,
        "BROWSER_AGENT_LLM_API_KEY": "test",
        "BROWSER_AGENT_LLM_MODEL": model,
        "BROWSER_AGENT_PRICES": prices,
        "COLUMNS": "200",
    }
    return CliRunner().invoke(app, list(args), env=environ)


def test_a_runs_cost_is_shown_in_its_summary_json_runs_and_show(
    settings: Settings, demo: DemoSite
) -> None:
    as_json, prompt = run_on_test_server(settings, demo, "test-model", "--json")
    result = json.loads(as_json.stdout)
    assert result["status"] == "succeeded"
    assert result["prompt_tokens"] == prompt > 0  # the counts the server reported
    expected = (result["prompt_tokens"] * 1000 + result["completion_tokens"] * 3000) / 1e6
    assert result["cost_usd"] == pytest.approx(expected)

    summary, _ = run_on_test_server(settings, demo, "test-model")
    assert summary.exit_code == 0, summary.output
    assert f"tokens, {shown_cost(expected)}, " in summary.output

    listed = invoke(settings, "test-model", "http://127.0.0.1:9/v1", "runs")
    assert shown_cost(expected) in listed.output
    shown = invoke(settings, "test-model", "http://127.0.0.1:9/v1", "show", result["run_id"])
    assert f"model test-model, {shown_cost(expected)})" in shown.output
    listed = invoke(settings, "test-model", "http://127.0.0.1:9/v1", "runs", "--json")
    assert json.loads(listed.stdout)["runs"][0]["cost_usd"] == pytest.approx(expected)
    shown = invoke(
        settings, "test-model", "http://127.0.0.1:9/v1", "show", result["run_id"], "--json"
    )
    assert json.loads(shown.stdout)["run"]["cost_usd"] == pytest.approx(expected)
    # the cost was kept on the run when it ended: no price configured now, still shown
    listed = invoke(settings, "test-model", "http://127.0.0.1:9/v1", "runs", "--json", prices="{}")
    assert json.loads(listed.stdout)["runs"][0]["cost_usd"] == pytest.approx(expected)


def test_a_model_with_no_price_shows_no_cost(settings: Settings, demo: DemoSite) -> None:
    as_json, _ = run_on_test_server(settings, demo, "mystery-model", "--json")
    result = json.loads(as_json.stdout)
    assert result["status"] == "succeeded" and result["prompt_tokens"] > 0
    assert result["cost_usd"] is None

    summary, _ = run_on_test_server(settings, demo, "mystery-model")
    listed = invoke(settings, "mystery-model", "http://127.0.0.1:9/v1", "runs")
    shown = invoke(settings, "mystery-model", "http://127.0.0.1:9/v1", "show", result["run_id"])
    [totals] = [line for line in summary.output.splitlines() if line.startswith("run ")]
    assert "tokens, " in totals and "$" not in totals
    assert "$" not in listed.output
    listed = invoke(settings, "mystery-model", "http://127.0.0.1:9/v1", "runs", "--json")
    assert [run["cost_usd"] for run in json.loads(listed.stdout)["runs"]] == [None, None]
    assert shown.output.splitlines()[0] == "look at trail shoes (succeeded, model mystery-model)"
