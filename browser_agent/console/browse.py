"""What the console's browsing pages read from the store: runs (filtered), a run's steps,
a run's chat log and model calls, skills with their source and history of checks, and
retiring or restoring a skill. Logs come from disk and from pages: they are shown escaped,
never trusted."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from browser_agent.llm.prices import run_cost, shown_cost
from browser_agent.store.connection import Store
from browser_agent.store.decisions import decisions
from browser_agent.store.health import Health, health_of
from browser_agent.store.models import Skill, Validation
from browser_agent.store.rows import DecisionRow, RunRow
from browser_agent.store.run_rows import recent_runs, run_totals
from browser_agent.store.skills import skill_by_name, update_skill, versions_of
from browser_agent.store.validations import replays_of

RUNS_SHOWN = 200
CHECKS_SHOWN = 50  # a skill's latest checks on its page
LONGEST_SHOWN = 4_000  # characters of one message shown
RETIRED = "retired"
RESTORED = "candidate"  # routes again once validation finds it healthy


def find_runs(engine: Engine, status: str | None, text: str | None) -> list[RunRow]:
    """The newest runs, only those with ``status`` and whose command contains ``text``
    (any case) when given."""
    return recent_runs(Store.of(engine), RUNS_SHOWN, status, text)


@dataclass
class Totals:
    """What the runs listed made and cost, added up; runs of a model with no price are
    counted apart (their cost is unknown, never zero)."""

    runs: int
    llm_calls: int
    tokens: int
    cost: str
    unpriced: int


def totals_of(
    engine: Engine,
    status: str | None,
    text: str | None,
    prices: Mapping[str, tuple[float, float]],
) -> Totals:
    """The totals of every run with ``status`` whose command contains ``text``."""
    by_model = run_totals(Store.of(engine), status, text)
    cost, unpriced = 0.0, 0
    for model in by_model:
        spent = run_cost(model.model, model.prompt_tokens, model.completion_tokens, prices)
        if spent is None:
            unpriced += model.runs
        else:
            cost += spent
    return Totals(
        runs=sum(m.runs for m in by_model),
        llm_calls=sum(m.llm_calls for m in by_model),
        tokens=sum(m.prompt_tokens + m.completion_tokens for m in by_model),
        cost=shown_cost(cost),
        unpriced=unpriced,
    )


def decisions_of(engine: Engine, run_id: str) -> list[DecisionRow]:
    """The person's decisions on the run's proposed actions, in order."""
    return decisions(Store.of(engine), run_id=run_id)


@dataclass
class Said:
    """One message of a run's chat log, or one model call of its iteration records."""

    who: str
    text: str


def chat_log(log: Path) -> list[Said] | None:
    """A run's chat log (the system prompt left out); None when it cannot be read."""
    try:
        messages = json.loads(log.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(messages, list):
        return None
    return [said_of(m) for m in messages if isinstance(m, dict) and m.get("role") != "system"]


def said_of(message: dict) -> Said:
    called = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            called.append(f"{function.get('name')}({function.get('arguments')})")
    text = "\n".join([str(message.get("content") or ""), *called]).strip()
    return Said(str(message.get("role")), text[:LONGEST_SHOWN])


def iterations(log: Path) -> list[Said] | None:
    """Each model call of a run (the records beside its chat log ``log``): its reasoning,
    the actions it chose and its tokens; None when the records cannot be read."""
    path = log.with_name(log.name.removesuffix(".json") + ".iterations.jsonl")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    shown = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        actions = said_of({"tool_calls": record.get("actions") or []}).text
        usage = record.get("usage") if isinstance(record.get("usage"), dict) else {}
        tokens = f"{usage.get('prompt')} + {usage.get('completion')} tokens"
        text = "\n".join([str(record.get("reasoning") or ""), actions]).strip()
        shown.append(Said(f"call {record.get('iteration')} ({tokens})", text[:LONGEST_SHOWN]))
    return shown


@dataclass
class SkillView:
    """A skill's current version, every version, its source (or why it is refused), and
    its status history: each check by replay (at harvest and by the validator), newest first."""

    skill: Skill
    versions: Sequence[Skill]
    source: str | None
    problem: str | None
    checks: Sequence[Validation]
    health: Health


def skill_view(engine: Engine, name: str, window: int = 20) -> SkillView | None:
    """The skill called ``name`` with its source; None when there is none."""
    from browser_agent.skills.stored import refusal

    skill = skill_by_name(engine, name)
    if skill is None:
        return None
    problem = refusal(skill)
    source = None if problem else skill.source  # the code that runs: what its plan makes
    health = health_of(engine, skill, window)
    checks = replays_of(engine, name, CHECKS_SHOWN)
    return SkillView(skill, versions_of(engine, name), source, problem, checks, health)


def set_retired(engine: Engine, name: str, retired: bool) -> Skill | None:
    """Retire the skill (it is no longer routed, offered or validated) or restore it as a
    candidate; None when there is no such skill."""
    skill = skill_by_name(engine, name)
    if skill is None or skill.id is None:
        return None
    if retired == (skill.status == RETIRED):
        return skill
    return update_skill(engine, skill.id, status=RETIRED if retired else RESTORED)
