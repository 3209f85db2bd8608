"""Recording what a person does in a page or a whole browser context.

``record_session(page)`` (one tab and its frames) or ``record_session(context)`` (every
tab, new ones too) puts the recorder script in every frame and collects its reports as
primitive calls (see ``actions``). Navigations are told apart by who started them: one
the page started (a link, a form, a script) is what the last action did; one the browser
started (an address typed, ``page.goto``, back) is an ``open_url`` of its own. A new tab
is what the action that opened it did, and later actions happen there.
"""

from __future__ import annotations

import asyncio
import json
import secrets as random_tokens
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from hmac import compare_digest
from importlib import resources
from typing import Any

from playwright.async_api import BrowserContext, CDPSession, Frame, Page, Request
from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.effects import READ_ONLY
from browser_agent.dom.library import page_library
from browser_agent.record.actions import Action, action_for

BINDING = "__browserAgentRecord"
#: Cap on the observation kept with each action (the planner's default get_dom budget).
BUDGET_CHARS = 60_000


@cache
def _recorder_source() -> str:
    return resources.files("browser_agent.record").joinpath("recorder.js").read_text("utf-8")


def recorder_script(token: str, budget: int = BUDGET_CHARS) -> str:
    """The in-page recorder with the page library inside it, signing its reports with
    ``token``."""
    return (
        _recorder_source()
        .replace("__LIBRARY__", page_library())
        .replace("__BUDGET__", str(int(budget)))
        .replace("__TOKEN__", token)
    )


def _dialog_note(event: Mapping[str, Any]) -> str:
    """A dialog as the planner's answer reports it (the harvester reads the choice back)."""
    kind, message = str(event.get("type")), str(event.get("message") or "")
    article = "An" if kind[:1] in "aeiou" else "A"
    said = f"{article} {kind} dialog said {message!r}"
    if kind == "alert":
        return f"{said}; it was accepted (an alert only informs)."
    if event.get("accepted"):
        return f"{said}; it was accepted, as the person did."
    return f"{said}; it was dismissed (Cancel), as the person did."


@dataclass
class Recording:
    """The actions recorded so far, in order; passwords typed are kept in memory only,
    by value, to be masked and named (``secrets``: configured secrets by name).
    ``on_action`` hears of each action as it is recorded."""

    secrets: dict[str, str] = field(default_factory=dict)
    on_action: Callable[[Action], None] | None = None
    token: str = field(default_factory=lambda: random_tokens.token_hex(16))
    actions: list[Action] = field(default_factory=list)
    passwords: dict[str, str] = field(default_factory=dict)  # value -> secret name
    recording: bool = True
    _tasks: list[asyncio.Future[None]] = field(default_factory=list)
    _last_url: dict[int, str] = field(default_factory=dict)  # page -> last URL seen
    # tabs not yet loaded -> how many actions there were when each opened: the action that
    # opened one may be reported just before or just after the tab itself
    _fresh_tabs: dict[int, int] = field(default_factory=dict)
    _watched: list[tuple[Page, CDPSession]] = field(default_factory=list)  # and their sessions

    @property
    def start_url(self) -> str | None:
        first = next((a for a in self.actions if a.tool == "open_url"), None)
        return first.arguments["url"] if first else None

    @property
    def final_url(self) -> str | None:
        for action in reversed(self.actions):
            if action.navigated_to or action.tool == "open_url":
                return action.navigated_to or action.arguments["url"]
        return self.actions[-1].url if self.actions else None

    def add(self, action: Action) -> None:
        self.actions.append(action)
        if self.on_action is not None:
            self.on_action(action)

    def secret_name(self, value: str) -> str:
        """The placeholder name a typed password stands for: the configured secret with
        this value, else PASSWORD (PASSWORD_2 for a second, different one)."""
        if value in self.passwords:
            return self.passwords[value]
        known = next((name for name, v in self.secrets.items() if v == value), None)
        name, number = known or "PASSWORD", 1
        while known is None and name in self.passwords.values():
            number += 1
            name = f"PASSWORD_{number}"
        self.passwords[value] = name
        return name

    def on_event(self, payload: str) -> None:
        """One report of the recorder script (plain function: it is recorded at once,
        before the navigation it may start is seen)."""
        if not self.recording:
            return
        try:
            event = json.loads(payload)
        except (TypeError, ValueError):
            return  # a page can call the binding too: what is not a report is ignored
        if not isinstance(event, dict) or not compare_digest(str(event.get("token")), self.token):
            return  # not the recorder's: a page script calling the binding
        if event.get("kind") == "dialog":
            if self.actions:
                self.actions[-1].notes.append(_dialog_note(event))
            return
        name = None
        if event.get("kind") == "type" and event.get("password"):
            name = self.secret_name(str(event.get("text") or ""))
            event["text"] = ""  # the value goes no further
        try:
            action = action_for(event, name)
        except (KeyError, TypeError, ValueError):
            return
        if action is not None:
            self.add(action)

    def on_navigated(self, page: Page, url: str, by_page: bool) -> None:
        """A main-frame navigation: what the last action did, when the page started it or it
        is a new tab's first page; else the person opened ``url`` themselves."""
        if not self.recording or url in ("", "about:blank"):
            return
        if not by_page and self._last_url.get(id(page)) == url:
            return  # the same page seen twice (a new tab's first load), or reloaded
        self._last_url[id(page)] = url
        opened = self._fresh_tabs.get(id(page))  # the action before it opened, or that one
        fresh = opened is not None and len(self.actions) - opened <= 1
        if (by_page or fresh) and self.actions:
            self.actions[-1].navigated_to = url
            if fresh:
                self._fresh_tabs.pop(id(page), None)
                self.actions[-1].notes.append("A new tab opened and is now the current page.")
            return
        if not by_page:
            self.add(Action("open_url", {"url": url}, f"Page loaded: {url}.", url))

    def on_sent(self) -> None:
        """The page sent data to the site (a form posted, a fetch that saves): the last
        action did, as far as anyone can tell."""
        if self.recording and self.actions:
            self.actions[-1].sent = True

    async def attach(self, page: Page, *, new_tab: bool = False) -> None:
        """Record in ``page``: its frames now and later, and who starts its navigations."""
        if new_tab:
            self._fresh_tabs[id(page)] = len(self.actions)
        cdp = await page.context.new_cdp_session(page)
        self._watched.append((page, cdp))
        tree = await cdp.send("Page.getFrameTree")
        main = tree["frameTree"]["frame"]["id"]
        started: set[str] = set()  # main-frame navigations the page itself requested
        # Reports of the page reach Python as tasks: a navigation is taken after the report
        # of the action that started it, which arrived first.
        later = asyncio.get_running_loop().call_soon

        def requested(params: dict[str, Any]) -> None:
            started.add(params.get("frameId", ""))

        def navigated(params: dict[str, Any]) -> None:
            frame = params.get("frame") or {}
            if frame.get("id") == main:
                later(self.on_navigated, page, str(frame.get("url", "")), main in started)
                started.discard(main)

        def within(params: dict[str, Any]) -> None:
            if params.get("frameId") == main:
                later(self.on_navigated, page, str(params.get("url", "")), True)

        def sent(request: Request) -> None:
            if request.method.upper() not in READ_ONLY:
                later(self.on_sent)

        page.on("request", sent)
        cdp.on("Page.frameRequestedNavigation", requested)
        cdp.on("Page.frameNavigated", navigated)
        cdp.on("Page.navigatedWithinDocument", within)
        await cdp.send("Page.enable")
        if id(page) in self._fresh_tabs and page.url not in ("", "about:blank"):
            self.on_navigated(page, page.url, True)  # it loaded before it could be watched
        for frame in page.frames:  # pages already loaded get the script now
            await _install(frame, recorder_script(self.token))

    async def name_asked(self) -> None:
        """Each address the person opened as they asked for it, not as the site redirected
        it (the site's front page, not the page it forwards to): the same address then
        starts the skill, and a run given it is routed to the skill."""
        asked: dict[str, str] = {}
        for page, cdp in self._watched:
            if page.is_closed():
                continue
            with suppress(PlaywrightError):
                history = await cdp.send("Page.getNavigationHistory")
                for entry in history.get("entries", []):
                    typed, landed = entry.get("userTypedURL"), entry.get("url")
                    if entry.get("transitionType") == "typed" and typed and typed != landed:
                        asked.setdefault(str(landed), str(typed))
        for action in self.actions:
            if action.tool == "open_url" and action.arguments.get("url") in asked:
                action.arguments["url"] = asked[action.arguments["url"]]

    async def detach(self) -> None:
        """Stop recording: later reports and navigations are ignored."""
        self.recording = False
        for task in self._tasks:
            task.cancel()
        for _page, cdp in self._watched:
            with suppress(PlaywrightError):
                await cdp.detach()


