"""Validation of a removal whose example is gone (it was removed when the skill was
learnt), on the wiki of tests/test_validate_relabelled.py: the skill is replayed on a
page the wiki listed beside it up to its last step, whose element is found and not used,
and no request but a GET or HEAD leaves the browser meanwhile. Nothing is deleted; a
relabelled step is still seen stale."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser

from browser_agent.plans.plan import ElementRecord
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill
from browser_agent.store.skills import add_version
from browser_agent.validate.validator import run_validation
from tests.skill_workspaces import workspace_settings
from tests.test_validate_relabelled import _Wiki, wiki, wiki_skill  # noqa: F401 - the fixture

DELETE = ElementRecord('role=link[name="Delete this page"]', "link", "Delete this page", "a",
                       "Delete this page", {"href": "/wiki/Kestrel/delete"})  # fmt: skip


def _settled(tmp_path: Path, skill: Skill) -> Path:
    """A workspace holding ``skill``, the example's page deleted since its harvest."""
    settings = workspace_settings(tmp_path / "workspace")
    add_version(open_store(settings), skill)
    _Wiki.pages.remove("Kestrel")
    return settings


async def test_a_removal_whose_example_is_gone_is_checked_on_a_listed_page_up_to_its_last_step(
    wiki: str,  # noqa: F811
    browser: Browser,
    tmp_path: Path,
) -> None:
    deleting = wiki_skill(f"{wiki}/wiki/", "delete", ("Osprey",), (DELETE, "/wiki/Kestrel/delete"))
    settings = _settled(tmp_path, deleting)
    report = await run_validation(settings, ["delete_wiki_page"], browser=browser)
    assert [c.verdict for c in report.checked] == ["healthy"], report.checked
    assert "Osprey" in _Wiki.pages  # its delete link was found, never followed

    _Wiki.lang = "de"  # the delete link relabelled: the skill as written is broken
    report = await run_validation(settings, ["delete_wiki_page"], browser=browser)
    (checked,) = report.checked
    assert checked.verdict == "stale", checked
    said = checked.error or ""
    assert "with title='Osprey' (listed by the site): replayed with its removing step 3" in said
    assert 'no visible element matches role=link[name="Delete this page"]' in said
    assert "Osprey" in _Wiki.pages


def _removal_by_form(start: str) -> Skill:
    """A removal that deletes by a form's POST at its third step and then follows the
    answer's link back to the pages (its last step)."""
    remove = ElementRecord('role=button[name="Remove"]', "button", "Remove", "button", "Remove")
    back = ElementRecord('role=link[name="Back to pages"]', "link", "Back to pages", "a",
                         "Back to pages", {"href": "/wiki/"})  # fmt: skip
    return wiki_skill(start, "remove", ("Osprey",), (remove, "/wiki/Kestrel/delete"),
                      (back, "/wiki/"))  # fmt: skip


async def test_a_removal_that_removes_before_its_last_step_is_held_back_by_its_request(
    wiki: str,  # noqa: F811
    browser: Browser,
    tmp_path: Path,
) -> None:
    settings = _settled(tmp_path, _removal_by_form(f"{wiki}/wiki/"))
    report = await run_validation(settings, ["remove_wiki_page"], browser=browser)
    assert "Osprey" in _Wiki.pages, report.checked  # its POST never left the browser
    # what failed once the request was held back refutes nothing
    assert [c.verdict for c in report.checked] == ["healthy"], report.checked
