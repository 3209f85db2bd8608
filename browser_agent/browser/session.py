"""The browser session of one task: browser context, current page and what was observed.

Primitives reach the session through a context variable, so several sessions can run
concurrently in one process (one per asyncio task) and generated skill code can call
primitives as plain functions.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, Dialog, Frame, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium
from browser_agent.browser.dialogs import answer_dialog
from browser_agent.browser.driver import playwright_driver
from browser_agent.browser.endpoint import cdp_address
from browser_agent.browser.navigation_guard import guard_navigations
from browser_agent.browser.profiles import keep_profile, starting_state
from browser_agent.dom.library import holding_script
from browser_agent.errors import BrowserError, NoBrowser
from browser_agent.settings import Settings, mask_url
from browser_agent.sites.boundary import Boundary
from browser_agent.storage_state import ProfileError

T = TypeVar("T")


@dataclass
class BrowserSession:
    """One task's view of the browser. ``observed`` maps each mmid of the last observation
    to (tag, role, name) so an mmid that now names another element can be refused;
    ``accept_dialogs`` says whether confirm, prompt and leave-page dialogs are accepted."""

    settings: Settings
    context: BrowserContext
    page: Page
    observed: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    secrets: set[str] = field(default_factory=set)  # values masked in all that is written
    secret_values: dict[str, str] = field(default_factory=dict)  # by name, for {NAME}
    dialogs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    page_version: int = 0  # bumped whenever an action navigates or adds elements
    crashed: bool = False
    accept_dialogs: bool = False
    boundary: Boundary | None = None  # the sites the run may open, when no allow-list is set
    refused: str = ""  # why the current tab's last navigation was refused, until it moves on
    # (the page's address, the element's role and accessible name) of each element an
    # action was about to use, the latest last: where a removed thing was before it went
    acted: list[tuple[str, str, str]] = field(default_factory=list)

    @classmethod
    async def create(
        cls, browser: Browser, settings: Settings, boundary: Boundary | None = None
    ) -> BrowserSession:
        """Open a fresh context and page in ``browser``, with the configured timeouts and
        allowed sites, holding the cookies and storage of the configured profile or file.
        With no allow-list, ``boundary`` (by default: the first site opened) keeps it on
        its sites."""
        try:
            state = starting_state(settings)
        except ProfileError as exc:
            raise BrowserError(str(exc)) from None
        context = await browser.new_context(
            viewport={"width": 1280, "height": 900}, storage_state=state
        )
        await context.add_init_script(script=holding_script())  # read pages cheaply
        created = cls.around(await context.new_page(), settings)
        if not settings.allowed_domains:
            created.boundary = Boundary() if boundary is None else boundary
        await guard_navigations(created)  # the allowed sites, in every tab and frame
        return created

    @classmethod
    def around(cls, page: Page, settings: Settings) -> BrowserSession:
        """A session on a page someone else opened (a pytest-playwright ``page``), with the
        configured timeouts; closing it stays the owner's job."""
        page.context.set_default_timeout(settings.action_timeout_ms)
        page.context.set_default_navigation_timeout(settings.navigation_timeout_ms)
        created = cls(
            settings=settings,
            context=page.context,
            page=page,
            accept_dialogs=settings.accept_dialogs,
        )
        created._watch(page)
        page.context.on("page", created._adopt)
        return created

    def _watch(self, page: Page) -> None:
        page.on("dialog", self._on_dialog)
        page.on("crash", lambda _page: setattr(self, "crashed", True))
        page.on("framenavigated", self._moved_on)

    def _moved_on(self, frame: Frame) -> None:
        """A page that loads in the tab ends the last refusal (the browser's error page not)."""
        if frame.parent_frame is None and not frame.url.startswith("chrome-error:"):
            self.refused = ""

    def _adopt(self, page: Page) -> None:
        """Follow a tab or popup the page opened: later actions happen there."""
        self._watch(page)
        self.page = page
        self.observed.clear()
        self.notes.append("A new tab opened and is now the current page.")

    async def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(await answer_dialog(dialog, self.accept_dialogs))

    def use_secrets(self, values: dict[str, str]) -> None:
        """Type these secrets where text names them as ``{NAME}``; mask them everywhere."""
        self.secret_values.update(values)
        self.secrets.update(values.values())

    def current_page(self) -> Page:
        """The page to act on; a clear error when it crashed or was closed."""
        if self.crashed:
            raise BrowserError("The page crashed. Open the URL again to continue.")
        if self.page.is_closed():
            open_pages = [p for p in self.context.pages if not p.is_closed()]
            if not open_pages:
                raise BrowserError("The page was closed and no other page is open.")
            self.page = open_pages[-1]
        return self.page

    def note_acted(self, url: str, role: str, name: str) -> None:
        """Keep where an action found which element (the last 50)."""
        self.acted = [*self.acted[-49:], (url, role, name)]

    async def read_aside(self, url: str, read: Callable[[Page], Awaitable[T]]) -> T | None:
        """``read`` of the page at ``url``, opened in a tab of its own that is closed after:
        the run stays on its page, and opening it is no note of the run's. None when the
        address is no web page or answers with an error."""
        if urlsplit(url).scheme not in ("http", "https"):
            return None
        page, notes = self.page, len(self.notes)
        other = await self.context.new_page()
        self.page = page  # the session followed the new tab
        del self.notes[notes:]
        try:
            response = await other.goto(url, wait_until="load")
            if response is None or response.status >= 400:
                return None
            return await read(other)
        except PlaywrightError:
            return None
        finally:
            with suppress(PlaywrightError):
                await other.close()

    async def close(self) -> None:
        await self.context.close()


