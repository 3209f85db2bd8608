"""The pytest plugin: ``pytest -p browser_agent.testing --harvested-skills`` in a subprocess
gives one test per harvested skill, on pytest-playwright's page and --base-url."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from playwright.async_api import Browser

from browser_agent.demo_site import DemoSite
from tests.skill_workspaces import (
    ACTION_TIMEOUT_MS,
    LOG_IN,
    OPEN_PRODUCT,
    SEARCH,
    harvest_commands,
    workspace_settings,
)


def outcomes(junit: Path) -> dict[str, str]:
    """Test name -> passed, failed or skipped, from a JUnit XML report."""
    found = {}
    for case in ET.parse(junit).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[case.get("name", "")] = kinds[0] if kinds else "passed"
    return found


async def test_one_test_per_harvested_skill(
    tmp_path: Path, browser: Browser, demo: DemoSite
) -> None:
    settings = workspace_settings(tmp_path / "workspace")
    await harvest_commands([SEARCH, OPEN_PRODUCT, LOG_IN], settings, browser, demo)
    demo.variant = "redesign"
    here = tmp_path / "ci"
    here.mkdir()
    junit = here / "results.xml"
    env = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": str(ACTION_TIMEOUT_MS),
    }
    # the skills were recorded on this site; --base-url points them at it again
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "browser_agent.testing",
        "--harvested-skills",
        "--base-url",
        demo.url,
        "--junit-xml",
        str(junit),
        "-p",
        "no:cacheprovider",
    ]
    done = subprocess.run(command, cwd=here, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr  # 1: some tests failed
    assert outcomes(junit) == {
        "test_harvested_skill[search_sort-chromium]": "failure",
        "test_harvested_skill[open_link_name-chromium]": "passed",
        "test_harvested_skill[log_password-chromium]": "skipped",
    }
    assert "search_sort v1: stale: Step 2: no visible element matches #search-box" in done.stdout
    assert "1 failed, 1 passed, 1 skipped" in done.stdout
