"""Shared fixtures: a temporary workspace, one Chromium per test session, the demo site."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser

from browser_agent.browser.session import BrowserSession, browser_session, launched_browser
from browser_agent.demo_site import DemoSite, start_demo_site
from browser_agent.settings import Settings, load_settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings pointing at a fresh workspace, with short timeouts for error paths."""
    return load_settings().with_overrides(
        workspace=tmp_path, action_timeout_ms=1_500, navigation_timeout_ms=10_000
    )


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
