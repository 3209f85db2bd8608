"""Which runs a listing shows: by status, site, skill, start time and words, as the
command line's ``runs``, the console and :meth:`browser_agent.api.Agent.runs` filter them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from browser_agent.errors import UserError
from browser_agent.store.rows import RunRow, columns

if TYPE_CHECKING:
    from browser_agent.store.connection import Store


def as_option(name: str) -> str:
    """How the command line names a filter in its errors: ``--status``."""
    return f"--{name}"


#: The statuses a run can have (see :class:`browser_agent.store.rows.RunRow`).
STATUSES = ("running", "succeeded", "unverified", "failed", "interrupted", "abandoned")


@dataclass(frozen=True)
class RunFilter:
    """What ``runs`` lists: runs with this status, on this site, that used this skill,
    started since this time, whose command holds these words (as the console filters)."""

    status: str | None = None
    site: str | None = None
    skill: str | None = None
    since: datetime | None = None
    words: str | None = None

    @classmethod
    def given(
        cls,
        status: str | None = None,
        site: str | None = None,
        skill: str | None = None,
        since: str | None = None,
        words: str | None = None,
        now: datetime | None = None,
        named: Callable[[str], str] = as_option,
    ) -> RunFilter:
        """The filter the options say; UserError (one line, each filter ``named`` as the
        caller names it) for a status no run has or a time that is neither a date nor a
        duration."""
        if status is not None and status not in STATUSES:
            listed = ", ".join(STATUSES)
            raise UserError(f"{named('status')} {status!r}: a run's status is one of {listed}")
        host = _host(site) if site is not None else None
        if site is not None and not host:
            raise UserError(f"{named('site')} {site!r}: name a host, such as shop.example.com")
        start = parsed_since(since, now or datetime.now(UTC), named) if since is not None else None
        return cls(status, host, skill or None, start, (words or "").strip() or None)


def parsed_since(text: str, now: datetime, named: Callable[[str], str] = as_option) -> datetime:
    """The time ``--since`` names: a duration back from ``now`` (``2h``, ``3d``), or a date
    or date and time (``2026-12-01``, ``2026-12-01T09:00``, local unless it gives a zone)."""
    from browser_agent.watch.durations import BadDuration, parse_duration

    try:
        return now - timedelta(seconds=parse_duration(text, named("since")))
    except BadDuration:
        pass
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(
            f"{named('since')} {text!r} is neither a duration (30m, 2h, 3d) nor a date "
            "(2026-12-01, 2026-12-01T09:00)"
        ) from None
    return (moment if moment.tzinfo else moment.astimezone()).astimezone(UTC)


def filtered_runs(store: Store, limit: int, wanted: RunFilter) -> list[RunRow]:
    """The newest ``limit`` runs the filter keeps, newest first. The status and the words
    select as the console's run list does (:func:`~browser_agent.store.run_rows.recent_runs`)."""
    names = ", ".join(f'"{name}"' for name in columns(RunRow))
    where, params = [], {}
    if wanted.status:
        where.append("status = :status")
        params["status"] = wanted.status
    if wanted.words:
        where.append("LOWER(command) LIKE :pattern ESCAPE '\\'")
        params["pattern"] = f"%{_escaped(wanted.words.lower())}%"
    if wanted.since is not None:
        where.append("started_at >= :since")
        params["since"] = wanted.since
    if wanted.skill:
        where.append("id IN (SELECT run_id FROM step WHERE tool = :skill)")
        params["skill"] = wanted.skill
    sql = f"SELECT {names} FROM run{' WHERE ' + ' AND '.join(where) if where else ''}"
    sql += " ORDER BY started_at DESC"
    if not wanted.site:
        rows = store.execute(f"{sql} LIMIT :limit", limit=limit, **params).rows
        return [RunRow.read(row) for row in rows]
    found = [RunRow.read(row) for row in store.execute(sql, **params).rows]
    return [run for run in found if _on_site(run, wanted.site)][:limit]


def _escaped(text: str) -> str:
    """``text`` for a LIKE pattern, its ``%`` and ``_`` as themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _host(site: str) -> str:
    """The host (and port, when given) a ``--site`` names: ``shop.example.com``,
    ``127.0.0.1:8811``, or a URL's."""
    text = site.strip().lower()
    parts = urlsplit(text if "//" in text else f"//{text}")
    return parts.netloc.rpartition("@")[2]


def _on_site(run: RunRow, site: str) -> bool:
    """Whether the run started or ended on ``site`` or a subdomain of it (its port too, when
    ``site`` names one)."""
    for url in (run.start_url, run.final_url):
        host = _host(url) if url and "//" in url else ""
        name = host if ":" in site else host.partition(":")[0]
        if name == site or name.endswith(f".{site}"):
            return True
    return False
