"""Running a command's work until it ends or is stopped: Ctrl-C and SIGTERM alike cancel
it, so the run records itself as interrupted and keeps its logs (see run_command)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

from browser_agent.errors import BrowserAgentError

T = TypeVar("T")

SIGTERM_REASON = "Stopped by SIGTERM."


class Interrupted(BrowserAgentError):
    """The work was stopped by Ctrl-C or SIGTERM; ``exit_code`` is the shell's 128 + signal."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def run_to_end(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)``; Interrupted when Ctrl-C or SIGTERM stopped it."""
    try:
        return asyncio.run(_cancelled_on_sigterm(work))
    except KeyboardInterrupt:
        raise Interrupted("Interrupted (Ctrl-C); the run is kept as interrupted.", 130) from None
    except asyncio.CancelledError:
        raise Interrupted(f"{SIGTERM_REASON} The run is kept as interrupted.", 143) from None


async def _cancelled_on_sigterm(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work``, cancelling it (as Ctrl-C does) when SIGTERM arrives."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None  # always inside asyncio.run
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
        loop.add_signal_handler(signal.SIGTERM, task.cancel, SIGTERM_REASON)
    try:
        return await work
    finally:
        with contextlib.suppress(NotImplementedError):
            loop.remove_signal_handler(signal.SIGTERM)
