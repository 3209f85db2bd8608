"""Shared fixtures: a temporary workspace, one Chromium per test session, the demo site,
and the stores the store tests run on (SQLite, and a PostgreSQL server of the session's own)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser

from browser_agent.browser.session import BrowserSession, browser_session, launched_browser
from browser_agent.demo_site import DemoSite, start_demo_site
from browser_agent.settings import Settings, load_settings
from tests.postgres_server import (
    PostgresMissing,
    fresh_database,
    server_binaries,
    throwaway_postgres,
)

#: The kinds of store the store tests run on, one parameter of ``store_url`` each.
STORES = ["sqlite", "postgresql"]


@pytest.fixture(scope="session", autouse=True)
def _user_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's state folder (where the key of checked skills' marks is kept) and config
    folder (no config file of the machine's user reaches a test) in temporary places of the
    session's own, for this process and the commands it starts."""
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("user-state")
        patch.setenv("XDG_STATE_HOME", str(folder))
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("user-config")))
        patch.delenv("BROWSER_AGENT_CONFIG", raising=False)
        yield folder


def settings_in(workspace: Path) -> Settings:
    """Settings pointing at ``workspace``, with short timeouts for error paths."""
    return load_settings().with_overrides(
        workspace=workspace,
        action_timeout_ms=1_500,
        navigation_timeout_ms=10_000,
        effect_timeout_ms=2_000,
    )


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings pointing at a fresh workspace, with short timeouts for error paths."""
    return settings_in(tmp_path)


@pytest.fixture(scope="session")
def demo() -> Iterator[DemoSite]:
    with start_demo_site(port=0) as site:
        yield site


@pytest.fixture(autouse=True)
def _normal_variant(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests that switch the demo site to its redesign get it back as it was."""
    yield
    if "demo" in request.fixturenames:
        request.getfixturevalue("demo").variant = "normal"


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with launched_browser(load_settings()) as launched:
        yield launched


@pytest_asyncio.fixture
async def page_session(settings: Settings, browser: Browser) -> AsyncIterator[BrowserSession]:
    """A fresh browser context that primitives called by the test act on."""
    async with browser_session(settings, browser) as active:
        yield active


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on 127.0.0.1 for the whole session (started by the
    first test that needs it); the URL of its database ``agent``, as its superuser."""
    try:
        server_binaries()
    except PostgresMissing as exc:
        missing = str(exc)
    else:
        missing = ""
    if missing:  # every test on PostgreSQL fails, saying what to install; none is skipped
        pytest.fail(missing, pytrace=False)
    with throwaway_postgres() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """An empty PostgreSQL database of this test's own (``postgresql://…``), dropped after."""
    with fresh_database(postgres_server) as url:
        yield url


@pytest.fixture(params=STORES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty store of each kind: SQLite, a file in the test's workspace
    (``tmp_path / "workspace"``); PostgreSQL, a database of the test's own."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres_url")
    return f"sqlite:///{tmp_path / 'workspace' / 'browser_agent.db'}"