_current: ContextVar[BrowserSession | None] = ContextVar("browser_agent_session", default=None)


def session() -> BrowserSession:
    """The session of the running task."""
    active = _current.get()
    if active is None:
        raise BrowserError("No browser session is active: run skills inside browser_session().")
    return active


def current_page() -> Page:
    """The current page of the running task's session."""
    return session().current_page()


@asynccontextmanager
async def launched_browser(
    settings: Settings, playwright: Playwright | None = None
) -> AsyncIterator[Browser]:
    """Launch headless Chromium, or connect to the remote browser named in the settings,
    through ``playwright`` (a driver already started) or a driver of its own."""
    if playwright is None:
        async with playwright_driver() as started, launched_browser(settings, started) as own:
            yield own
        return
    endpoint = settings.browser_endpoint
    try:
        devtools = await asyncio.to_thread(cdp_address, endpoint) if endpoint else None
        if devtools:
            browser = await playwright.chromium.connect_over_cdp(devtools)
        elif endpoint:
            browser = await playwright.chromium.connect(endpoint)
        else:
            executable = find_chromium(
                settings.chromium_path,
                playwright.chromium.executable_path,
                headless=settings.headless,
            )
            browser = await playwright.chromium.launch(
                executable_path=executable, headless=settings.headless, args=LAUNCH_ARGS
            )
    except BrowserError:
        raise
    except Exception as exc:  # a setup problem: said in one line, with what to check
        where = f"at {mask_url(endpoint)}" if endpoint else "locally"
        check = "BROWSER_AGENT_BROWSER_ENDPOINT" if endpoint else "BROWSER_AGENT_CHROMIUM"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        said = f"Could not start the browser {where}: {first} (check {check})"
        raise NoBrowser(said) from exc
    try:
        yield browser
    finally:
        await browser.close()


@contextmanager
def page_session(page: Page, settings: Settings) -> Iterator[BrowserSession]:
    """Primitives in this task act on ``page``, which the caller opened and will close."""
    around = BrowserSession.around(page, settings)
    token = _current.set(around)
    try:
        yield around
    finally:
        _current.reset(token)


@asynccontextmanager
async def browser_session(
    settings: Settings,
    browser: Browser | None = None,
    *,
    save_profile: bool = False,
    boundary: Boundary | None = None,
) -> AsyncIterator[BrowserSession]:
    """A session that primitives in this task will use; launches a browser if none is given.
    ``save_profile``: the configured profile keeps the cookies and storage it ends with;
    ``boundary``: the sites it may open when no allow-list is set (see BrowserSession)."""
    if browser is None:
        async with (
            launched_browser(settings) as own,
            browser_session(settings, own, save_profile=save_profile, boundary=boundary) as made,
        ):
            yield made
        return
    created = await BrowserSession.create(browser, settings, boundary)
    token = _current.set(created)
    try:
        yield created
        if save_profile:
            await keep_profile(settings, created.context)
    finally:
        _current.reset(token)
        await created.close()
