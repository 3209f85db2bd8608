"""A pytest plugin: every harvested skill in the store becomes a regression test.

Enable it with ``-p browser_agent.testing`` (it is also registered as a pytest11 entry
point) and run ``pytest --harvested-skills``. The skills come from the workspace in
``--skills-workspace`` or ``BROWSER_AGENT_WORKSPACE``; each test replays one skill with
its example arguments on pytest-playwright's ``page`` (the asyncio flavour,
pytest-playwright-asyncio, with its ``--browser-channel``, ``--headed`` and
``--base-url`` options: the base URL replaces the recorded site) and checks the end
state it recorded. Nothing happens without ``--harvested-skills``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).with_name("harvested.py")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("browser-agent", "browser-agent harvested skills")
    group.addoption(
        "--harvested-skills",
        action="store_true",
        default=False,
        help="Add one test per current harvested skill in the store.",
    )
    group.addoption(
        "--skills-workspace",
        default=None,
        help="The browser-agent workspace holding the skills (default: BROWSER_AGENT_WORKSPACE).",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the skill tests before -k and -m select among the items."""
    if config.getoption("harvested_skills"):
        module = pytest.Module.from_parent(session, path=TESTS, nodeid="harvested-skills")
        items.extend(session.genitems(module))
