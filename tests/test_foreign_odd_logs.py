"""Bad and odd logs from other agents: one bad log never stops a batch, any odd value
anywhere in a real Agent-E or browser-use log gives a reason and never a traceback, and a
history that does not say its command is refused by one line until one is given."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.calls import LogError
from browser_agent.harvest.harvester import harvest
from browser_agent.harvest.logs import read_log
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import NotHarvestable
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from tests.test_foreign_logs import LOGS, agent_e_messages, shop_copy


def no_task(data: dict) -> None:
    """Nothing to change: copied without its metadata, a history has no command."""


def unknown_only(data: dict) -> None:
    for message in agent_e_messages(data):
        for call in message.get("tool_calls") or []:
            if call["function"]["name"] not in ("openurl", "geturl", "get_dom_with_content_type"):
                call["function"]["arguments"] = json.dumps({"selector": "x", "force": True})


@pytest.mark.parametrize(
    ("name", "edit", "reason"),
    [
        ("browser_use_search.json", no_task, "does not record its task"),
        ("agent_e_login.json", unknown_only, "which the harvester does not know"),
        ("agent_e_search.json", lambda d: d.clear(), "holds no message list"),
    ],
)
async def test_one_bad_foreign_log_does_not_stop_a_batch(
    settings: Settings, browser: Browser, demo: DemoSite, name: str, edit: Any, reason: str
) -> None:
    engine = open_store(settings)
    bad = shop_copy(name, demo, settings.workspace / "bad", edit)
    bad.with_suffix(".meta.json").unlink(missing_ok=True)
    good = shop_copy("agent_e_search.json", demo, settings.workspace / "good")
    results = await harvest([bad, good], settings, engine, browser=browser)
    assert results[0].skill is None and reason in (results[0].error or "")
    assert results[1].skill is not None and results[1].verified, results[1].verify_error


# ------------------------------------------------------------------ never a traceback


def _containers(value: Any, path: tuple = ()) -> list[tuple]:
    """The path of every object and list inside a parsed log (the log itself excepted),
    less the on-screen geometry nothing reads."""
    found = [path] if path else []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items if isinstance(value, dict | list) else []:
        geometry = str(key).endswith(("coordinates", "viewport_info", "branch_path"))
        if isinstance(item, dict | list) and not geometry:
            found += _containers(item, (*path, key))
    return found


ODD_VALUES = (None, 0, 2.5, True, "<b>", [], {"a": 1}, [None], "[mmid='1']")
FOREIGN_FIXTURES = ("agent_e_search.json", "agent_e_login.json", "browser_use_search.json")


def odd_variants(log: Any) -> Any:
    """The log with one odd value put in place of each object or list in it, and of each
    argument of each tool call, one at a time."""
    for *parent, key in _containers(log):
        for value in ODD_VALUES:
            changed = copy.deepcopy(log)
            holder = changed
            for step in parent:
                holder = holder[step]
            holder[key] = copy.deepcopy(value)
            yield changed
    for *place, _key in [p for p in _containers(log) if p[-1] == "function"]:
        holder = log
        for step in (*place, "function"):
            holder = holder[step]
        for argument in json.loads(holder["arguments"]):
            for value in ODD_VALUES:
                changed = copy.deepcopy(log)
                function = changed
                for step in (*place, "function"):
                    function = function[step]
                arguments = json.loads(function["arguments"])
                arguments[argument] = value
                function["arguments"] = json.dumps(arguments)
                yield changed


@pytest.mark.parametrize("name", FOREIGN_FIXTURES)
def test_any_odd_value_anywhere_gives_a_reason_never_a_traceback(tmp_path: Path, name: str) -> None:
    path = tmp_path / "odd.json"
    path.with_suffix(".meta.json").write_text('{"command": "find trail shoes"}')
    tried = 0
    for log in odd_variants(json.loads((LOGS / name).read_text(encoding="utf-8"))):
        path.write_text(json.dumps(log), encoding="utf-8")
        with contextlib.suppress(LogError, NotHarvestable):  # a reason, never a traceback
            generate_module(plan_skill(read_log(path)), "odd_skill")
        tried += 1
    assert tried > 300


def test_harvest_takes_the_command_of_a_history_that_does_not_say_it(
    settings: Settings, demo: DemoSite
) -> None:
    from typer.testing import CliRunner

    from browser_agent.cli.app import app

    path = shop_copy("browser_use_search.json", demo, settings.workspace / "foreign")
    path.with_suffix(".meta.json").unlink()
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace), "COLUMNS": "300"}
    refused = CliRunner().invoke(app, ["harvest", str(path)], env=env)
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert "browser_use_search.meta.json" in refused.output

    command = "find trail shoes and sort by price low to high"
    made = CliRunner().invoke(app, ["harvest", str(path), "--command", command], env=env)
    assert made.exit_code == 0, made.output
    assert "find {search_term} and sort by {sort}" in made.output
