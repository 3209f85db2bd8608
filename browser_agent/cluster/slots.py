"""Jobs on browser slots in this process: one Chromium, a fresh context per job, at most
``slots`` jobs at a time (asyncio)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from typing import TypeVar

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.browser.session import launched_browser
from browser_agent.cluster.jobs import ERROR, CommandJob, JobResult, ValidateJob
from browser_agent.settings import Settings

J = TypeVar("J", CommandJob, ValidateJob)
Runner = Callable[[J, Browser, Settings, Engine], Awaitable[JobResult]]


async def run_on_slots(
    jobs: Sequence[J],
    runner: Runner,
    settings: Settings,
    engine: Engine,
    *,
    slots: int,
    on_done: Callable[[JobResult], None] | None = None,
    browser: Browser | None = None,
) -> dict[str, JobResult]:
    """Run every job with ``runner`` on ``browser`` (else one launched for them); results
    keyed by job id."""
    results: dict[str, JobResult] = {}
    gate = asyncio.Semaphore(max(1, slots))
    async with AsyncExitStack() as stack:
        if browser is None:
            browser = await stack.enter_async_context(launched_browser(settings))
        active = browser

        async def one(job: J) -> None:
            async with gate:
                try:
                    result = await runner(job, active, settings, engine)
                except Exception as exc:  # one broken job must not stop the others
                    error = f"{type(exc).__name__}: {exc}"
                    result = JobResult(job.job_id, job.label, ERROR, error=error)
            results[result.job_id] = result
            if on_done:
                on_done(result)

        await asyncio.gather(*(one(job) for job in jobs))
    return results
