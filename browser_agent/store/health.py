"""A skill's health: the outcomes of its last runs and validations (the window, the
``health_window`` setting) read as one state.

- ``healthy``: nothing in the window against it.
- ``watch``: still routed, but the window holds a broken outcome (since passed again) or
  late outcomes more than once: the site or the machine was slow, or the skill wobbled.
- ``broken``: not routed (its status is stale or retired): the planner does its commands
  until it is validated or renewed.

Only a ``broken`` outcome counts against a skill (see :mod:`browser_agent.failure_kinds`);
``late`` and ``not_applicable`` are kept in the window and shown, but do not retire it. In
SQL on the driver (:mod:`browser_agent.store.connection`), so a routed run loads no ORM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from browser_agent.failure_kinds import BROKEN, LATE, NOT_APPLICABLE, SAID
from browser_agent.store.connection import Store
from browser_agent.store.rows import _json_time, _time, utcnow
from browser_agent.store.skill_use import loads

if TYPE_CHECKING:
    from browser_agent.store.connection import Db

HEALTHY, WATCH, BROKEN_STATE = "healthy", "watch", "broken"
OK = "ok"
RUN, VALIDATION = "run", "validation"
LATE_TO_WATCH = 2  # late outcomes in the window that put a skill on watch
SHOWN_FAILURES = 3  # the last failures a listing shows
MAX_ERROR = 400  # characters of an error kept with an outcome


@dataclass
class Outcome:
    """One run or validation of a skill version: ``ok``, or the kind of its failure."""

    via: str
    kind: str
    step: int | None = None
    error: str | None = None
    at: datetime = field(default_factory=utcnow)

    def said(self) -> str:
        """One line: when, how, what kind, where."""
        where = f" at step {self.step}" if self.step else ""
        why = f": {self.error}" if self.error else ""
        kind = "passed" if self.kind == OK else SAID.get(self.kind, self.kind)
        return f"{self.at:%Y-%m-%d %H:%M} {self.via} {kind}{where}{why}"

    def as_json(self) -> dict[str, Any]:
        made = asdict(self)
        made["at"] = _json_time(self.at)
        return made


@dataclass
class Health:
    """A skill's state, the window it was read from, and its last failures."""

    state: str
    window: int
    outcomes: list[Outcome]  # newest first

    def counts(self) -> dict[str, int]:
        """How many outcomes of each kind the window holds."""
        found: dict[str, int] = {}
        for outcome in self.outcomes:
            found[outcome.kind] = found.get(outcome.kind, 0) + 1
        return found

    def failures(self, limit: int = SHOWN_FAILURES) -> list[Outcome]:
        """The newest failures of the window, with their kinds."""
        return [o for o in self.outcomes if o.kind != OK][:limit]

    def summary(self) -> str:
        """What the window holds: ``2 late, 18 ok of the last 20``."""
        counts = ", ".join(f"{n} {SAID.get(k, k)}" for k, n in sorted(self.counts().items()))
        return f"{counts or 'no runs yet'} of the last {self.window}"

    def as_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "window": self.window,
            "counts": self.counts(),
            "last_failures": [o.as_json() for o in self.failures()],
        }


def state_of(status: str, outcomes: Sequence[Outcome]) -> str:
    """The state a skill's status and its window give."""
    if status in ("stale", "retired"):
        return BROKEN_STATE
    kinds = [o.kind for o in outcomes]
    if BROKEN in kinds or kinds.count(LATE) >= LATE_TO_WATCH:
        return WATCH
    return HEALTHY


def keep_outcome(
    db: Db,
    skill_id: int | None,
    via: str,
    kind: str,
    *,
    window: int,
    step: int | None = None,
    error: str | None = None,
) -> None:
    """Keep one outcome of a skill, and only the newest ``window`` of them."""
    if skill_id is None:
        return
    with Store.of(db).transaction() as execute:
        execute(
            "INSERT INTO skilloutcome (skill_id, via, kind, step, error, at) "
            "VALUES (:skill_id, :via, :kind, :step, :error, :at)",
            skill_id=skill_id,
            via=via,
            kind=kind,
            step=step,
            error=(error or "")[:MAX_ERROR] or None,
            at=utcnow(),
        )
        execute(
            "DELETE FROM skilloutcome WHERE skill_id = :skill_id AND id NOT IN "
            "(SELECT id FROM skilloutcome WHERE skill_id = :skill_id "
            "ORDER BY id DESC LIMIT :window)",
            skill_id=skill_id,
            window=window,
        )


