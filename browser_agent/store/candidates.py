"""A new version earns its place: a healed or re-harvested version of a skill in use
stays a candidate (not routed) until its verifying replay and then ``candidate_uses``
validations have passed; then it becomes current. The version it replaced stays, and
``skills rollback NAME`` makes it current again."""

from __future__ import annotations

from sqlalchemy import Engine

from browser_agent.errors import UserError
from browser_agent.store.health import OK, outcomes_of
from browser_agent.store.models import Skill
from browser_agent.store.skills import make_current, skill_by_name, update_skill, versions_of

VERIFICATION = "verification"  # the replay right after a version was made


def in_use(skill: Skill | None) -> bool:
    """Whether a current version is doing its commands (healthy): a new one must then
    earn its place; a stale one is replaced as soon as its successor is verified."""
    return skill is not None and skill.status == "healthy"


def passes(engine: Engine, candidate: Skill) -> tuple[bool, int]:
    """Whether the candidate's verifying replay passed, and how many later replays passed
    since (its window holds them, newest first)."""
    kept = outcomes_of(engine, [candidate.id]).get(candidate.id or 0, [])
    verified = any(o.via == VERIFICATION and o.kind == OK for o in kept)
    later = [o for o in kept if o.via != VERIFICATION]
    count = 0
    for outcome in later:  # a failure since starts the count again
        if outcome.kind != OK:
            break
        count += 1
    return verified, count


def waiting(engine: Engine, name: str) -> Skill | None:
    """The newest version of ``name`` that is verified and waits to become current."""
    current = skill_by_name(engine, name)
    newer = [
        v
        for v in versions_of(engine, name)
        if not v.current
        and v.status == "candidate"
        and (not current or v.version > current.version)
    ]
    for version in reversed(newer):
        if passes(engine, version)[0]:
            return version
    return None


def earn_place(engine: Engine, candidate: Skill, needed: int) -> Skill:
    """Make a verified candidate current when its skill is not in use or it has passed
    ``needed`` replays since its verification; else keep it a candidate."""
    current = skill_by_name(engine, candidate.name)
    verified, count = passes(engine, candidate)
    if candidate.id is None or not verified:
        return candidate
    if in_use(current) and count < needed:
        return update_skill(engine, candidate.id, status="candidate")
    update_skill(engine, candidate.id, status="healthy", last_error=None)
    return make_current(engine, candidate.id)


class NoRollback(UserError, ValueError):
    """A skill with no earlier version to go back to."""


def rollback(engine: Engine, name: str) -> Skill:
    """Make the version before the current one current again (healthy: it was when it was
    replaced; validation says otherwise if the site moved on). NoRollback when none."""
    current = skill_by_name(engine, name)
    if current is None:
        raise NoRollback(f"there is no skill {name!r}")
    earlier = [v for v in versions_of(engine, name) if v.version < current.version]
    earlier = [v for v in earlier if v.status != "retired"]
    if not earlier or earlier[-1].id is None:
        raise NoRollback(f"{name} has no version before v{current.version}")
    back = earlier[-1]
    update_skill(engine, back.id, status="healthy")
    return make_current(engine, back.id)
