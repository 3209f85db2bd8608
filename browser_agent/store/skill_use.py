"""What a run does with harvested skills in the store: read the current ones, count each
use, mark one stale. In SQL on the driver (see :mod:`browser_agent.store.connection`), so
a routed run loads no ORM; registering and changing versions is in
:mod:`browser_agent.store.skills`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from browser_agent.store.connection import Store
from browser_agent.store.routability import routable_after
from browser_agent.store.rows import SkillRow, columns

if TYPE_CHECKING:
    from browser_agent.store.connection import Db


def current_skills(db: Db, status: str | None = None, limit: int | None = None) -> list[SkillRow]:
    """The current version of every skill (by name), or of those with ``status``, or the
    first ``limit``: the one reader of current skills, with the driver alone, so a routed
    run needs no ORM."""
    names = ", ".join(f'"{name}"' for name in columns(SkillRow))
    sql = f"SELECT {names} FROM skill WHERE current = :yes"
    params: dict[str, object] = {"yes": True}
    if status:
        sql, params["status"] = f"{sql} AND status = :status", status
    sql += " ORDER BY name"
    if limit:
        sql, params["limit"] = f"{sql} LIMIT :limit", limit
    rows = Store.of(db).execute(sql, **params).rows
    return [SkillRow.read(row) for row in rows]


def mark_stale(
    db: Db,
    skill_id: int,
    error: str,
    healed: str,
    broken_step: int | None = None,
    *,
    healed_in_place: bool = False,
) -> None:
    """Mark a skill stale with why, and the selectors healing found (JSON) for its next
    version; it stays routable only when an address of its plan does the broken step (the
    first ``error`` names, when ``broken_step`` is not given), or when the run did the
    command with every broken step healed to a control found again by what it is
    (``healed_in_place``)."""
    store = Store.of(db)
    rows = store.execute("SELECT complete, plan FROM skill WHERE id = :id", id=skill_id).rows
    found = rows[0] if rows else {"complete": False, "plan": ""}
    routable = routable_after(
        "stale", bool(found["complete"]), found["plan"] or "", error, broken_step, healed_in_place
    )
    store.execute(
        "UPDATE skill SET status = 'stale', last_error = :error, healed = :healed, "
        "routable = :routable WHERE id = :id",
        id=skill_id,
        error=error,
        healed=healed,
        routable=routable,
    )


def loads(text: str) -> object:
    """A JSON column's value (they are written by this package, but read defensively)."""
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return None


def site_of(url: str) -> str:
    """The page a skill starts from, for telling skills of one command apart: scheme, host,
    port and path (the query of a start URL varies between runs)."""
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}{parts.path or '/'}" if parts.netloc else ""


def same_site(skill: SkillRow, url: str | None) -> bool:
    """Whether ``skill`` was learnt on the page ``url`` starts from (any page, when either
    is unknown). A skill whose first step opens an address built from its own values (the
    page /wiki/NAME of the name it is given) was learnt on that site, whichever page of it."""
    mine, theirs = site_of(skill.start_url), site_of(url or "")
    if not mine or not theirs or mine == theirs:
        return True
    return _origin(mine) == _origin(theirs) and _named_start(skill)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _named_start(skill: SkillRow) -> bool:
    """Whether the skill's first step opens an address built from its own values (the
    page it is given), not the page it starts from."""
    plan = loads(skill.plan or "{}")
    steps = plan.get("steps") if isinstance(plan, dict) else None
    first = steps[0] if isinstance(steps, list) and steps else None
    arguments = first.get("arguments") if isinstance(first, dict) else None
    url = arguments.get("url") if isinstance(arguments, dict) else None
    return isinstance(url, dict) and url.get("kind") == "url"


def templates_of(skill: SkillRow) -> list[str]:
    """The command templates a skill answers (an empty list when the column is unreadable)."""
    templates = loads(skill.command_templates)
    if not isinstance(templates, list):
        return []
    return [t for t in templates if isinstance(t, str)]
