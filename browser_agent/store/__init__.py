"""The store: SQLModel tables for runs, steps and skills, in SQLite or any SQLAlchemy URL."""

from browser_agent.store.db import open_store
from browser_agent.store.models import Run, Step

__all__ = ["Run", "Step", "open_store"]
