"""A new watch from what the person typed: every part checked first (the period or clock,
the condition, the hook, the start page), each mistake one line, a watch that repeats one
there already refused, and secrets kept out."""

from __future__ import annotations

import re

from browser_agent.errors import UserError
from browser_agent.secrets import configured, masked_command
from browser_agent.settings import Settings
from browser_agent.sites.policy import openable
from browser_agent.sites.ports import checked_port
from browser_agent.store.connection import Store
from browser_agent.store.rows import WatchRow
from browser_agent.store.watches import WatchExists, add_watch, all_watches
from browser_agent.watch.conditions import parse_condition
from browser_agent.watch.durations import parse_duration
from browser_agent.watch.notify import checked_target
from browser_agent.watch.runner import now_utc
from browser_agent.watch.schedule import clock_schedule, next_due


def new_watch(
    store: Store,
    settings: Settings,
    command: str,
    every: str | None,
    url: str | None,
    until: str | None,
    notify: str | None,
    name: str | None = None,
    keep_going: bool = False,
    at: str | None = None,
    cron: str | None = None,
) -> tuple[WatchRow, list[str]]:
    """Store a watch, due now (or at its clock's next time); it, and the names of the
    secrets its command gave (kept out of the store as ``{NAME}``, to be set for the checks).
    ``every`` None: an hour, unless ``at`` or ``cron`` set a clock."""
    if not command.strip():
        raise UserError("the command is empty: say what each check should do")
    schedule = clock_schedule(at, cron)
    if schedule is not None and every is not None:
        raise UserError("--every and --at/--cron both say when: give one of them")
    seconds = parse_duration(every or "1h")
    if until is not None:
        parse_condition(until)
    target = checked_target(notify) if notify is not None else None
    start = None
    if url:
        try:
            checked_port(url)
        except ValueError as exc:
            raise UserError(f"--url {url}: {exc}") from None
        start = openable(url, settings)
    masked, given = masked_command(" ".join(command.split()), configured())
    watches = all_watches(store)
    _not_again(watches, masked, start, until)
    taken = {watch.name for watch in watches}
    if name is not None and not name.strip():
        raise UserError("--name is empty: give the watch a name, or leave --name out")
    if name is not None and name.strip().isdigit():
        raise UserError(f"--name {name!r}: a name is not only digits (those are ids)")
    chosen = name.strip() if name else _free(slug(masked), taken)
    watch = WatchRow(
        name=chosen,
        command=masked,
        every_s=seconds,
        next_at=now_utc(),
        schedule=schedule,
        start_url=start,
        until=until,
        notify=target,
        keep_going=keep_going,
    )
    if schedule is not None:
        watch.next_at = next_due(watch, watch.next_at)
    return add_watch(store, watch), sorted(given)


def _not_again(watches: list[WatchRow], command: str, start: str | None, until: str | None) -> None:
    """WatchExists (one line) when a watch checks this command from this page until this
    condition already: a second would check and tell everything twice."""
    for watch in watches:
        same_until = " ".join((watch.until or "").split()) == " ".join((until or "").split())
        if watch.command == command and watch.start_url == start and same_until:
            raise WatchExists(
                f"watch {watch.name!r} (id {watch.id}) checks this already: "
                f"browser-agent watch list shows it, watch remove {watch.name} ends it"
            )


def slug(command: str) -> str:
    """A watch name made from its command's first words: ``open-trail-blazer-2``."""
    words = re.findall(r"[a-z0-9]+", command.lower())
    return "-".join(words[:5])[:40].strip("-") or "watch"


def _free(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... when it is taken."""
    number, chosen = 1, name
    while chosen in taken:
        number += 1
        chosen = f"{name}-{number}"
    return chosen
