"""Queries on harvested skills: registering versions, finding current and healthy ones."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from browser_agent.errors import BrowserAgentError
from browser_agent.store.models import HarvestedSource, Skill, Validation, utcnow
from browser_agent.store.routability import routable_after
from browser_agent.store.skill_use import loads, same_site, templates_of

# A template's tokens as the router reads them: escaped braces, placeholders, plain text.
_TOKENS = re.compile(r"(\{\{|\}\}|\{\w+\})")


class TemplateConflict(BrowserAgentError, ValueError):
    """A skill's command template that a new version could not answer."""


def normalise_shape(template: str) -> str:
    """Templates that differ only in case, spacing or parameter names are one shape."""
    return " ".join(re.sub(r"\{[^}]*\}", "{}", template.lower()).split())


def template_params(template: str) -> list[str]:
    """The parameter names of a command template, in the order they appear."""
    return [t[1:-1] for t in _TOKENS.split(template) if re.fullmatch(r"\{\w+\}", t)]


def rename_params(template: str, names: Mapping[str, str]) -> str:
    """The template with its placeholders renamed by ``names`` (all at once, so a swap
    of two names stays a swap); escaped braces and other placeholders are kept."""
    tokens = _TOKENS.split(template)
    renamed = [
        "{" + names.get(t[1:-1], t[1:-1]) + "}" if re.fullmatch(r"\{\w+\}", t) else t
        for t in tokens
    ]
    return "".join(renamed)


def merge_templates(kept: Sequence[str], new: str) -> list[str]:
    """The command templates of a skill's next version: every template it answered
    before, in order, then ``new``, without repeats (same shape, same parameters).

    The router calls the skill with exactly the values a template captures, so each kept
    template must name the new version's parameters: they are renamed after the kept
    template of ``new``'s shape, if there is one. TemplateConflict when a kept template
    still names other parameters: the new version could not answer its commands."""
    params = template_params(new)
    shape = normalise_shape(new)
    same_shape = next((t for t in kept if normalise_shape(t) == shape), None)
    names = dict(zip(template_params(same_shape), params, strict=False)) if same_shape else {}
    merged: list[str] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for template in [*(rename_params(t, names) for t in kept), new]:
        found = template_params(template)
        if sorted(found) != sorted(params):
            raise TemplateConflict(
                f"the command template {template!r} takes {', '.join(found) or 'nothing'}, "
                f"the new code takes {', '.join(params) or 'nothing'}"
            )
        key = (normalise_shape(template), tuple(found))
        if key not in seen:
            seen.add(key)
            merged.append(template)
    return merged


def runs_of(skill: Skill) -> list[str]:
    """The sources (run ids or log paths) a skill version was harvested from."""
    runs = loads(skill.source_runs)
    return [str(run) for run in runs] if isinstance(runs, list) else []


def skill_for_shape(engine: Engine, shape: str, start_url: str | None = None) -> Skill | None:
    """The current skill of this command shape on the page ``start_url`` (the same command
    on another site is another skill): its own shape, or the shape of one of the templates
    it answers. One shape has one skill; a new plan of it is its next version."""
    with Session(engine) as db:
        query = select(Skill).where(Skill.current == True)  # noqa: E712
        rows = db.exec(query.order_by(Skill.created_at, Skill.id)).all()
    rows = [skill for skill in rows if same_site(skill, start_url)]
    for skill in rows:
        if skill.shape == shape:
            return skill
    for skill in rows:
        if any(normalise_shape(t) == shape for t in templates_of(skill)):
            return skill
    return None


def add_source(engine: Engine, skill_id: int, source: str, templates: Sequence[str]) -> Skill:
    """Record one more source run, and the templates it answers, on a skill version whose
    code that run would have generated again."""
    with Session(engine) as db:
        row = db.get(Skill, skill_id)
        if row is None:
            raise KeyError(f"no skill with id {skill_id}")
        runs = runs_of(row)
        if source not in runs:
            row.source_runs = json.dumps([*runs, source])
        row.command_templates = json.dumps(list(templates))
        db.add(row)
        db.commit()
        db.refresh(row)
        return row