async def _install(frame: Frame, script: str) -> None:
    with suppress(PlaywrightError):  # a frame going away needs no recorder
        await frame.evaluate(script)


async def _flush(page: Page) -> None:
    """Report the text of a field still being typed into (the recording ends now)."""
    for frame in [] if page.is_closed() else page.frames:
        with suppress(PlaywrightError):
            await frame.evaluate("() => window.__browserAgentFlush?.()")


@asynccontextmanager
async def record_session(
    target: Page | BrowserContext,
    secrets: Mapping[str, str] | None = None,
    on_action: Callable[[Action], None] | None = None,
) -> AsyncIterator[Recording]:
    """Record what is done in ``target`` (a page: that tab and its frames; a context: every
    tab, new ones too) until the block ends; the Recording holds the actions.
    ``secrets``: configured secrets by name, so a password typed that is one of them is
    recorded as its placeholder; ``on_action`` hears of each action as it is recorded."""
    recording = Recording(secrets=dict(secrets or {}), on_action=on_action)
    pages = [target] if isinstance(target, Page) else list(target.pages)

    async def call(_source: dict[str, Any], payload: str) -> None:
        recording.on_event(payload)

    await target.expose_binding(BINDING, call)
    await target.add_init_script(recorder_script(recording.token))

    def adopt(page: Page) -> None:
        pages.append(page)
        recording._tasks.append(asyncio.ensure_future(recording.attach(page, new_tab=True)))

    for page in pages:
        if page.url not in ("", "about:blank"):  # recorded from where the page is
            url = page.url
            recording._last_url[id(page)] = url
            recording.add(Action("open_url", {"url": url}, f"Page loaded: {url}.", url))
        await recording.attach(page)
    if isinstance(target, BrowserContext):
        target.on("page", adopt)
    try:
        yield recording
    finally:
        for page in pages:
            await _flush(page)
        await asyncio.sleep(0)  # navigations already seen are taken before it stops
        if isinstance(target, BrowserContext):
            target.remove_listener("page", adopt)
        await recording.name_asked()
        await recording.detach()
