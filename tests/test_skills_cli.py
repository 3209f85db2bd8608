"""`browser-agent skills` on a store with many skills: the first ones by name, and how many
more there are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from browser_agent.cli import app
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill
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
