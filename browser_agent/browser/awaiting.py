"""Waiting for a step's effect, as Playwright's web-first assertions wait: the check is
repeated until it holds or a deadline passes. The deadline follows the site's pace: the
``effect_timeout_ms`` setting, or longer when the site's recorded steps (``paced``) or
this step's own action took long (a slow site, a busy machine)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request

from browser_agent.dom.library import run_on_page
from browser_agent.settings import Settings

PACE_FACTOR = 3.0  # a deadline is this many times the slowest recorded or current step
POLL_S = 0.05

T = TypeVar("T")


@dataclass
class Pace:
    """The site's pace for the steps of one skill call, and the steps that were late."""

    seconds: float = 0.0  # its slowest recorded step
    late: list[int] = field(default_factory=list)


_pace: ContextVar[Pace | None] = ContextVar("browser_agent_pace", default=None)


@contextmanager
def paced(seconds: float) -> Iterator[Pace]:
    """Steps run inside the block wait for their effects as a site whose slowest recorded
    step took ``seconds`` needs; the Pace yielded lists the steps that came late."""
    pace = Pace(max(0.0, seconds))
    token = _pace.set(pace)
    try:
        yield pace
    finally:
        _pace.reset(token)


def note_late(step: int) -> None:
    """A step's effect came, but only after its deadline."""
    pace = _pace.get()
    if pace is not None:
        pace.late.append(step)


def deadline_s(settings: Settings, took_s: float = 0.0) -> float:
    """How long a step waits for its effect: the setting, or the site's pace (its slowest
    recorded step, or this step's own action ``took_s``) times PACE_FACTOR if longer."""
    pace = _pace.get()
    recorded = pace.seconds if pace is not None else 0.0
    return max(settings.effect_timeout_ms / 1000, PACE_FACTOR * max(recorded, took_s))


async def until(check: Callable[[], Awaitable[tuple[bool, T]]], seconds: float) -> tuple[bool, T]:
    """Run ``check`` until it says the effect holds or ``seconds`` pass: whether it held,
    and what was seen last (for saying what was seen instead)."""
    end = time.monotonic() + seconds
    while True:
        held, seen = await check()
        if held or time.monotonic() >= end:
            return held, seen
        await asyncio.sleep(POLL_S)


async def left(page: Page, before: str, seconds: float) -> tuple[bool, bool]:
    """Wait up to ``seconds`` for the page to leave ``before`` (its address changes, or
    its main frame loads a document again) and load: (it left, a navigation was asked for
    by then: on its way, only late)."""
    moved = asyncio.Event()
    asked: list[str] = []

    def on_navigated(frame: Frame) -> None:
        if frame == page.main_frame:
            moved.set()

    def on_request(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            asked.append(request.url)

    page.on("framenavigated", on_navigated)
    page.on("request", on_request)
    try:

        async def check() -> tuple[bool, None]:
            return moved.is_set() or page.url != before, None

        gone, _ = await until(check, seconds)
    finally:
        page.remove_listener("framenavigated", on_navigated)
        page.remove_listener("request", on_request)
    if gone:
        with suppress(PlaywrightError):
            await page.wait_for_load_state("load", timeout=seconds * 1000)
    return gone, bool(asked)


async def new_elements(page: Page, seconds: float) -> bool:
    """Whether visible elements appear on the page within ``seconds``."""

    async def check() -> tuple[bool, None]:
        try:
            report = await run_on_page(page, "changes")
            await run_on_page(page, "watch")
        except PlaywrightError:
            return False, None
        return bool(report and report["visibleAdded"]), None

    with suppress(PlaywrightError):
        await run_on_page(page, "watch")
    appeared, _ = await until(check, seconds)
    with suppress(PlaywrightError):
        await run_on_page(page, "changes")  # stop watching
    return appeared
