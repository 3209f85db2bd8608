"""A new watch from what the person typed: every part checked first (the period, the
condition, the hook, the start page), each mistake one line, and secrets kept out."""

from __future__ import annotations

import re

from browser_agent.errors import UserError
from browser_agent.ports import checked_port
from browser_agent.secrets import configured, masked_command
from browser_agent.settings import Settings
from browser_agent.site_policy import openable
from browser_agent.store.connection import Store
from browser_agent.store.rows import WatchRow
from browser_agent.store.watches import add_watch, all_watches
from browser_agent.watch.conditions import parse_condition
from browser_agent.watch.durations import parse_duration
from browser_agent.watch.notify import checked_target
from browser_agent.watch.runner import now_utc


def new_watch(
    store: Store,
    settings: Settings,
    command: str,
    every: str,
    url: str | None,
    until: str | None,
    notify: str | None,
    name: str | None = None,
    keep_going: bool = False,
) -> tuple[WatchRow, list[str]]:
    """Store a watch due now; it, and the names of the secrets its command gave (kept out
    of the store as ``{NAME}``, to be set for the checks)."""
    if not command.strip():
        raise UserError("the command is empty: say what each check should do")
    seconds = parse_duration(every)
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
    taken = {watch.name for watch in all_watches(store)}
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
        start_url=start,
        until=until,
        notify=target,
        keep_going=keep_going,
    )
    return add_watch(store, watch), sorted(given)


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
