"""Finding a run by its id or the start of it, as ``show`` accepts (the runs ``runs``
lists are chosen by :mod:`browser_agent.api.run_filter`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from browser_agent.errors import UserError

if TYPE_CHECKING:
    from sqlmodel import Session

    from browser_agent.store.models import Run

SHOWN = 5  # ids named when a start matches several runs


def one_run(db: Session, text: str) -> Run:
    """The run whose id is ``text``, else the only run whose id starts with it; UserError
    (one line) when none does or several do."""
    from sqlmodel import col, select

    from browser_agent.store.models import Run

    exact = db.get(Run, text) if text else None
    if exact is not None:
        return exact
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    query = select(Run).where(col(Run.id).like(f"{escaped}%", escape="\\"))
    found = db.exec(query.order_by(col(Run.id)).limit(SHOWN + 1)).all() if text else []
    if not found:
        raise UserError(f"No run {text!r}: see browser-agent runs for the ids.")
    if len(found) > 1:
        ids = ", ".join(run.id for run in found[:SHOWN]) + (", ..." if len(found) > SHOWN else "")
        raise UserError(f"{text!r} starts several run ids ({ids}): give more of the id.")
    return found[0]
