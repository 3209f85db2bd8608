"""Whether a skill may be routed is kept in its row, decided where its health is written
(a new version, a verdict, a stale mark at run time) and read by the router as it is: a
real SQLite store, the router on the stored rows."""

from __future__ import annotations

import json
from pathlib import Path

from browser_agent.failure_kinds import BROKEN
from browser_agent.planner.router import route
from browser_agent.planner.skill_call import SkillOutcome, keep_use
from browser_agent.settings import load_settings
from browser_agent.skills.run_state import Repair, Repairs
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.health import OK
from browser_agent.store.skill_use import current_skills, mark_stale
from browser_agent.store.skills import add_version, update_skill
from tests.stored_rows import clicking, opening, planned_skill

SITE = "http://127.0.0.1:8811/"
COMMAND = "open the shop's deals"


def test_the_field_follows_each_write_of_health_and_the_router_reads_it(tmp_path: Path) -> None:
    engine = open_store(load_settings().with_overrides(workspace=tmp_path))
    steps = [opening(SITE), clicking("#deals", "link", "Deals", "a")]
    skill = add_version(
        engine, planned_skill("open_deals", COMMAND, steps, status="candidate", start_url=SITE)
    )
    assert skill.id is not None and not skill.routable  # a new candidate waits for its check

    def routed() -> bool:
        return route(COMMAND, current_skills(engine), SITE) is not None

    update_skill(engine, skill.id, status="candidate", last_error="needs a secret: PW is unset")
    assert routed()  # only its secret was missing: the command may supply it
    update_skill(engine, skill.id, status="healthy", last_error=None)
    assert routed()
    mark_stale(engine, skill.id, "step 2: #deals is not there", "{}")
    assert not routed()  # no address of its plan does the broken step
    plan = json.loads(skill.plan)
    plan["steps"][1]["address"] = "/deals"
    Store.of(engine).execute("UPDATE skill SET plan = :plan", plan=json.dumps(plan))
    update_skill(engine, skill.id, status="stale", last_error="#deals moved", broken_step=2)
    assert routed()  # its address does the broken step, known from the verdict, not its words
    Store.of(engine).execute("UPDATE skill SET last_error = 'step 1: gone'")  # words alone
    assert routed()


def test_a_run_that_did_the_command_healed_only_leaves_its_skill_routed(tmp_path: Path) -> None:
    """A routed run found a relabelled control again by what it is ("Edit" now "Bearbeiten",
    to the same address) and did the command: the skill is stale, its healed selector kept
    for validation's next version, and still routed (each run heals the same way). Helped by
    the planner, not done, or found under its recorded name by another selector (a
    redesign, for validation to judge), it is not routed."""
    engine = open_store(load_settings().with_overrides(workspace=tmp_path))
    steps = [opening(SITE), clicking('role=link[name="Deals"]', "link", "Deals", "a")]
    skill = add_version(engine, planned_skill("open_deals", COMMAND, steps, start_url=SITE))
    assert skill.id is not None

    def use(kept: bool, done: bool, renamed: bool = True) -> bool:
        update_skill(engine, skill.id, status="healthy", last_error=None)
        gone = 'Step 2: no visible element matches role=link[name="Deals"].'
        how = "its identity (address; name now 'Angebote')"
        recorded, healed = 'role=link[name="Deals"]', 'a[href="/deals"]'
        found = Repair(2, recorded, healed, how, gone, kept, renamed=renamed)
        outcome = SkillOutcome(
            "Opened the deals.", done, repairs=[found], stale_because=found.said(),
            healed=Repairs(done=[found]).kept(), kind=BROKEN, counted_as=OK if done else BROKEN,
            step=2, error=found.said(),
        )  # fmt: skip
        keep_use(Store.of(engine), current_skills(engine)[0], outcome, window=20)
        (row,) = current_skills(engine)
        assert row.status == "stale"
        return route(COMMAND, current_skills(engine), SITE) is not None

    assert use(kept=True, done=True)
    assert not use(kept=False, done=True)  # the planner's own choice of element
    assert not use(kept=True, done=False)
    assert not use(kept=True, done=True, renamed=False)  # a redesign's other selector
