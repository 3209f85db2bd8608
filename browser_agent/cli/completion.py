"""Tab completion of the values a command names: run ids and skill names, read from the
store of the workspace in use. A store that cannot be read completes nothing."""

from __future__ import annotations


def run_ids(incomplete: str) -> list[str]:
    """Recent run ids that begin with what is typed, newest first."""
    from browser_agent.store.run_rows import recent_runs

    store = _store()
    if store is None:
        return []
    return [run.id for run in recent_runs(store, 200) if run.id.startswith(incomplete)]


def skill_names(incomplete: str) -> list[str]:
    """Names of current skills that begin with what is typed."""
    from browser_agent.store.skill_use import current_skills

    store = _store()
    if store is None:
        return []
    return [skill.name for skill in current_skills(store) if skill.name.startswith(incomplete)]


def _store():  # type: ignore[no-untyped-def]
    """The workspace's store for reading, or None when there is none to read."""
    from browser_agent.errors import BrowserAgentError
    from browser_agent.settings import load_settings
    from browser_agent.store.run_store import open_run_store

    try:
        return open_run_store(load_settings())
    except (BrowserAgentError, OSError, ValueError):
        return None
