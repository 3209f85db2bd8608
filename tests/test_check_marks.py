"""The marks of checked skill rows vouch for nothing a store or a workspace holds: a mark
counts only when named under the person's own key, kept outside every workspace. A mark
written by hand for a tampered row, or a workspace copied from someone with another key,
makes the row be checked in full again; the added code never runs. Real SQLite store, real
generated modules; the added code would write a marker file if it ran."""

from __future__ import annotations

import hashlib
import shutil
import stat
from pathlib import Path

import pytest

from browser_agent.names import __version__
from browser_agent.planner.router import decide
from browser_agent.settings import Settings, load_settings
from browser_agent.skills.check_key import key_path, mark_name, user_key
from browser_agent.skills.stored import CHECKED, NOT_MADE, SkillRefused, load_skill, made_code
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import add_version
from tests.stored_rows import clicking, opening, planned_skill

SITE = "http://127.0.0.1:8811/"
COMMAND = "open the shop's deals"


def stored(workspace: Path) -> Settings:
    """A workspace whose SQLite store holds one healthy skill, as harvesting writes it."""
    settings = load_settings().with_overrides(workspace=workspace)
    steps = [opening(SITE), clicking("#deals", "link", "Deals", "a")]
    skill = planned_skill("open_deals", COMMAND, steps, status="healthy", start_url=SITE)
    add_version(open_store(settings), skill)
    return settings


def the_row(settings: Settings) -> SkillRow:
    (row,) = current_skills(open_store(settings))
    return row


def add_code(settings: Settings, marker: Path) -> SkillRow:
    """The row's code with Python added that writes ``marker`` when it is imported."""
    code = f"\nimport pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
    Store.of(open_store(settings)).execute("UPDATE skill SET source = source || :code", code=code)
    return the_row(settings)


def row_bytes(row: SkillRow) -> bytes:
    """Every byte of a row a mark speaks for, with the release."""
    return "\0".join((__version__, row.name, row.plan, row.source, row.source_hash)).encode()


def marks(workspace: Path) -> set[str]:
    folder = workspace / CHECKED
    return {path.name for path in folder.iterdir()} if folder.is_dir() else set()


def test_a_mark_written_by_hand_for_a_tampered_row_runs_nothing(tmp_path: Path) -> None:
    settings = stored(tmp_path / "workspace")
    workspace, marker = settings.workspace, tmp_path / "ran"
    assert made_code(the_row(settings), workspace)  # checked, and marked under the key
    assert len(marks(workspace)) == 1
    tampered = add_code(settings, marker)
    forged = workspace / CHECKED
    forged.joinpath(hashlib.sha256(row_bytes(tampered)).hexdigest()).touch()  # as marks were
    forged.joinpath(mark_name(b"\0" * 32, row_bytes(tampered))).touch()  # under a guessed key

    with pytest.raises(SkillRefused, match="its stored code is not what its plan makes"):
        load_skill(tampered, workspace)
    routing = decide(COMMAND, [tampered], SITE, workspace)
    assert routing.route is None and routing.tools == []
    (passed,) = routing.passed_over
    assert (passed.state, passed.why, passed.instead) == ("refused", NOT_MADE, "the planner")
    assert not marker.exists()


def test_a_copied_workspace_with_another_key_is_checked_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "their-state"))
    theirs = stored(tmp_path / "theirs")
    genuine = the_row(theirs)
    assert made_code(genuine, theirs.workspace)
    marker = tmp_path / "ran"
    tampered = add_code(theirs, marker)
    # whoever holds their key marks the tampered row, which their workspace then trusts
    their_key = user_key(theirs.workspace)
    assert their_key is not None
    (theirs.workspace / CHECKED / mark_name(their_key, row_bytes(tampered))).touch()
    assert made_code(tampered, theirs.workspace) == tampered.source
    shutil.copytree(theirs.workspace, tmp_path / "mine")
    copied_marks = marks(tmp_path / "mine")

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "my-state"))  # another person's key
    mine = load_settings().with_overrides(workspace=tmp_path / "mine")
    with pytest.raises(SkillRefused, match="its stored code is not what its plan makes"):
        load_skill(the_row(mine), mine.workspace)
    assert not marker.exists()

    Store.of(open_store(mine)).execute(
        "UPDATE skill SET source = :code", code=genuine.source
    )  # the genuine row, as harvested: checked in full, and it loads
    assert load_skill(the_row(mine), mine.workspace).__name__ == "open_deals"
    assert len(marks(mine.workspace) - copied_marks) == 1  # now marked under my key


def test_the_key_is_the_user_s_own_outside_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    settings = stored(tmp_path / "workspace")
    key = user_key(settings.workspace)
    assert key is not None and len(key) == 32 and user_key(settings.workspace) == key
    path = key_path()
    assert not path.is_relative_to(settings.workspace)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    path.chmod(0o644)  # readable by others: it vouches for nothing, every row is made again
    assert user_key(settings.workspace) is None
    assert made_code(the_row(settings), settings.workspace) and marks(settings.workspace) == set()
    path.chmod(0o600)
    assert user_key(tmp_path / "state") is None  # a workspace holding the key: no marks at all


def test_routing_decides_and_writes_nothing_the_run_that_loads_marks(tmp_path: Path) -> None:
    """The router reads the marks and writes none, and checks only the route it takes: the
    skills offered as tools are checked when they are loaded. Loading the route marks it."""
    settings = stored(tmp_path / "workspace")
    workspace = settings.workspace
    routing = decide(COMMAND, [the_row(settings)], SITE, workspace)
    assert routing.route is not None and routing.passed_over == []
    assert marks(workspace) == set()
    assert load_skill(routing.route.skill, workspace).__name__ == "open_deals"
    assert len(marks(workspace)) == 1
