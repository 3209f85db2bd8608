"""`browser-agent skills` on a store with many skills: the first ones by name, and how many
more there are."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Run, Skill
from browser_agent.store.skills import add_version


def test_skills_lists_the_first_by_name_and_counts_the_rest(settings: Settings) -> None:
    engine = open_store(settings)
    for n in range(5):
        skill = Skill(
            name=f"skill_{n}", module_path="", shape=f"do {n}", command_templates=f'["do {n}"]'
        )
        add_version(engine, skill)
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace), "COLUMNS": "200"}

    listed = CliRunner().invoke(app, ["skills", "--limit", "2"], env=env)
    assert listed.exit_code == 0, listed.output
    assert "skill_0" in listed.output and "skill_1" in listed.output
    assert "skill_2" not in listed.output
    assert "… and 3 more (--limit 0 lists them all)." in listed.output

    everything = CliRunner().invoke(app, ["skills", "--limit", "0"], env=env)
    assert all(f"skill_{n}" in everything.output for n in range(5))
    assert "more" not in everything.output


def test_at_80_columns_a_skill_s_command_reads_on_one_line(settings: Settings) -> None:
    template = "search for {search_term} and sort by {sort_by}"
    skill = Skill(name="search_sort", module_path="", shape=template)
    skill.command_templates = f'["{template}"]'
    add_version(open_store(settings), skill)
    env = {**os.environ, "BROWSER_AGENT_WORKSPACE": str(settings.workspace), "COLUMNS": "80"}

    done = subprocess.run(
        [str(Path(sys.executable).parent / "browser-agent"), "skills"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    assert "search for {search_term} and sort by" in done.stdout


def complete(workspace: Path, words: str) -> subprocess.CompletedProcess[str]:
    """What bash's tab completion gets from the command for the last of ``words``."""
    env = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(workspace),
        "_BROWSER_AGENT_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - 1),
    }
    command = [str(Path(sys.executable).parent / "browser-agent")]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_tab_completes_skill_names_from_the_store(settings: Settings, tmp_path: Path) -> None:
    engine = open_store(settings)
    for name in ("search_sort", "search_only", "open_product"):
        add_version(engine, Skill(name=name, module_path="", shape=name))

    done = complete(settings.workspace, "browser-agent skills show search")
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == ["search_only", "search_sort"]
    assert complete(settings.workspace, "browser-agent validate op").stdout.split() == [
        "open_product"
    ]

    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    done = complete(not_a_folder, "browser-agent skills show s")
    assert done.stdout.strip() == "" and "Traceback" not in done.stderr


def test_tab_completes_run_ids_newest_first(settings: Settings) -> None:
    with Session(open_store(settings)) as db:
        for n, day in ((1, 1), (2, 2), (3, 3)):
            started = datetime(2026, 12, day, tzinfo=UTC)
            db.add(Run(id=f"202612{day:02d}-run{n}", command="c", started_at=started))
        db.add(Run(id="20261105-old", command="c"))
        db.commit()

    done = complete(settings.workspace, "browser-agent show 202612")
    assert done.stdout.split() == ["20261203-run3", "20261202-run2", "20261201-run1"]
