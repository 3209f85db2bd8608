"""Running a skill writes nothing; what the use says of it (stale, counted, failed) is kept
in one place after the call, in a real SQLite store."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session

from browser_agent.planner.skill_call import call_skill, keep_use, run_skill
from browser_agent.settings import Settings
from browser_agent.skills.runtime import SkillNotApplicable, SkillStale
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import current_skills


def stored_skill(tmp_path: Path) -> tuple[Store, SkillRow]:
    """A store with one healthy skill, and that skill's row."""
    settings = Settings(workspace=tmp_path / "workspace")
    engine = open_store(settings)
    with Session(engine) as db:
        db.add(Skill(name="search", module_path="skills/harvested/search_v1.py", shape="s"))
        db.commit()
    store = Store.of(engine)
    store.execute("UPDATE skill SET status = 'healthy'")
    (row,) = current_skills(store)
    return store, row


def counts(store: Store) -> tuple[str, int, int, int, str | None]:
    (row,) = current_skills(store)
    return row.status, row.uses, row.successes, row.failures, row.last_error


async def test_running_a_stale_skill_writes_nothing_and_keeping_the_use_marks_it(
    tmp_path: Path,
) -> None:
    store, skill = stored_skill(tmp_path)

    async def stale() -> str:
        raise SkillStale("the button is gone", step=2, selector="#buy")

    outcome = await run_skill(skill, stale, {})
    assert not outcome.ok and outcome.stale_because == "step 2: the button is gone"
    assert counts(store) == ("healthy", 0, 0, 0, None)  # nothing written by the run

    keep_use(store, skill, outcome, window=20)
    assert counts(store) == ("stale", 1, 0, 1, "the button is gone")


async def test_a_skill_that_does_not_apply_counts_no_use(tmp_path: Path) -> None:
    store, skill = stored_skill(tmp_path)

    async def elsewhere() -> str:
        raise SkillNotApplicable("no 'sandals' on the page", step=1)

    outcome = await call_skill(store, skill, elsewhere, {})
    assert outcome.not_applicable is not None and not outcome.counted
    assert counts(store) == ("healthy", 0, 0, 0, None)


async def test_a_use_that_worked_is_counted_once(tmp_path: Path) -> None:
    store, skill = stored_skill(tmp_path)

    async def works() -> str:
        return "done"

    outcome = await call_skill(store, skill, works, {})
    assert (outcome.ok, outcome.text) == (True, "done")
    assert counts(store) == ("healthy", 1, 1, 0, None)
