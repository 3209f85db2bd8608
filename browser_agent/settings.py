"""Settings read from environment variables, with the defaults a first-time user expects.

Every setting has an environment variable named ``BROWSER_AGENT_<NAME>``; the
LLM endpoint also honours the usual ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(f"BROWSER_AGENT_{name}")
    return value if value not in (None, "") else default


def _env_float(name: str, default: float) -> float:
    raw = _env(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"BROWSER_AGENT_{name} must be a number, got {raw!r}") from exc


@dataclass(frozen=True)
class Settings:
    """All knobs of the agent. Build with :func:`load_settings`; override with ``replace``."""

    workspace: Path = field(default_factory=Path.cwd)
    database_url: str | None = None
    headless: bool = True
    chromium_path: str | None = None
    browser_endpoint: str | None = None
    action_timeout_ms: float = 5_000
    navigation_timeout_ms: float = 15_000
    dom_budget_chars: int = 60_000
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = 60.0
    llm_text_actions: bool = False  # for models without native tool calls

    @property
    def logs_dir(self) -> Path:
        return self.workspace / "logs"

    @property
    def harvested_dir(self) -> Path:
        return self.workspace / "skills" / "harvested"

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.workspace / 'browser_agent.db'}"

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def load_settings() -> Settings:
    """Settings from the environment (``BROWSER_AGENT_*`` and ``OPENAI_*``)."""
    return Settings(
        workspace=Path(_env("WORKSPACE", str(Path.cwd()))).expanduser().resolve(),
        database_url=_env("DATABASE_URL"),
        headless=_env("HEADED", "0") not in ("1", "true", "yes"),
        chromium_path=_env("CHROMIUM"),
        browser_endpoint=_env("BROWSER_ENDPOINT"),
        action_timeout_ms=_env_float("ACTION_TIMEOUT_MS", 5_000),
        navigation_timeout_ms=_env_float("NAVIGATION_TIMEOUT_MS", 15_000),
        dom_budget_chars=int(_env_float("DOM_BUDGET_CHARS", 60_000)),
        llm_base_url=_env("LLM_BASE_URL", os.environ.get("OPENAI_BASE_URL")),
        llm_api_key=_env("LLM_API_KEY", os.environ.get("OPENAI_API_KEY")),
        llm_model=_env("LLM_MODEL", os.environ.get("OPENAI_MODEL", "gpt-4o-mini")) or "",
        llm_timeout_s=_env_float("LLM_TIMEOUT_S", 60.0),
        llm_text_actions=_env("LLM_TEXT_ACTIONS", "0") in ("1", "true", "yes"),
    )
