"""Watches in the console: listed with their schedules (a period, a clock time or a cron
expression), next and last checks, paused, resumed and removed; and while the server is up,
the due ones are checked in it, as ``watch run-due`` would."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from browser_agent.store.connection import Store
from browser_agent.store.watches import (
    ACTIVE,
    PAUSED,
    all_watches,
    checks_of,
    remove_watch,
    set_status,
    watch_by_id,
)
from browser_agent.watch.runner import now_utc, run_due
from browser_agent.watch.schedule import next_due, said_next, said_schedule

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from browser_agent.llm.types import LLMClient
    from browser_agent.settings import Settings

logger = logging.getLogger("browser_agent.console")
POLL_S = 30.0  # how often the server looks for due watches


class Pages(Protocol):
    """What the watch pages need of the console: its store, its pages and its forms."""

    engine: Engine

    def page(self, name: str, status_code: int = 200, **values: Any) -> Response: ...

    async def form(self, request: Request) -> dict[str, str]: ...


def watch_routes(console: Pages) -> list[Route]:
    """The console's watch pages and forms."""

    async def page(request: Request) -> Response:
        store, now = Store.of(console.engine), now_utc()
        shown = [
            {
                "watch": w,
                "when": said_schedule(w),
                "next": said_next(w, now).removeprefix("next check "),
                "last": checks_of(store, w, 1),
            }
            for w in all_watches(store)
        ]
        return console.page("watches.html", watches=shown)

    async def act(request: Request) -> Response:
        await console.form(request)
        store = Store.of(console.engine)
        watch = watch_by_id(store, request.path_params["watch_id"])
        if watch is None:
            raise HTTPException(404, "No watch with that id.")
        action = request.path_params["action"]
        if action == "pause":
            set_status(store, watch, PAUSED)
        elif action == "resume":  # a clock's watch waits for its next time, as watch resume
            now = now_utc()
            set_status(store, watch, ACTIVE, next_due(watch, now) if watch.schedule else now)
        elif action == "remove":
            remove_watch(store, watch)
        else:
            raise HTTPException(404, "No such action on a watch.")
        return RedirectResponse("/watches", status_code=303)

    return [
        Route("/watches", page),
        Route("/watches/{watch_id:int}/{action:str}", act, methods=["POST"]),
    ]


class DueWatches:
    """Checks the due watches every ``poll_s`` seconds while the console runs; a round
    that fails is logged and the next one comes as usual."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        make_llm: Callable[[], LLMClient],
        poll_s: float = POLL_S,
    ) -> None:
        self.settings, self.engine, self.make_llm, self.poll_s = settings, engine, make_llm, poll_s
        self.task: asyncio.Task[Any] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._rounds())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _rounds(self) -> None:
        while True:
            try:
                await run_due(self.settings, self.engine, llm=self.make_llm())
            except Exception as exc:  # the console goes on; the next round tries again
                logger.warning("checking the due watches failed: %s", exc)
            await asyncio.sleep(self.poll_s)
