"""The store's errors: each one says in one line why the store cannot be used."""

from __future__ import annotations

import sqlite3

from browser_agent.errors import UserError


class StoreError(UserError, RuntimeError):
    """The store cannot be opened or used as configured; the message says why in one
    line, with any password masked. The command line prints it and exits with code 2."""


#: SQLite's primary result codes for a file that is damaged or is no database at all.
_DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def damaged(exc: BaseException) -> bool:
    """Whether ``exc`` (sqlite3's error, or SQLAlchemy's wrapping of one) says the store's
    file is damaged: zeroed or cut pages, or no SQLite database at all."""
    orig = getattr(exc, "orig", None) or exc
    code = getattr(orig, "sqlite_errorcode", None)
    return isinstance(orig, sqlite3.DatabaseError) and code is not None and code & 0xFF in _DAMAGED


def damaged_store(name: str, exc: BaseException) -> StoreError:
    """The one line for a store whose file SQLite found damaged while it was used (a
    user's file to mend, not a failure of the command): which store, and what to do."""
    orig = getattr(exc, "orig", None) or exc
    said = " ".join(str(orig).split()) or "the file is damaged"
    store = f"the store {name}" if name else "the store"
    return StoreError(
        f"cannot open {store}: {said}; restore a copy of the file, or move it away and a "
        "new store is made"
    )
