"""When a watch is checked: every so long (``--every 15m``), or by the clock (``--at 09:00``,
``--cron "0 9 * * 1-5"``, read with croniter, in this machine's local time); and the next
check said as people read it (``next check 09:00, in 3h12m``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from browser_agent.errors import UserError
from browser_agent.store.rows import WatchRow
from browser_agent.watch.durations import said_duration

_CLOCK = re.compile(r"([01]?\d|2[0-3])[:.h]([0-5]\d)")


class BadSchedule(UserError):
    """A clock time or cron expression that names no time."""


def clock_schedule(at: str | None, cron: str | None) -> str | None:
    """The cron expression ``--at HH:MM`` or ``--cron EXPR`` says; None for neither;
    BadSchedule (one line) for a time or expression croniter cannot read."""
    if at is not None and cron is not None:
        raise BadSchedule("--at and --cron both say when: give one of them")
    if at is not None:
        found = _CLOCK.fullmatch(at.strip())
        if found is None:
            raise BadSchedule(f"--at {at!r} is not a time of day: write it as 09:00 or 17:30")
        return f"{int(found[2])} {int(found[1])} * * *"
    if cron is None:
        return None
    from croniter import croniter

    said = " ".join(cron.split())
    if not croniter.is_valid(said):
        raise BadSchedule(
            f"--cron {cron!r} is not a cron expression: five fields, minute hour day month "
            'weekday ("0 9 * * 1-5" is 09:00 on weekdays)'
        )
    return said


def next_due(watch: WatchRow, after: datetime) -> datetime:
    """When ``watch`` is due next after ``after`` (UTC): its period on, or its clock's next
    time."""
    if not watch.schedule:
        return after + timedelta(seconds=watch.every_s)
    from croniter import croniter

    local = croniter(watch.schedule, after.astimezone()).get_next(datetime)
    return local.astimezone(UTC)


def said_schedule(watch: WatchRow) -> str:
    """``every 15m``, ``at 09:00`` (a daily clock time) or ``cron 0 9 * * 1-5``."""
    if not watch.schedule:
        return f"every {said_duration(watch.every_s)}"
    minute, hour, *rest = watch.schedule.split()
    if rest == ["*", "*", "*"] and minute.isdigit() and hour.isdigit():
        return f"at {int(hour):02d}:{int(minute):02d}"
    return f"cron {watch.schedule}"


def said_next(watch: WatchRow, now: datetime) -> str:
    """When the next check is due, in local time: ``next check 09:00, in 3h12m`` (with the
    date when it is not today), ``due now``, or ``no next check`` for a paused or done watch."""
    if watch.status != "active":
        return "no next check"
    ahead = (watch.next_at - now).total_seconds()
    if ahead <= 0:
        return "due now"
    local = watch.next_at.astimezone()
    day = "" if local.date() == now.astimezone().date() else f"{local:%Y-%m-%d} "
    return f"next check {day}{local:%H:%M}, in {said_duration(max(60, int(ahead) // 60 * 60))}"