def count_use(db: Db, skill_id: int | None, kind: str, error: str | None) -> None:
    """Count one use of a skill at run time: a success, or (only when broken) a failure;
    a skill that did not apply to the command was not used. Added in SQL, so processes
    sharing the store never lose one to another's update."""
    if skill_id is None or kind == NOT_APPLICABLE:
        return
    if kind == OK:
        change = ", successes = successes + 1"
    elif kind == BROKEN:
        change = ", failures = failures + 1, last_error = :error"
    else:
        change = ""
    Store.of(db).execute(
        f"UPDATE skill SET uses = uses + 1{change} WHERE id = :id", id=skill_id, error=error
    )


def note_run(
    db: Db,
    skill_id: int | None,
    kind: str,
    *,
    window: int,
    step: int | None = None,
    error: str | None = None,
    counted: str | None = None,
) -> None:
    """A run's use of a skill: counted as ``counted`` (else ``kind``; a failure only when
    broken) and kept in its window as ``kind``."""
    count_use(db, skill_id, counted or kind, error)
    keep_outcome(db, skill_id, RUN, kind, window=window, step=step, error=error)


def outcomes_of(db: Db, skill_ids: Iterable[int | None]) -> dict[int, list[Outcome]]:
    """The kept outcomes of each skill version, newest first."""
    wanted = sorted({i for i in skill_ids if i is not None})
    found: dict[int, list[Outcome]] = {i: [] for i in wanted}
    if not wanted:
        return found
    marks = ", ".join(f":s{n}" for n in range(len(wanted)))
    rows = (
        Store.of(db)
        .execute(
            "SELECT skill_id, via, kind, step, error, at FROM skilloutcome "
            f"WHERE skill_id IN ({marks}) ORDER BY id DESC",
            **{f"s{n}": i for n, i in enumerate(wanted)},
        )
        .rows
    )
    for row in rows:
        at = _time(row["at"]) or utcnow()
        found[row["skill_id"]].append(
            Outcome(row["via"], row["kind"], row["step"], row["error"], at)
        )
    return found


def health(status: str, outcomes: Sequence[Outcome], window: int) -> Health:
    """The health of a skill with this status and these outcomes (newest first)."""
    kept = list(outcomes)[:window]
    return Health(state_of(status, kept), window, kept)


class StoredVersion(Protocol):
    """What health reads of a skill version: a ``SkillRow``, or the ORM ``Skill`` made
    from it (store.models), which has the same fields."""

    @property
    def id(self) -> int | None: ...

    @property
    def status(self) -> str: ...

    @property
    def source_runs(self) -> str: ...


def health_of(db: Db, skill: StoredVersion, window: int) -> Health:
    """The health of one skill version."""
    return health(skill.status, outcomes_of(db, [skill.id]).get(skill.id, []), window)


def recorded_pace(db: Db, skill: StoredVersion) -> float:
    """The slowest step (seconds) of the runs a skill was learnt from: the site's pace, which
    its steps' deadlines follow. 0 when none is known (a log from elsewhere)."""
    runs = loads(skill.source_runs)
    names = [str(run) for run in runs] if isinstance(runs, list) else []
    if not names:
        return 0.0
    marks = ", ".join(f":r{n}" for n in range(len(names)))
    rows = (
        Store.of(db)
        .execute(
            f"SELECT max(duration_s) AS slowest FROM step WHERE run_id IN ({marks})",
            **{f"r{n}": name for n, name in enumerate(names)},
        )
        .rows
    )
    slowest = rows[0]["slowest"] if rows else None
    return float(slowest or 0.0)


def healths(db: Db, skills: Sequence[StoredVersion], window: int) -> dict[int, Health]:
    """The health of each skill version, by id, read in one query."""
    kept = outcomes_of(db, [s.id for s in skills])
    return {s.id: health(s.status, kept.get(s.id, []), window) for s in skills if s.id}
