"""Checking watches: each check is a run of the watch's command (routed to its skill when
one matches, so a check makes no model call), then the values of its final page, what
changed since the check before (its values, and its text as a short diff), the condition,
and the notify hook.

One watch's failure (its site down, a skill broken, an exception) is kept as that watch's
check and told to its hook; the other watches are checked as usual."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from browser_agent.store.rows import WatchCheckRow, WatchRow
from browser_agent.store.watches import ACTIVE, add_check, checks_of, claim, due_watches
from browser_agent.watch.conditions import Condition, parse_condition
from browser_agent.watch.notify import notify
from browser_agent.watch.page_diff import KEPT, said_diff
from browser_agent.watch.page_values import MAX_TEXT, read_values
from browser_agent.watch.schedule import next_due, said_next

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page
    from sqlalchemy import Engine

    from browser_agent.llm.types import LLMClient
    from browser_agent.settings import Settings

logger = logging.getLogger("browser_agent.watch")
FAILED = ("failed", "error", "interrupted", "abandoned")
READ_PAGE = "() => document.body ? document.body.innerText : ''"


@dataclass
class Checked:
    """A check done: its watch, its row, and the events it told (or would tell) the hook."""

    watch: WatchRow
    check: WatchCheckRow
    events: list[str] = field(default_factory=list)
    ended: bool = False

    @property
    def failed(self) -> bool:
        return self.check.status in FAILED

    def said(self) -> str:
        """One line for people: the watch, the outcome, what changed, the condition."""
        check = self.check
        parts = [f"{self.watch.name}: {check.status}"]
        values = json.loads(check.extracted or "{}")
        if values:
            parts.append(", ".join(f"{k} {_shown(v)}" for k, v in values.items()))
        parts.append(f"{check.llm_calls} model calls")
        if check.changed:
            parts.append(f"changed: {check.changed}")
        if check.held:
            parts.append(f"condition holds ({self.watch.until})")
        if check.error:
            parts.append(check.error)
        if check.notified:
            parts.append(f"notify {check.notified}")
        if self.ended:
            parts.append("watch done")
        else:
            parts.append(said_next(self.watch, now_utc()))
        return "; ".join(parts)


def now_utc() -> datetime:
    return datetime.now(UTC)


async def run_due(
    settings: Settings,
    engine: Engine,
    *,
    now: datetime | None = None,
    browser: Browser | None = None,
    llm: LLMClient | None = None,
    on_check: Callable[[Checked], None] | None = None,
) -> list[Checked]:
    """Check every active watch due at ``now`` once (a browser is launched only when one is
    due); each is claimed first, so two runners never check it twice."""
    from browser_agent.store.connection import Store

    store = Store.of(engine)
    moment = now or now_utc()
    due = due_watches(store, moment)
    if not due:
        return []
    done: list[Checked] = []
    async with _browser(settings, browser) as active:
        for watch in due:
            if not claim(store, watch, next_due(watch, moment)):
                continue  # another runner has it
            checked = await check_watch(watch, settings, engine, active, llm, moment)
            done.append(checked)
            if on_check is not None:
                on_check(checked)
    return done


@asynccontextmanager
async def _browser(settings: Settings, browser: Browser | None) -> AsyncIterator[Browser]:
    if browser is not None:
        yield browser
        return
    from browser_agent.browser.session import launched_browser

    async with launched_browser(settings) as launched:
        yield launched


async def check_watch(
    watch: WatchRow,
    settings: Settings,
    engine: Engine,
    browser: Browser,
    llm: LLMClient | None,
    at: datetime,
) -> Checked:
    """Run one check of ``watch`` and keep it; never raises for the watch's own failure."""
    from browser_agent.store.connection import Store

    store = Store.of(engine)
    previous = next(iter(checks_of(store, watch, 1)), None)
    condition = parse_condition(watch.until) if watch.until else None
    page: list[str] = []
    check = WatchCheckRow(watch_id=watch.id or 0, status="error", at=at)
    started = time.perf_counter()
    try:
        result = await _run(watch, settings, engine, browser, llm, page)
        check.run_id, check.status, check.answer = result.run_id, result.status, result.answer
        check.final_url, check.llm_calls = result.final_url, result.llm_calls
        if result.status in FAILED:
            check.error = result.answer[:400]
    except Exception as exc:  # kept as this watch's failure; the next watch is checked
        logger.warning("watch %s: the check failed: %s", watch.name, exc)
        check.error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}"
    check.seconds = round(time.perf_counter() - started, 2)
    text = page[0] if page else ""
    values = read_values(text, condition.names() if condition else []) if text else {}
    check.extracted = json.dumps(values)
    check.page = text[:KEPT]
    changes = _changes(previous, check, values)
    check.changed = "; ".join(_said_change(k, a, b) for k, (a, b) in changes.items()) or None
    check.held = bool(
        condition
        and check.status not in FAILED
        and condition.holds(values, check.answer, text, changes)
    )
    events = _events(watch, previous, check, condition)
    if watch.notify and events:
        told = [notify(watch.notify, event_of(name, watch, check)) for name in events]
        failed = [said for said in told if said != "sent"]
        check.notified = failed[0] if failed else "sent"
    ended = check.held and not watch.keep_going
    check.id = add_check(store, check, ended)
    return Checked(watch, check, events, ended)


