"""The skill tests of the browser_agent.testing plugin: one pytest item per current skill,
replayed in a Chromium of the plugin's own on an event loop of its own."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import launched_browser
from browser_agent.errors import BrowserAgentError, BrowserError
from browser_agent.settings import Settings, SettingsError, load_settings
from browser_agent.skills.logins import relogin
from browser_agent.skills.replay import replay
from browser_agent.skills.replay_session import Replay
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.errors import StoreError
from browser_agent.store.routability import waits_for_secret
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import current_skills
from browser_agent.validate.outcome import start_url_for

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

T = TypeVar("T")


class SkillBrowser:
    """One Chromium for every skill test of the session, started by the first of them, on
    an event loop in a thread of its own: the test's thread may hold another loop (a sync
    Playwright of pytest-playwright's keeps one running in it)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._stack = AsyncExitStack()
        self._browser: Browser | None = None

    def run(self, work: Callable[[Browser], Awaitable[T]]) -> T:
        return self._wait(self._with_browser(work))

    def _wait(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    async def _with_browser(self, work: Callable[[Browser], Awaitable[T]]) -> T:
        if self._browser is None:
            launched = launched_browser(self.settings)
            self._browser = await self._stack.enter_async_context(launched)
        return await work(self._browser)

    def close(self) -> None:
        try:
            self._wait(self._stack.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


BROWSER = pytest.StashKey[SkillBrowser]()


class SkillFailed(BrowserAgentError):
    """A skill did not reach its recorded end state."""

    def __init__(self, skill: SkillRow, outcome: Replay) -> None:
        super().__init__(outcome.error)
        self.skill = skill
        self.outcome = outcome


class HarvestedSkills(pytest.Collector):
    """The current skills of the workspace's store that are not retired."""

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings

    def collect(self) -> list[SkillTest]:
        try:
            skills = current_skills(open_store(self.settings))
        except StoreError as exc:
            raise self.CollectError(str(exc)) from None
        return [
            SkillTest.from_parent(self, name=skill.name, skill=skill)
            for skill in skills
            if skill.status != "retired"
        ]


class SkillTest(pytest.Item):
    """Replay one skill with its example arguments on ``--base-url`` (else where it was
    learnt); skipped when it needs a secret that is not configured."""

    def __init__(self, skill: SkillRow, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.skill = skill

    def runtest(self) -> None:
        settings = self.parent.settings  # type: ignore[union-attr]
        start_url = start_url_for(self.skill, base_url_of(self.config))
        kept = artifacts_folder(self.config, self.nodeid)
        store = Store.of(open_store(settings))
        outcome = skill_browser(self.config, settings).run(
            lambda browser: replay(
                self.skill,
                settings,
                browser,
                start_url=start_url,
                screenshot_dir=kept,
                trace_path=kept / "trace.zip",
                relogin=relogin(store),  # a kept session that expired is renewed first
                candidates=current_skills(store, "healthy"),
            )
        )
        if waits_for_secret(outcome.error):
            pytest.skip(outcome.error or "")
        if not outcome.passed:
            raise SkillFailed(self.skill, outcome)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        """A stale skill, or a browser that did not start, in a few lines; else a traceback."""
        if isinstance(excinfo.value, BrowserError):
            return str(excinfo.value)
        if not isinstance(excinfo.value, SkillFailed):
            return super().repr_failure(excinfo)
        skill, outcome = excinfo.value.skill, excinfo.value.outcome
        lines = [f"{skill.name} v{skill.version}: {outcome.error}"]
        lines += [f"screenshot: {outcome.screenshot}"] if outcome.screenshot else []
        lines += [f"trace: {outcome.trace}"] if outcome.trace else []
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"harvested skill {self.skill.name} v{self.skill.version}"


def skill_tests(session: pytest.Session, node: str, asked: list[str]) -> Iterator[pytest.Item]:
    """The skill tests that ``asked`` names (``node``, the collector's id: all of them),
    collected as pytest collects any; a node id that names no current skill is a usage error."""
    settings = skills_settings(session.config)
    collector = HarvestedSkills.from_parent(session, name=node, nodeid=node, settings=settings)
    found = list(session.genitems(collector))
    for node_id in asked:
        if node_id != node and not any(item.nodeid == node_id for item in found):
            raise pytest.UsageError(
                f"not found: {node_id} (no current harvested skill of that name in "
                f"{settings.workspace})"
            )
    if node in asked:
        return iter(found)
    return (item for item in found if item.nodeid in asked)


def skills_settings(config: pytest.Config) -> Settings:
    """The settings, with ``--skills-workspace`` and ``--headed`` (a Playwright plugin's
    option) applied; a setting that does not fit is a usage error in one line."""
    workspace = config.getoption("skills_workspace")
    try:
        return load_settings().with_overrides(
            workspace=Path(workspace).expanduser().resolve() if workspace else None,
            headed=config.getoption("headed", default=None) or None,
        )
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None


def base_url_of(config: pytest.Config) -> str | None:
    """``--base-url`` or the ``base_url`` ini value, whichever plugin registered them."""
    given = config.getoption("base_url", default=None)
    if given:
        return str(given)
    try:
        return str(config.getini("base_url")) or None
    except ValueError:  # no plugin registered it
        return None


def artifacts_folder(config: pytest.Config, node_id: str) -> Path:
    """Where a test keeps its screenshot and trace: ``--output`` (test-results, as the
    Playwright plugins have it) and a folder named after the test."""
    output = Path(config.getoption("output", default=None) or "test-results")
    name = re.sub(r"[^A-Za-z0-9]+", "-", node_id).strip("-").lower()
    return config.invocation_params.dir / output / name


def skill_browser(config: pytest.Config, settings: Settings) -> SkillBrowser:
    """The session's browser for skill tests, closed when pytest is done."""
    if BROWSER not in config.stash:
        config.stash[BROWSER] = SkillBrowser(settings)
        config.add_cleanup(config.stash[BROWSER].close)
    return config.stash[BROWSER]