def harvested_source(engine: Engine, key: str) -> HarvestedSource | None:
    """What harvesting the source with this key gave before, if it was harvested."""
    with Session(engine) as db:
        return db.exec(select(HarvestedSource).where(HarvestedSource.key == key)).first()


def remember_source(engine: Engine, record: HarvestedSource) -> HarvestedSource:
    """Keep what harvesting a source gave, replacing an earlier record of the same key."""
    with Session(engine) as db:
        row = db.exec(select(HarvestedSource).where(HarvestedSource.key == record.key)).first()
        if row is None:
            row = record
        else:
            for field, value in record.model_dump(exclude={"id"}).items():
                setattr(row, field, value)
        db.add(row)
        db.commit()
        db.refresh(row)
        return row


def skill_source_runs(engine: Engine) -> dict[str, Skill]:
    """Every source run named by a skill version, with the newest version naming it:
    the runs a store made before sources were remembered had harvested."""
    with Session(engine) as db:
        rows = db.exec(select(Skill).order_by(Skill.version)).all()
    return {run: skill for skill in rows for run in runs_of(skill)}


def skill_by_name(engine: Engine, name: str) -> Skill | None:
    """The current version of the skill called ``name``."""
    with Session(engine) as db:
        query = select(Skill).where(Skill.name == name, Skill.current == True)  # noqa: E712
        return db.exec(query).first()


def versions_of(engine: Engine, name: str) -> Sequence[Skill]:
    with Session(engine) as db:
        return db.exec(select(Skill).where(Skill.name == name).order_by(Skill.version)).all()


def name_taken(engine: Engine, name: str) -> bool:
    """True when a skill already has ``name`` (a new skill needs a name of its own)."""
    with Session(engine) as db:
        return db.exec(select(Skill).where(Skill.name == name)).first() is not None


def add_version(engine: Engine, skill: Skill, *, current: bool = True) -> Skill:
    """Store ``skill`` as the newest version of its name; it becomes current unless
    ``current`` is False (a candidate that must pass validation first)."""
    with Session(engine) as db:
        for older in db.exec(select(Skill).where(Skill.name == skill.name)).all():
            skill.version = max(skill.version, older.version + 1)
            if current:
                older.current = False
                db.add(older)
        skill.current = current
        skill.routable = routable_after(skill.status, skill.complete, skill.plan, skill.last_error)
        db.add(skill)
        db.commit()
        db.refresh(skill)
        return skill


def make_current(engine: Engine, skill_id: int) -> Skill:
    """Make this version the current one of its name; the others stay, not current."""
    with Session(engine) as db:
        row = db.get(Skill, skill_id)
        if row is None:
            raise KeyError(f"no skill with id {skill_id}")
        for other in db.exec(select(Skill).where(Skill.name == row.name)).all():
            other.current = other.id == skill_id
            db.add(other)
        db.commit()
        db.refresh(row)
        return row


_HEALTH = {"status", "complete", "plan", "last_error"}


def update_skill(
    engine: Engine, skill_id: int, *, broken_step: int | None = None, **changes: object
) -> Skill:
    """Change fields of one skill row and return it; a change of its health (status,
    completeness, plan or last error) decides anew whether it is routable, with
    ``broken_step`` where it broke when the writer knows it."""
    with Session(engine) as db:
        row = db.get(Skill, skill_id)
        if row is None:
            raise KeyError(f"no skill with id {skill_id}")
        for key, value in changes.items():
            setattr(row, key, value)
        if _HEALTH & changes.keys():
            row.routable = routable_after(
                row.status, row.complete, row.plan, row.last_error, broken_step
            )
        db.add(row)
        db.commit()
        db.refresh(row)
        return row


def keep_check(engine: Engine, skill: Skill, passed: bool, findings: Mapping[str, Any]) -> None:
    """Keep one replay of ``skill`` (its verifying replay at harvest, or a validation) as a
    Validation row, and its time as the skill's last validation: the check a skill's page
    and the skills listing show."""
    with Session(engine) as db:
        row = Validation(
            skill_id=skill.id, skill_name=skill.name, version=skill.version, passed=passed
        )
        for key, value in findings.items():
            setattr(row, key, value)
        kept = db.get(Skill, skill.id)
        if kept is not None:
            kept.last_validated_at = row.checked_at = utcnow()
            db.add(kept)
        db.add(row)
        db.commit()
