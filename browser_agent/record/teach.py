"""A demonstration from the window to the skill, as ``browser-agent record`` and the
console's Record both do it: open a window (a headed Chromium, or a new tab of the browser
at ``BROWSER_AGENT_BROWSER_ENDPOINT``), record until it ends, then harvest the saved run.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from contextlib import AsyncExitStack, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from browser_agent.errors import BrowserAgentError
from browser_agent.harvest.outcomes import UNCHANGED

if TYPE_CHECKING:
    from playwright.async_api import Page
    from sqlalchemy import Engine

    from browser_agent.harvest.harvester import HarvestResult
    from browser_agent.record.actions import Action
    from browser_agent.record.save import SavedRecording
    from browser_agent.record.session import Recording
    from browser_agent.settings import Settings

NO_DISPLAY = (
    "Recording opens a browser window and there is no display (DISPLAY is not set): "
    "record where a window can open, or set BROWSER_AGENT_BROWSER_ENDPOINT to a browser "
    "you can see."
)


class CannotRecord(BrowserAgentError):
    """The recording could not start or go on (no window, no browser, a start page that
    does not open); the message is one line for the person."""


def has_display() -> bool:
    """Whether a window can open here (Linux needs an X or Wayland display)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _first_line(exc: BaseException) -> str:
    said = str(exc).strip()
    return said.splitlines()[0] if said else type(exc).__name__


async def record_in_window(
    settings: Settings,
    url: str | None,
    secrets: dict[str, str],
    ended: asyncio.Event,
    on_action: Callable[[Action], None] | None = None,
) -> Recording:
    """Record in a new tab (and the tabs it opens) from ``url`` until the person closes
    them, the browser goes, or ``ended`` is set; the tabs are closed then. ``on_action``
    hears of each action as it is recorded."""
    from playwright.async_api import Error as PlaywrightError

    from browser_agent.browser.session import launched_browser
    from browser_agent.errors import BrowserError
    from browser_agent.record.session import record_session

    if not settings.browser_endpoint and not has_display():
        raise CannotRecord(NO_DISPLAY)
    async with AsyncExitStack() as stack:
        try:  # a headed Chromium, or the browser at the endpoint, as every command opens it
            window = launched_browser(settings.with_overrides(headed=True))
            browser = await stack.enter_async_context(window)
        except BrowserError as exc:
            raise CannotRecord(str(exc)) from None
        context = browser.contexts[0] if browser.contexts else await browser.new_context()
        context.on("dialog", lambda _dialog: None)  # the person answers it in the window
        browser.on("disconnected", lambda _browser: ended.set())
        context.on("close", lambda _context: ended.set())
        tabs = [await context.new_page()]
        context.on("page", lambda tab: tabs.append(tab))
        try:
            async with record_session(context, secrets, on_action) as recording:
                if url:
                    try:
                        await tabs[0].goto(url)
                    except PlaywrightError as exc:
                        raise CannotRecord(f"Could not open {url}: {_first_line(exc)}") from None
                await _until_closed(tabs, ended)
        finally:
            for tab in tabs:  # a browser of the person's own keeps running, without them
                with suppress(PlaywrightError):
                    await tab.close()
        return recording


async def _until_closed(tabs: list[Page], ended: asyncio.Event) -> None:
    """Wait until the person closes the recorded tabs or the browser, or ``ended`` is set."""
    while not ended.is_set() and any(not tab.is_closed() for tab in tabs):
        with suppress(TimeoutError):
            await asyncio.wait_for(ended.wait(), timeout=0.5)


def password_notes(recording: Recording, saved: SavedRecording) -> list[str]:
    """What to set for each password typed that the command does not give (only its
    name is ever said)."""
    return [
        f"A password is kept as {{{name}}}: set BROWSER_AGENT_SECRET_{name} (or pass "
        f"--secret {name}=...) when the skill runs."
        for name in recording.passwords.values()
        if "{" + name + "}" not in saved.command
    ]


async def harvest_saved(
    saved: SavedRecording, settings: Settings, engine: Engine
) -> tuple[str | None, str]:
    """Harvest the saved run at once and verify the skill by replay: the skill's name
    (None when none came of it) and one line saying how it went."""
    from browser_agent.harvest.harvester import harvest

    (result,) = await harvest([Path(saved.log_path)], settings, engine)
    if result.skill is None:
        return None, f"Not harvested: {result.reason or result.error or 'no skill came of it'}"
    skill = result.skill
    said = [f"Skill {skill.name} v{skill.version} ({result.outcome}), {verdict(result)}."]
    if not skill.complete:
        partial = _why_partial(saved)
        said.append(f"It does only part of the command and is not used for it: {partial}.")
    said.extend(f"Left out: {dropped}." for dropped in result.dropped)
    return skill.name, " ".join(said)


def verdict(result: HarvestResult) -> str:
    """Whether the skill's replay passed, in words; never "None" for a replay not made."""
    if result.verified:
        return "verified by replay"
    if result.verified is False:
        return f"not verified: {result.verify_error or 'its replay did not reach the end state'}"
    skill = result.skill
    if result.outcome == UNCHANGED and skill is not None:
        return f"the same steps as before; the skill stays {skill.status}"
    return "not replayed yet (validate replays it)"


def _why_partial(saved: SavedRecording) -> str:
    """Where the harvested stretch stopped short of the demonstration, and why."""
    from browser_agent.harvest.harvester import plan_from
    from browser_agent.plans.plan import RUN_ENDED

    plan = plan_from(Path(saved.log_path))
    if plan.dropped:
        return "; ".join(plan.dropped)
    return plan.ended_because if plan.ended_because != RUN_ENDED else "it asks for an answer"
