"""Jobs on browser slots in this process: one Chromium, a fresh context per job, at most
``slots`` jobs at a time (asyncio)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.browser.session import launched_browser
from browser_agent.cluster.jobs import ERROR, JobResult
from browser_agent.settings import Settings

J = TypeVar("J")
Runner = Callable[[J, Browser, Settings, Engine], Awaitable[JobResult]]


async def run_on_slots(
    jobs: Sequence[J],
    runner: Runner,
    settings: Settings,
    engine: Engine,
    *,
    slots: int,
    on_done: Callable[[JobResult], None] | None = None,
) -> dict[str, JobResult]:
    """Run every job with ``runner`` on one launched browser; results keyed by job id."""
    results: dict[str, JobResult] = {}
    gate = asyncio.Semaphore(max(1, slots))
    async with launched_browser(settings) as browser:

        async def one(job: J) -> None:
            async with gate:
                try:
                    result = await runner(job, browser, settings, engine)
                except Exception as exc:  # one broken job must not stop the others
                    name = getattr(job, "command", None) or getattr(job, "skill", "")
                    error = f"{type(exc).__name__}: {exc}"
                    result = JobResult(job.job_id, name, ERROR, error=error)  # type: ignore[attr-defined]
            results[result.job_id] = result
            if on_done:
                on_done(result)

        await asyncio.gather(*(one(job) for job in jobs))
    return results
