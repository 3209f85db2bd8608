"""The store's errors: each one says in one line why the store cannot be used."""

from __future__ import annotations

from browser_agent.errors import UserError


class StoreError(UserError, RuntimeError):
    """The store cannot be opened or used as configured; the message says why in one
    line, with any password masked. The command line prints it and exits with code 2."""
