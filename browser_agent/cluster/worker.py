"""What a Dask worker keeps between jobs: one Chromium (or a connection to the browser at
``BROWSER_AGENT_BROWSER_ENDPOINT``) on an event loop of its own, and the store's engine.

Dask runs tasks in a pool of threads; each job hands its coroutine to the plugin's loop,
where it gets a fresh browser context. A browser that went away is started again for
the next job.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from contextlib import AsyncExitStack, suppress
from typing import TYPE_CHECKING, Any, TypeVar

from distributed.diagnostics.plugin import WorkerPlugin

if TYPE_CHECKING:
    from playwright.async_api import Browser
    from sqlalchemy import Engine

    from browser_agent.settings import Settings

PLUGIN_NAME = "browser-agent-browser"
T = TypeVar("T")


class BrowserPlugin(WorkerPlugin):
    """One browser per worker, started when the worker starts and closed when it stops."""

    name = PLUGIN_NAME
    #: Registered again by the next batch's client: the workers keep the browser they have
    #: (jobs of another batch may be using it).
    idempotent = True

    def setup(self, worker: Any) -> None:
        from browser_agent.settings import load_settings
        from browser_agent.store.db import open_store

        self.settings: Settings = load_settings()
        self.engine: Engine = open_store(self.settings)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._stack: AsyncExitStack | None = None
        self._browser: Browser | None = None
        self._lock = asyncio.Lock()
        self._call(self._ensure_browser()).result()
        stop_profiler(worker)

    def teardown(self, worker: Any) -> None:
        if self._stack is not None:
            self._call(self._stack.aclose()).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self.engine.dispose()

    def run(self, job: Callable[[Browser, Settings, Engine], Awaitable[T]]) -> T:
        """Run ``job`` on the worker's browser and wait for it (from a task's thread)."""

        async def with_browser() -> T:
            browser = await self._ensure_browser()
            return await job(browser, self.settings, self.engine)

        return self._call(with_browser()).result()

    def _call(self, coroutine: Awaitable[T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)  # type: ignore[arg-type]

    async def _ensure_browser(self) -> Browser:
        """The worker's browser, started (again) when there is none or it went away."""
        from browser_agent.browser.session import launched_browser

        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            if self._stack is not None:
                with suppress(Exception):  # the old browser is gone already
                    await self._stack.aclose()
            self._stack = AsyncExitStack()
            self._browser = await self._stack.enter_async_context(launched_browser(self.settings))
            return self._browser


def stop_profiler(worker: Any) -> None:
    """Stop the worker's statistical profiler. It samples the task threads 100 times a
    second, and a job's thread only waits for the browser's loop: the samples show nothing
    and cost every job CPU (a tenth of a batch command's on 2 cores)."""
    for name in ("profile", "profile-cycle"):
        callback = worker.periodic_callbacks.pop(name, None)
        if callback is not None:
            callback.stop()
