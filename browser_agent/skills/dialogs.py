"""How a skill answers the dialogs its steps raise: as the recorded run did."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from browser_agent.browser.session import session


@contextmanager
def answering_dialogs(accept: bool) -> Iterator[None]:
    """Answer confirm, prompt and leave-page dialogs raised inside the block as the
    recorded run did (accepted or dismissed); the session's own choice comes back after."""
    active = session()
    before = active.accept_dialogs
    active.accept_dialogs = accept
    try:
        yield
    finally:
        active.accept_dialogs = before
