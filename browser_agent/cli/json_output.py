"""``--json`` output: one JSON document on stdout, and the fields each row kind shows, so
every command's JSON has the same shape for the same thing (see docs/json.md)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from browser_agent.api.records import RunInfo, SkillInfo, StepInfo
    from browser_agent.store.memory_models import MemoryEntry


def _plain(value: object) -> object:
    """Times as ISO 8601, paths as text: what json cannot write itself."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def print_json(data: object) -> None:
    """Print ``data`` as one indented JSON document, plain text (no colour, no wrapping)."""
    typer.echo(json.dumps(data, indent=2, default=_plain, ensure_ascii=False))


def _listed(text: str) -> Any:
    """A JSON column of the store (lists and objects kept as text), as its value."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def run_fields(run: RunInfo) -> dict[str, object]:
    """A run: id, command, status, answer, error, model, start URL, final URL, steps,
    LLM calls, tokens, start and end times, and its cost (null when its model has no price)."""
    return {
        "id": run.id,
        "command": run.command,
        "status": run.status,
        "answer": run.answer,
        "error": run.error,
        "model": run.model,
        "start_url": run.start_url,
        "final_url": run.final_url,
        "steps": run.step_count,
        "llm_calls": run.llm_calls,
        "prompt_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "cost_usd": run.cost_usd,
    }


def step_fields(step: StepInfo) -> dict[str, object]:
    """A step of a run: its index, tool, arguments (as sent), whether it worked, the
    answer, the error, seconds and the URL after it."""
    return {
        "index": step.index,
        "tool": step.tool,
        "arguments": _listed(step.arguments),
        "ok": step.ok,
        "response": step.response,
        "error": step.error,
        "seconds": step.seconds,
        "url_after": step.url_after,
    }


def skill_fields(skill: SkillInfo) -> dict[str, object]:
    """A skill version: name, version, status (``refused`` when its stored plan or code
    does not check; ``refused`` says why, as skills.stored finds it, else null), whether
    it does its whole command (a partial one says what it lacks: it is never routed),
    command templates, uses, successes, failures, last validation and error, example
    arguments, module path, source runs, and its health."""
    return {
        "name": skill.name,
        "version": skill.version,
        "status": skill.status,
        "refused": skill.refused,
        "partial": skill.partial,
        "lacks": skill.lacks,
        "command_templates": skill.command_templates,
        "uses": skill.uses,
        "successes": skill.successes,
        "failures": skill.failures,
        "last_validated_at": skill.last_validated_at,
        "last_error": skill.last_error,
        "example_args": skill.example_args,
        "module_path": skill.module_path,
        "source_runs": skill.source_runs,
        "health": skill.health.as_json(),
    }


def memory_fields(entry: MemoryEntry) -> dict[str, object]:
    """A memory: id, kind (chat, short, long), text, run id and when it was saved."""
    return {
        "id": entry.id,
        "kind": entry.kind,
        "text": entry.text,
        "run_id": entry.run_id,
        "created_at": entry.created_at,
    }
