"""``feedback export`` from decisions in a real SQLite store: what becomes an example,
what is left out, ``--since``, and secrets masked on the way out too."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from browser_agent.cli.feedback import BadSince, since_time
from browser_agent.feedback.dataset import export
from browser_agent.planner.records import RunRecorder
from browser_agent.secrets import MASK
from browser_agent.settings import load_settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.rows import DecisionRow

CONTEXT = [
    {"role": "system", "content": "You are a web agent."},
    {"role": "user", "content": "Execute the user task \"subscribe\""},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "open_url", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "Page loaded.", "tool_responses": []},
]  # fmt: skip


def recorder(tmp_path: Path) -> RunRecorder:
    settings = load_settings().with_overrides(workspace=tmp_path)
    store = Store.of(open_store(settings))
    return RunRecorder.start(store, settings.logs_dir, "subscribe", None, "test-model")


def decision(verdict: str, note: str = "", **fields: str) -> DecisionRow:
    return DecisionRow(
        run_id="",
        step=2,
        verdict=verdict,
        action='click: button "Subscribe"',
        tool="click",
        arguments='{"selector": "#search-submit"}',
        note=note,
        context=json.dumps(CONTEXT),
        tools=json.dumps([{"type": "function", "function": {"name": "click"}}]),
        **fields,
    )


def exported(store: Store, *secrets: str, since: datetime | None = None) -> tuple[list, object]:
    out = io.StringIO()
    done = export(store, out, since, secrets)
    return [json.loads(line) for line in out.getvalue().splitlines()], done


def test_corrections_and_noted_rejections_become_examples_the_rest_does_not(
    tmp_path: Path,
) -> None:
    run = recorder(tmp_path)
    run.add_decision(decision("approved", "fine"))
    run.add_decision(decision("rejected"))  # no note: nothing to learn
    noted = run.add_decision(decision("rejected", "not that one"))
    run.add_decision(decision("rejected", "the run ended before it replied"))
    fix = {"corrected_tool": "click", "corrected_arguments": '{"selector": "#newsletter"}'}
    run.add_decision(decision("corrected", "the other button", **fix))
    finish = {"id": "c3", "type": "function", "function": {"name": "finish", "arguments": "{}"}}
    run.follow_decision(noted, {"role": "assistant", "content": None, "tool_calls": [finish]})

    (refused, fixed), done = exported(run.store)

    assert (done.corrected, done.rejected, done.left_out) == (1, 1, 1)
    assert fixed["messages"][-1] == {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_" + run.run.id + "_2",
                "type": "function",
                "function": {"name": "click", "arguments": '{"selector": "#newsletter"}'},
            }
        ],
    }
    assert fixed["messages"][2]["weight"] == 0  # an earlier turn is context, not taught
    assert "tool_responses" not in fixed["messages"][3]  # only the keys fine-tuning takes
    assert fixed["tools"] == [{"type": "function", "function": {"name": "click"}}]
    rejected_call, told, reply = refused["messages"][-3:]
    assert rejected_call["weight"] == 0 and "not that one" in told["content"]
    assert told["tool_call_id"] == rejected_call["tool_calls"][0]["id"]
    assert reply["tool_calls"][0]["function"]["name"] == "finish" and "weight" not in reply
    later, _ = exported(run.store, since=datetime.now(UTC) + timedelta(minutes=1))
    assert later == []


def test_a_secret_configured_now_is_masked_in_the_export_too(tmp_path: Path) -> None:
    run = recorder(tmp_path)  # knows no secret: the row keeps the value as said
    fix = {"corrected_tool": "enter_text", "corrected_arguments": '{"text": "pin 4417-99"}'}
    run.add_decision(decision("corrected", "type 4417-99 there", **fix))
    (example,), _ = exported(run.store, "4417-99")
    assert "4417-99" not in json.dumps(example)
    assert MASK in example["messages"][-1]["tool_calls"][0]["function"]["arguments"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("90m", datetime(2026, 12, 1, 10, 30, tzinfo=UTC)),
        ("2d", datetime(2026, 11, 29, 12, 0, tzinfo=UTC)),
        ("2026-11-30", datetime(2026, 11, 30, tzinfo=UTC)),
        ("2026-11-30T08:00+02:00", datetime(2026, 11, 30, 6, 0, tzinfo=UTC)),
    ],
)
def test_since_takes_an_age_a_date_or_a_time(given: str, expected: datetime) -> None:
    assert since_time(given, now=datetime(2026, 12, 1, 12, 0, tzinfo=UTC)) == expected


def test_since_refuses_anything_else() -> None:
    with pytest.raises(BadSince, match="--since 'soon'"):
        since_time("soon")
