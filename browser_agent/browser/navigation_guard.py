"""Keeping every tab and frame of a session on the allowed sites (the allow-list, or else
the run's boundary): each navigation, each redirect hop, each new tab and each frame is
checked before it is requested, and a refused one is told to the planner through the
session's notes. Subresources (images, scripts, styles) are not navigations: they load."""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urljoin, urlparse

from playwright.async_api import BrowserContext, Page, Route
from playwright.async_api import Error as PlaywrightError

from browser_agent.sites.allow_list import ANY_SITE
from browser_agent.sites.policy import EMPTY_PAGE, WEB_SCHEMES, refusal

if TYPE_CHECKING:
    from browser_agent.settings import Settings
    from browser_agent.sites.boundary import Boundary

MAX_REDIRECTS = 20


class Guarded(Protocol):
    """What the guard needs of a session: its settings, boundary and context, the current
    page (moved back when a refused tab closes) and the notes told to the planner."""

    settings: Settings
    boundary: Boundary | None
    context: BrowserContext
    page: Page
    notes: list[str]
    refused: str


async def navigation_refusal(active: Guarded, url: str, *, may_ask: bool = True) -> str | None:
    """Why the session may not open ``url`` (the scheme, the allow-list, the boundary,
    asking the person about another site when ``may_ask``); None when it may."""
    why = refusal(url, active.settings)
    if why is None and active.boundary is not None:
        why = await active.boundary.admit(url, may_ask=may_ask)
    return why


async def guard_navigations(active: Guarded) -> None:
    """Refuse navigations off the allowed sites in every page and frame of the session's
    context; a new tab whose first page is refused is closed again. A frame's navigation
    off them is refused without asking the person.

    Not installed when every site is allowed (``*``): routing every request costs a round
    trip and turns off the HTTP cache. Then ``open_url`` refuses other schemes and
    Chromium keeps web pages from opening ``file:`` and ``chrome:`` URLs.
    """
    if ANY_SITE in active.settings.allowed_domains or (
        not active.settings.allowed_domains and active.boundary is None
    ):
        return
    openers: list[Page] = []  # the current page when a new tab's first page was refused
    closing: set[asyncio.Task[None]] = set()

    async def on_route(route: Route) -> None:
        """Check one request; one whose page, frame or browser went away meanwhile (a page
        that refreshes itself, a run that ends) is let go quietly, refused if unchecked."""
        try:
            await check(route)
        except PlaywrightError:
            with suppress(PlaywrightError):
                await route.abort("blockedbyclient")

    async def check(route: Route) -> None:
        request = route.request
        if not request.is_navigation_request():
            await route.fallback()
            return
        why = await navigation_refusal(active, request.url, may_ask=not _in_frame(route))
        if why is None:
            if urlparse(request.url).scheme in WEB_SCHEMES:
                why = await _follow_redirects(route, active)
            else:
                await route.fallback()
        if why is None:
            return
        active.notes.append(why)
        if not _in_frame(route) and not _opens_tab(route):  # the tab stays where it was
            active.refused = why
        if _opens_tab(route):
            openers.append(active.page)
            await route.abort("blockedbyclient")
        else:  # "no content": the tab or frame stays as it was
            await route.fulfill(status=204)

    def on_page(page: Page) -> None:
        """Close a tab whose first page was refused, and go back to the page before it (at
        once, so no action lands on the closing tab)."""
        if not openers or not (
            page.url in ("", EMPTY_PAGE) or page.url.startswith("chrome-error:")
        ):
            return
        opener = openers.pop(0)
        if active.page is page and not opener.is_closed():
            active.page = opener
        active.notes.append(f"The new tab was closed; the current page is {active.page.url}.")
        task = asyncio.ensure_future(_close(page))
        closing.add(task)
        task.add_done_callback(closing.discard)

    await active.context.route("**/*", on_route)
    active.context.on("page", on_page)


async def _close(page: Page) -> None:
    with suppress(PlaywrightError):
        await page.close()


def _opens_tab(route: Route) -> bool:
    """The request is the first navigation of a new tab (it has no frame yet)."""
    try:
        route.request.frame  # noqa: B018 - raises for a tab's first navigation
    except PlaywrightError:
        return True
    return False


def _in_frame(route: Route) -> bool:
    """The request navigates a frame inside a page (not a tab)."""
    return not _opens_tab(route) and route.request.frame.parent_frame is not None


async def _follow_redirects(route: Route, active: Guarded) -> str | None:
    """Check each redirect hop of the navigation before it is requested. Every hop allowed:
    the navigation gets its own first response and the browser follows the hops (so a
    hop that redirects again is requested twice), and None is returned. Else the reason.

    Playwright does not route the requests of a redirect; this is how a 302 to an
    off-list site is stopped.
    """
    try:
        first = await route.fetch(max_redirects=0)
    except PlaywrightError:
        await route.fallback()  # unreachable: the browser says why itself
        return None
    response, url, why = first, route.request.url, None
    for _ in range(MAX_REDIRECTS):
        location = response.headers.get("location")
        if not 300 <= response.status < 400 or not location:
            break
        url = urljoin(url, location)
        why = await navigation_refusal(active, url, may_ask=not _in_frame(route))
        if why is not None:
            break
        if response is not first:
            await response.dispose()
        try:
            response = await active.context.request.get(url, max_redirects=0)
        except PlaywrightError:
            break
    if response is not first:
        await response.dispose()
    if why is None:
        try:
            await route.fulfill(response=first)
        except PlaywrightError:  # the request or its response went away meanwhile
            with suppress(PlaywrightError):
                await route.fallback()  # every hop was checked: the browser may do it
    with suppress(PlaywrightError):
        await first.dispose()
    return why
