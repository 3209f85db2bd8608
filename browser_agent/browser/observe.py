"""get_dom's engine: annotate the page with mmids and distill it in one evaluation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from browser_agent.browser.session import BrowserSession
from browser_agent.dom.library import read_page
from browser_agent.dom.page_content import fenced, neutralised

ContentType = Literal["text_only", "input_fields", "all_fields"]
CONTENT_TYPES: tuple[str, ...] = ("text_only", "input_fields", "all_fields")
LAST_WINDOW = -1  # get_dom(page=-1): the window that ends the page


@dataclass
class Observation:
    """The distilled page and counts describing how much was seen and kept."""

    text: str
    elements: int
    interactive: int
    cut: int
    above: int = 0
    below: int = 0


async def observe_page(
    active: BrowserSession, content_type: str, budget: int | None = None, page: int = 0
) -> Observation:
    """Annotate and distill one window of the current page (from the viewport on, the
    ``page``-th from the top, or the last for -1); remember what each listed mmid named. The
    first lines name the page and say what lies outside the window; the rest is page
    content, between the page-content markers (page text is always a quoted string, never
    an element line)."""
    if content_type not in CONTENT_TYPES:
        raise ValueError(
            f"Unknown content type {content_type!r}: use one of {', '.join(CONTENT_TYPES)}."
        )
    if page < -1:
        raise ValueError(
            f"page={page}: windows are numbered from 1 (0 starts at the viewport, -1 is the last)."
        )
    result = json.loads(
        await read_page(
            active.current_page(),
            "observe",
            contentType=content_type,
            budget=budget or active.settings.dom_budget_chars,
            window=page,
        )
    )
    if content_type != "text_only":
        remember(active, result["registry"])
    header, _, body = result["text"].partition("\n")
    window = window_line(result, page)
    shown = [neutralised(header), window] if window else [neutralised(header)]
    if not page or result["window"]:
        shown.append(fenced(body))
    return Observation(
        text="\n".join(shown),
        elements=result["elements"],
        interactive=result["interactive"],
        cut=result["cut"],
        above=result["above"],
        below=result["below"],
    )


def remember(active: BrowserSession, registry: list[list]) -> None:
    """Add what each listed mmid names to ``observed``. The numbering is the same in every
    window of an unchanged page, so earlier windows stay checkable; on a changed page an
    old entry no longer matches and the identity check says so."""
    active.observed.update(
        {str(mmid): (tag, role, name) for mmid, tag, role, name, *_rest in registry}
    )


def window_line(result: dict, page: int) -> str:
    """What lies outside the window and how to reach it; empty when the window holds all."""
    above, below, windows = result["above"], result["below"], result["windows"]
    page = result["window"] if page == LAST_WINDOW else page
    if page and not result["window"]:
        return (
            f"There is no window {page}: the page has {windows} "
            f"(get_dom page={windows} is the last)."
        )
    if not above and not below:
        return f"Window {page} of {windows}: the whole page." if page else ""
    if page:
        where = f"Window {page}{f' of {windows}' if windows else ''} from the top"
        up = f"get_dom page={page - 1}"
        down = f"get_dom page={page + 1}"
    elif not above:
        where = "Window 1 from the top"
        down = "get_dom page=2"
    else:
        where = f"Window from the viewport (scrolled {result['scrollY']} px)"
        up = "scroll up, or get_dom page=1 for the top"
        down = "scroll down"
    parts = []
    if above:
        parts.append(f"{above} actionable elements above ({up})")
    if below:
        parts.append(
            f"{below} below ({down}, scroll to the bottom, or find_elements to search all)"
        )
    return f"{where}: {', '.join(parts)}."
