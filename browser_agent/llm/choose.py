"""Choosing the model client for a command: a hosted model at the configured endpoint, or
the offline planner when asked for or when no endpoint is configured."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from browser_agent.llm.lazy import LazyClient
    from browser_agent.llm.types import LLMClient
    from browser_agent.settings import Settings

OFFLINE_MODEL = "offline"


def make_llm(settings: Settings, model: str | None, text_actions: bool = False) -> LazyClient:
    """The configured model client; the offline planner when asked for (``--model offline``)
    or when no endpoint is configured, so the product runs without a network."""
    from browser_agent.llm.lazy import LazyClient  # made on the first call: a routed run has none

    if is_offline(settings, model):

        def offline() -> LLMClient:
            from browser_agent.llm.offline import OfflinePlanner

            return OfflinePlanner()

        return LazyClient(OFFLINE_MODEL, offline)
    name = model or settings.llm_model

    def hosted() -> LLMClient:
        from browser_agent.llm.openai_client import OpenAIClient  # openai: for a hosted model

        return OpenAIClient(
            name,
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key,
            timeout_s=settings.llm_timeout_s,
            text_actions=text_actions or settings.llm_text_actions,
            max_tokens=settings.answer_reserve_tokens,
        )

    return LazyClient(name, hosted)


def is_offline(settings: Settings, model: str | None = None) -> bool:
    """True when the offline planner stands in: asked for, or no endpoint configured."""
    no_endpoint = settings.llm_base_url is None and settings.llm_api_key is None
    return (model or settings.llm_model) == OFFLINE_MODEL or no_endpoint
