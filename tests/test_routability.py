"""Whether a skill may be routed is kept in its row, decided where its health is written
(a new version, a verdict, a stale mark at run time) and read by the router as it is: a
real SQLite store, the router on the stored rows."""

from __future__ import annotations

import json
from pathlib import Path

from browser_agent.planner.router import route
from browser_agent.settings import load_settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
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
