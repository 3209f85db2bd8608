"""Page observation: mmid annotation, the distilled DOM and element descriptions, and the
readers of get_dom's text (page_content, page_lines).

The observation's names load on first use: a reader of the text imports no browser."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from browser_agent.dom.observe import CONTENT_TYPES, Observation, observe_page

__all__ = ["CONTENT_TYPES", "Observation", "observe_page"]


def __getattr__(name: str) -> Any:
    """``CONTENT_TYPES``, ``Observation`` and ``observe_page`` from :mod:`.observe`, on first
    use: Playwright loads only for a page to observe."""
    if name in __all__:
        from browser_agent.dom import observe

        return getattr(observe, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