async def _run(
    watch: WatchRow,
    settings: Settings,
    engine: Engine,
    browser: Browser,
    llm: LLMClient | None,
    page: list[str],
) -> Any:
    """The check's run, through the one run path (router first, planner if no skill)."""
    from browser_agent.llm.choose import make_llm
    from browser_agent.planner.agent import run_command

    async def read(final: Page) -> None:
        try:
            page.append(str(await final.evaluate(READ_PAGE))[:MAX_TEXT])
        except Exception as exc:  # a page gone meanwhile: the check has no values
            logger.info("watch %s: the final page could not be read: %s", watch.name, exc)

    return await run_command(
        watch.command,
        llm or make_llm(settings, None),
        settings,
        start_url=watch.start_url,
        browser=browser,
        engine=engine,
        read_page=read,
    )


def _changes(
    previous: WatchCheckRow | None, check: WatchCheckRow, values: dict[str, float]
) -> dict[str, tuple[object, object]]:
    """What differs from the check before: the status, the final page, each value, and the
    answer when neither check asked a model (a model words the same answer differently)."""
    if previous is None:
        return {}
    before = json.loads(previous.extracted or "{}")
    found: dict[str, tuple[object, object]] = {}
    for name in dict.fromkeys([*before, *values]):
        if before.get(name) != values.get(name):
            found[name] = (before.get(name), values.get(name))
    if previous.status != check.status:
        found["status"] = (previous.status, check.status)
    if previous.final_url != check.final_url and check.status not in FAILED:
        found["final page"] = (previous.final_url, check.final_url)
    diff = said_diff(previous.page, check.page) if previous.page and check.page else ""
    if diff and check.status not in FAILED:
        found["page"] = ("", diff)
    no_model = previous.llm_calls == 0 and check.llm_calls == 0
    if no_model and previous.answer != check.answer and check.status not in FAILED:
        found["answer"] = (previous.answer, check.answer)
    return found


def _said_change(name: str, before: object, after: object) -> str:
    if name == "answer":
        return "the answer changed"
    if name == "page":
        return f"the page: {after}"
    return f"{name} {_shown(before)} -> {_shown(after)}"


def _shown(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _events(
    watch: WatchRow,
    previous: WatchCheckRow | None,
    check: WatchCheckRow,
    condition: Condition | None,
) -> list[str]:
    """The events of this check, each told once: a failure (the first of a run of them),
    a change, the condition coming to hold."""
    events = []
    if check.status in FAILED and (previous is None or previous.status not in FAILED):
        events.append("failed")
    if check.changed and check.status not in FAILED:
        events.append("changed")
    if condition and check.held and (previous is None or not previous.held or not watch.keep_going):
        events.append("condition")
    return events


def event_of(name: str, watch: WatchRow, check: WatchCheckRow) -> dict[str, Any]:
    """The event as the hook gets it (JSON): what happened, to which watch, and the check."""
    messages = {
        "failed": f"watch {watch.name}: the check failed: {check.error or check.status}",
        "changed": f"watch {watch.name}: {check.changed}",
        "condition": f"watch {watch.name}: {watch.until}",
    }
    return {
        "event": name,
        "message": messages.get(name, name),
        "watch": watch.name,
        "watch_id": watch.id,
        "command": watch.command,
        "condition": watch.until,
        "at": check.at.isoformat(),
        "status": check.status,
        "answer": check.answer,
        "values": json.loads(check.extracted or "{}"),
        "changed": check.changed,
        "held": check.held,
        "final_url": check.final_url,
        "run_id": check.run_id,
        "llm_calls": check.llm_calls,
        "error": check.error,
        "active": watch.status == ACTIVE,
    }


async def follow(
    settings: Settings,
    watch: WatchRow,
    llm: LLMClient,
    on_check: Callable[[Checked], None],
    sleep: Callable[[float], Any] | None = None,
) -> None:
    """Check ``watch`` here each time it is due, on one browser, until it is done, paused
    or removed (by this process or another: the store says)."""
    import asyncio

    from browser_agent.browser.session import launched_browser
    from browser_agent.store.connection import Store
    from browser_agent.store.db import open_store
    from browser_agent.store.watches import watch_by_id

    engine = open_store(settings)
    store = Store.of(engine)
    wait = sleep or asyncio.sleep
    async with launched_browser(settings) as browser:
        while (current := watch_by_id(store, watch.id or 0)) is not None:
            if current.status != ACTIVE:
                return
            ahead = (current.next_at - now_utc()).total_seconds()
            if ahead > 0:
                await wait(ahead)
                continue
            if claim(store, current, next_due(current, now_utc())):
                on_check(await check_watch(current, settings, engine, browser, llm, now_utc()))
