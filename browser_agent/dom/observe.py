"""get_dom's engine: annotate the page with mmids and distill it in one evaluation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from browser_agent.browser.session import BrowserSession
from browser_agent.dom.library import run_on_page
from browser_agent.page_content import fenced, neutralised

ContentType = Literal["text_only", "input_fields", "all_fields"]
CONTENT_TYPES: tuple[str, ...] = ("text_only", "input_fields", "all_fields")


@dataclass
class Observation:
    """The distilled page and counts describing how much was seen and kept."""

    text: str
    elements: int
    interactive: int
    cut: int


async def observe_page(
    active: BrowserSession, content_type: str, budget: int | None = None
) -> Observation:
    """Annotate and distill the current page; remember what each listed mmid named. The
    first line names the page; the rest is page content, between the page-content markers
    (page text is always a quoted string, so it never reads as an element line)."""
    if content_type not in CONTENT_TYPES:
        raise ValueError(
            f"Unknown content type {content_type!r}: use one of {', '.join(CONTENT_TYPES)}."
        )
    page = active.current_page()
    result = json.loads(
        await run_on_page(
            page,
            "observe",
            contentType=content_type,
            budget=budget or active.settings.dom_budget_chars,
        )
    )
    if content_type != "text_only":
        active.observed = {
            str(mmid): (tag, role, name) for mmid, tag, role, name in result["registry"]
        }
    header, _, body = result["text"].partition("\n")
    return Observation(
        text=f"{neutralised(header)}\n{fenced(body)}",
        elements=result["elements"],
        interactive=result["interactive"],
        cut=result["cut"],
    )
