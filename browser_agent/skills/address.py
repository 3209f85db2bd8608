"""The address a skill's steps fall back on: when one of them no longer fits the page
while the skill runs for a command, the address they reach, built from the command's
values, is opened instead."""

from __future__ import annotations

from contextvars import Token
from typing import Any

from browser_agent.browser.session import session
from browser_agent.secrets import filled_address
from browser_agent.skills.primitive import open_url
from browser_agent.skills.run_state import (
    Repair,
    RepairScope,
    falling_back_on,
    repair_scope,
    restore,
)
from browser_agent.skills.targets import SkillStale


class by_address:  # noqa: N801 - used as `async with by_address(url):` in skill code
    """Steps with the address they reach to fall back on: when one no longer fits the page
    (stale, and healing found nothing) while the skill runs for a command, that address,
    built from the command's values, is opened instead, and the skill goes on from there.
    The harvester wraps the steps of a run that reached its end sending nothing to the
    site (a search's results), and a button whose click went on by GET (a form's "Create
    this page"). It counts as a repair, so the skill is still marked stale; the planner
    is not asked for such a step; a replay (validation) gets no fallback and reports it."""

    _set: Token[RepairScope]  # what the task was allowed before the block

    def __init__(self, url: str) -> None:
        self.url = url

    async def __aenter__(self) -> None:
        self._set = falling_back_on(self.url)

    async def __aexit__(self, kind: type[BaseException] | None, exc: Any, _tb: Any) -> bool:
        restore(self._set)
        repairs = repair_scope().repairs
        if not isinstance(exc, SkillStale) or repairs is None:
            return False
        await open_url(url=filled_address(self.url, session().secret_values))  # never kept
        repairs.done.append(
            Repair(
                exc.step or 0,
                exc.selector or "",
                self.url,
                "opening the address it went to, built from the command's values",
                str(exc),
                kept=False,
            )
        )
        return True
