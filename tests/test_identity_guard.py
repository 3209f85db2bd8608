"""The identity guard and the end-state check, end to end on the demo shop's swapped
variant: skills harvested on the normal shop meet an old selector that names another
control ("Add to cart" and "Add to wishlist" swapped ids) and a sort select that reloads
the page without sorting. What was clicked is read from the shop's own records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.settings import Settings
from browser_agent.skills.end_address import same_end
from browser_agent.store.db import open_store
from browser_agent.store.models import Step, Validation
from browser_agent.store.skills import skill_by_name
from browser_agent.validate.validator import run_validation
from tests.skill_workspaces import (
    ADD_TO_CART,
    SEARCH,
    clone_workspace,
    harvest_commands,
    run_offline,
    workspace_settings,
)

CART_SKILL = "add_size_quantity_cart"
SEARCH_SKILL = "search_sort"
RECORDED_END = "/search?q=trail+shoes&sort=price_asc"
SWAPPED_END = "/search?q=trail+shoes&sort_by=price_asc"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harvested(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace with the add-to-cart and the search skills, verified on the normal shop."""
    demo.variant = "normal"
    settings = workspace_settings(tmp_path_factory.mktemp("identity") / "workspace")
    await harvest_commands([ADD_TO_CART, SEARCH], settings, browser, demo)
    return settings


@pytest.fixture
def workspace(harvested: Settings, tmp_path: Path) -> Settings:
    return clone_workspace(harvested, tmp_path / "workspace")


def wishlisted(submissions: list[dict]) -> list[dict]:
    """The shop's record of every "Add to wishlist" click among ``submissions``."""
    return [s for s in submissions if s["form"] == "wishlist"]


async def test_validation_marks_stale_the_step_whose_selector_names_another_control(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    demo.variant = "swapped"
    before = len(demo.submissions)
    report = await run_validation(workspace, [CART_SKILL], browser=browser)

    (checked,) = report.checked
    assert (checked.verdict, checked.step, checked.selector) == ("stale", 5, "#add-to-cart")
    assert checked.error == (
        "Step 5: #add-to-cart now names a button 'Add to wishlist', "
        "not the button 'Add to cart' it was recorded on."
    )
    assert report.exit_code() == 1
    assert demo.submissions[before:] == []  # nothing was added anywhere: not even the wishlist
    engine = open_store(workspace)
    skill = skill_by_name(engine, CART_SKILL)
    assert skill is not None and skill.status == "stale"
    with Session(engine) as db:
        rows = db.exec(
            select(Validation)
            .where(Validation.skill_name == CART_SKILL)
            .order_by(Validation.checked_at)
        ).all()
    harvest_replay, row = rows  # the harvest's verifying replay is kept as the first check
    assert harvest_replay.passed
    assert (row.passed, row.step, row.selector) == (False, 5, "#add-to-cart")


async def test_a_routed_run_clicks_the_recorded_control_and_never_the_one_with_its_old_id(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    demo.variant = "swapped"
    before = len(demo.submissions)
    run = await run_offline(
        "add Trail Blazer 2 in size 42, quantity 1 to the cart",
        "/",
        workspace,
        engine,
        browser,
        demo,
    )

    clicked = demo.submissions[before:]
    assert wishlisted(clicked) == []  # 0 misclicks, by the shop's own record
    assert clicked == [
        {"form": "cart", "fields": {"slug": "trail-blazer-2", "size": "42", "quantity": "1"}}
    ]
    assert (run.status, run.llm_calls) == ("succeeded", 0), run.answer
    assert run.final_url == f"{demo.url}/cart"
    with Session(engine) as db:
        first = db.exec(select(Step).where(Step.run_id == run.run_id).order_by(Step.index)).first()
    assert first is not None and (first.tool, first.ok, first.error) == (
        CART_SKILL,
        True,
        "skill_repaired",
    )
    assert "#add-to-cart now names a button 'Add to wishlist'" in first.response
    skill = skill_by_name(engine, CART_SKILL)
    assert skill is not None and skill.status == "stale"  # until validation passes again
    assert json.loads(skill.healed) == {"5": {"#add-to-cart": 'role=button[name="Add to cart"s]'}}


async def test_validation_fails_a_replay_whose_steps_pass_but_that_ends_elsewhere(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    # every step of the search skill still finds its element and sees the page move on,
    # but the sort select sends a parameter the shop ignores: the recorded end is missed
    demo.variant = "swapped"
    report = await run_validation(workspace, [SEARCH_SKILL], browser=browser)
    (checked,) = report.checked
    assert (checked.verdict, checked.step, checked.selector) == ("stale", None, None)
    assert checked.error == f"ended on {SWAPPED_END} instead of {RECORDED_END}"
    assert checked.final_url == f"{demo.url}{SWAPPED_END}"
    assert checked.screenshot and Path(checked.screenshot).is_file()
    engine = open_store(workspace)
    skill = skill_by_name(engine, SEARCH_SKILL)
    assert skill is not None and skill.status == "stale" and skill.expected_end == RECORDED_END


async def test_harvest_leaves_unverified_a_skill_whose_replay_ends_elsewhere(
    tmp_path: Path, browser: Browser, demo: DemoSite
) -> None:
    # a run done on the normal shop, harvested once the shop changed: the verifying
    # replay passes every step, misses the recorded end, and the skill is not healthy
    fresh = workspace_settings(tmp_path / "fresh")
    store = open_store(fresh)
    demo.variant = "normal"
    done = await run_offline(*SEARCH, fresh, store, browser, demo)
    assert done.status == "succeeded" and done.final_url == f"{demo.url}{RECORDED_END}"
    demo.variant = "swapped"
    (result,) = await harvest([Path(done.log_path)], fresh, store, browser=browser)
    assert result.skill is not None, result.error
    assert (result.verified, result.verify_error) == (
        False,
        f"ended on {SWAPPED_END} instead of {RECORDED_END}",
    )
    assert result.skill.status == "candidate"


def test_two_roads_to_one_results_page_are_one_end() -> None:
    """A search form sent before the page's script is ready and one sent after reach the
    same results by addresses that differ in the options they add: one end. A recorded
    key missing or changed, or another path, is another page."""
    example, used = {"search_term": "trail shoes"}, {"search_term": "road shoes"}
    assert same_end("/search?q=road+shoes&noquickjump=1", "/search?q=trail+shoes", example, used)
    assert not same_end(SWAPPED_END, RECORDED_END, example, example)
    assert not same_end("/wiki/road+shoes", "/search?q=trail+shoes", example, used)
    assert not same_end("/search?q=trail+shoes", "/search?q=trail+shoes", example, used)


def test_a_title_an_address_writes_with_underscores_is_the_same_end() -> None:
    """A wiki writes "Safety Notes" as /index.php/Safety_Notes: another page of the list,
    "Harbor Office", ends at /index.php/Harbor_Office, the same end for its value."""
    example, used = {"link_name": "Safety Notes"}, {"link_name": "Harbor Office"}
    assert same_end("/index.php/Harbor_Office", "/index.php/Safety_Notes", example, used)
    assert not same_end("/index.php/Main_Page", "/index.php/Safety_Notes", example, used)
