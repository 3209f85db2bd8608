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


def _path(raw: str | None) -> Path | None:
    return Path(raw).expanduser().resolve() if raw else None


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
    use_skills: bool = True  # route commands to healthy harvested skills, offer them as tools

    # Memory (browser_agent.memory). The planner's history is fitted into
    # context_limit_tokens - answer_reserve_tokens - (system prompt, command, tools).
    context_limit_tokens: int = 128_000  # the model's context window
    answer_reserve_tokens: int = 4_096  # kept free for the model's answer
    short_term_share: float = 0.75  # recent messages; the long-term summary gets the rest
    summary_token_limit: int = 2_000  # most a summary may use (also capped by its share)
    evict_target_share: float = 0.5  # an eviction leaves the window this full: batched summaries
    memory_prompts_dir: Path | None = None  # overrides browser_agent/memory/prompts/*.txt
    memory_manager: bool = False  # memory across runs and the recall tool
    memory_chat_context_tokens: int = 4_000  # the manager's chat context size
    memory_chat_compression_ratio: float = 0.5  # oldest share of it turned into key points
    memory_short_term_size: int = 30  # short-term memory entries before consolidation
    memory_short_term_compression_ratio: float = 0.5  # oldest share consolidated to long-term
    memory_recall_tokens: int = 4_000  # most memory text one recall reads

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
        use_skills=_env("USE_SKILLS", "1") not in ("0", "false", "no"),
        context_limit_tokens=int(_env_float("CONTEXT_LIMIT_TOKENS", 128_000)),
        answer_reserve_tokens=int(_env_float("ANSWER_RESERVE_TOKENS", 4_096)),
        short_term_share=_env_float("SHORT_TERM_SHARE", 0.75),
        summary_token_limit=int(_env_float("SUMMARY_TOKEN_LIMIT", 2_000)),
        evict_target_share=_env_float("EVICT_TARGET_SHARE", 0.5),
        memory_prompts_dir=_path(_env("MEMORY_PROMPTS_DIR")),
        memory_manager=_env("MEMORY_MANAGER", "0") in ("1", "true", "yes"),
        memory_chat_context_tokens=int(_env_float("MEMORY_CHAT_CONTEXT_TOKENS", 4_000)),
        memory_chat_compression_ratio=_env_float("MEMORY_CHAT_COMPRESSION_RATIO", 0.5),
        memory_short_term_size=int(_env_float("MEMORY_SHORT_TERM_SIZE", 30)),
        memory_short_term_compression_ratio=_env_float("MEMORY_SHORT_TERM_COMPRESSION_RATIO", 0.5),
        memory_recall_tokens=int(_env_float("MEMORY_RECALL_TOKENS", 4_000)),
    )
