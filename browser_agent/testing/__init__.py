"""The shipped test helpers: this pytest plugin, the OpenAI-compatible test server
(:mod:`~browser_agent.testing.openai_server`) and the MiniWoB++ task pages
(:mod:`~browser_agent.testing.miniwob_site`). They need the ``testing`` extra (pytest).

The plugin: every current harvested skill in the store becomes a regression test.

``pytest -p browser_agent.testing --harvested-skills --base-url URL`` (the plugin is also
loaded through its pytest11 entry point) adds one test per skill, named
``harvested-skills::<skill>``. Each replays its skill with the example arguments in a fresh
context of a Chromium of its own, so it needs neither pytest-playwright's fixtures nor
pytest-playwright-asyncio's and runs beside either, and checks the recorded end state.
``--base-url`` (pytest-base-url's option, or the one either Playwright plugin adds without
it) replaces the recorded site; their ``--headed`` and ``--output`` apply too. A failing
test keeps its screenshot and trace in ``<output>/<test>/``.

Skill tests are collected with ``--harvested-skills`` when no path is named, or when an
argument is one of their node ids (as ``-v`` prints them); a named path that is not about
skills collects none. This module stays cheap to import: pytest loads it in every run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: The node id of the collector that holds the skill tests, and the prefix of theirs.
NODE = "harvested-skills"
#: The skill node ids the command line asks for (``NODE`` for all of them).
ASKED = pytest.StashKey[list[str]]()


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


def names_skill_tests(argument: str, here: Path) -> bool:
    """Whether a command-line argument is a skill test's node id (and not a path)."""
    if argument != NODE and not argument.startswith(f"{NODE}::"):
        return False
    return not (here / argument.split("::")[0]).exists()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Take skill node ids out of the arguments (pytest would look for such files) and
    note which skill tests are asked for."""
    here = config.invocation_params.dir
    named = [argument for argument in config.args if names_skill_tests(argument, here)]
    if named:
        config.args = [argument for argument in config.args if argument not in named]
        config.stash[ASKED] = named
    elif (
        config.getoption("harvested_skills") and config.args_source != pytest.Config.ArgsSource.ARGS
    ):
        config.stash[ASKED] = [NODE]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the skill tests asked for, before -k, -m and --deselect choose among items."""
    asked = config.stash.get(ASKED, [])
    if asked:
        from browser_agent.testing.items import skill_tests

        items.extend(skill_tests(session, NODE, asked))
