"""Noticing what an action changed: navigation, elements that appeared, dialogs, new tabs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from urllib.parse import urldefrag

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request

from browser_agent.browser.session import BrowserSession
from browser_agent.dom.library import run_on_page

SETTLE_MS = 100
# How long an action's own fetches (XHR, fetch) are waited for before the page is read: an
# application's page that loads its content by script is read once it came.
FETCH_WAIT_MS = 3_000
# How long a page whose address a script changed is given to start the fetch of its content.
FETCH_START_MS = 250
# Said of an action during which the page sent a request that may change the site (a form
# posted, a fetch that saves): such a run's end is not reached by opening its address.
SENT_DATA = "The page sent data to the site."
READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})
# Said when the page asked for a new one that had not come by the navigation timeout.
ASKED_NOT_COME = "A new page was asked for but had not come yet."


@dataclass
class Changes:
    """What an action did to the page, filled in when the ``watching`` block ends."""

    navigated_to: str | None = None
    frame_loaded: str | None = None
    appeared: int = 0
    removed: int = 0
    examples: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    sent: bool = False  # a request other than GET, HEAD or OPTIONS went out (see SENT_DATA)

    @property
    def page_changed(self) -> bool:
        return self.navigated_to is not None or self.frame_loaded is not None or self.appeared > 0

    def summary(self) -> str:
        """Plain sentences about the changes, or an empty string when nothing changed."""
        parts: list[str] = []
        if self.navigated_to:
            parts.append(f"Page navigated to {self.navigated_to}.")
        elif self.appeared:
            examples = f": {', '.join(self.examples)}" if self.examples else ""
            noun = "element" if self.appeared == 1 else "elements"
            parts.append(f"{self.appeared} new {noun} appeared{examples}.")
        if self.frame_loaded:
            parts.append(f"A frame of the page reloaded ({self.frame_loaded}).")
        if self.removed and not self.navigated_to:
            noun = "element was" if self.removed == 1 else "elements were"
            parts.append(f"{self.removed} {noun} removed.")
        parts.extend(self.messages)
        if self.sent:
            parts.append(SENT_DATA)
        return " ".join(parts)


@asynccontextmanager
async def watching(active: BrowserSession) -> AsyncIterator[Changes]:
    """Watch the page during the block; afterwards wait for it to settle and fill Changes."""
    page = active.current_page()
    before = page.url
    changes = Changes()
    navigations: list[str] = []
    frames: list[str] = []

    requested: list[str] = []
    framed: list[Frame] = []  # frames of the page asked to load another document
    leaving = asyncio.Event()  # the page asked for, or made, a navigation
    fetching: set[Request] = set()  # the page's own fetches (XHR, fetch) not yet answered

    def on_navigated(frame: Frame) -> None:
        if frame == page.main_frame:
            navigations.append(frame.url)
            leaving.set()
        elif frame.url not in ("", "about:blank"):
            frames.append(frame.url)

    def on_request(request: Request) -> None:
        if request.method.upper() not in READ_ONLY:
            changes.sent = True
        if request.resource_type in ("xhr", "fetch") and request.frame == page.main_frame:
            fetching.add(request)
        if not request.is_navigation_request():
            return
        if request.frame == page.main_frame:
            requested.append(request.url)
            leaving.set()
        else:
            framed.append(request.frame)

    def on_answered(request: Request) -> None:
        fetching.discard(request)

    dialogs_before = len(active.dialogs)
    notes_before = len(active.notes)
    with suppress(PlaywrightError):  # mid-navigation: the navigation itself is reported
        await run_on_page(page, "watch")
    page.on("framenavigated", on_navigated)
    page.on("request", on_request)
    page.on("requestfinished", on_answered)
    page.on("requestfailed", on_answered)
    try:
        yield changes
        if not navigations:  # other changes need a moment, unless the page is leaving
            with suppress(TimeoutError):
                await asyncio.wait_for(leaving.wait(), SETTLE_MS / 1000)
        told = len(active.notes) > notes_before  # a navigation refused, a new tab: said below
        if requested and not navigations and not told:  # a script started one
            try:
                await page.wait_for_event(
                    "framenavigated",
                    predicate=lambda frame: frame == page.main_frame,
                    timeout=active.settings.navigation_timeout_ms,
                )
            except PlaywrightError:
                changes.messages.append(ASKED_NOT_COME)
        elif framed and not frames and not navigations:  # a frame's form sent, slow to answer
            with suppress(PlaywrightError):
                await page.wait_for_event(
                    "framenavigated",
                    predicate=lambda frame: frame in framed,
                    timeout=active.settings.navigation_timeout_ms,
                )
        # an address changed by script (no document asked for, not only its #part): its
        # content comes by fetch
        rerouted = bool(navigations) and urldefrag(navigations[-1])[0] != urldefrag(before)[0]
        await _answered(fetching, starting=rerouted and not requested)
    finally:
        page.remove_listener("framenavigated", on_navigated)
        page.remove_listener("request", on_request)
        page.remove_listener("requestfinished", on_answered)
        page.remove_listener("requestfailed", on_answered)
    await _read_after(active, page, changes, moved=bool(navigations))
    if frames and not changes.navigated_to:
        changes.frame_loaded = frames[-1]
    changes.messages.extend(active.dialogs[dialogs_before:])
    changes.messages.extend(active.notes[notes_before:])


async def _read_after(active: BrowserSession, page: Page, changes: Changes, moved: bool) -> None:
    """Where the action left the browser: the new page loaded (a navigation, a new tab),
    else what appeared on and went from the page it acted on."""
    current = active.current_page()
    if moved or current is not page:
        active.observed.clear()
        try:
            await current.wait_for_load_state("load", timeout=active.settings.navigation_timeout_ms)
            changes.navigated_to = current.url
        except PlaywrightError:
            changes.navigated_to = current.url
            changes.messages.append("The new page had not finished loading.")
    else:
        report = await _changes(page)
        if report:
            changes.appeared = report["visibleAdded"]
            changes.removed = report["removed"]
            changes.examples = report["examples"]
    if changes.page_changed:
        active.page_version += 1


async def _answered(fetching: set[Request], starting: bool = False) -> None:
    """Wait, up to FETCH_WAIT_MS, for the fetches the action started to be answered, and a
    moment for the page's script to show their answer: an application that changes its
    address first and its content when the fetch returns is read once it has. With
    ``starting``, a fetch not yet reported is given FETCH_START_MS to be (the browser's
    events come late on a busy machine)."""
    clock = asyncio.get_running_loop()
    if starting and not fetching:
        reported = clock.time() + FETCH_START_MS / 1000
        while not fetching and clock.time() < reported:
            await asyncio.sleep(0.02)
    if not fetching:
        return
    deadline = clock.time() + FETCH_WAIT_MS / 1000
    while fetching and clock.time() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(SETTLE_MS / 1000)


async def _changes(page: Page) -> dict | None:
    try:
        return await run_on_page(page, "changes")
    except PlaywrightError:
        return None
