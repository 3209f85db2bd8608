"""Queries on harvested skills: registering versions, finding current and healthy ones."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from sqlalchemy import Engine
from sqlmodel import Session, select

from browser_agent.store.models import Skill


def normalise_shape(template: str) -> str:
    """Templates that differ only in case, spacing or parameter names are one shape."""
    return " ".join(re.sub(r"\{[^}]*\}", "{}", template.lower()).split())


def current_skills(engine: Engine, status: str | None = None) -> Sequence[Skill]:
    """The current version of every skill, optionally only those with ``status``."""
    with Session(engine) as db:
        query = select(Skill).where(Skill.current == True)  # noqa: E712
        if status:
            query = query.where(Skill.status == status)
        return db.exec(query.order_by(Skill.name)).all()


def skill_by_name(engine: Engine, name: str) -> Skill | None:
    """The current version of the skill called ``name``."""
    with Session(engine) as db:
        query = select(Skill).where(Skill.name == name, Skill.current == True)  # noqa: E712
        return db.exec(query).first()


def versions_of(engine: Engine, name: str) -> Sequence[Skill]:
    with Session(engine) as db:
        return db.exec(select(Skill).where(Skill.name == name).order_by(Skill.version)).all()


def name_taken(engine: Engine, name: str, shape: str) -> bool:
    """True when another command shape already uses ``name``."""
    with Session(engine) as db:
        return (
            db.exec(select(Skill).where(Skill.name == name, Skill.shape != shape)).first()
            is not None
        )


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


def update_skill(engine: Engine, skill_id: int, **changes: object) -> Skill:
    """Change fields of one skill row and return it."""
    with Session(engine) as db:
        row = db.get(Skill, skill_id)
        if row is None:
            raise KeyError(f"no skill with id {skill_id}")
        for key, value in changes.items():
            setattr(row, key, value)
        db.add(row)
        db.commit()
        db.refresh(row)
        return row


def record_use(engine: Engine, skill_id: int, ok: bool, error: str | None = None) -> None:
    """Count one use of a skill at run time."""
    with Session(engine) as db:
        row = db.get(Skill, skill_id)
        if row is None:
            return
        row.uses += 1
        if ok:
            row.successes += 1
        else:
            row.failures += 1
            row.last_error = error
        db.add(row)
        db.commit()


def loads(text: str) -> object:
    """A JSON column's value (they are written by this package, but read defensively)."""
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return None
