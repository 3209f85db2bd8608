"""bulk_enter_text: fill several form fields in one call."""

from __future__ import annotations

from typing import Annotated, TypedDict

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from browser_agent.skills.primitive.enter_text import fill


class FieldEntry(TypedDict):
    """One field to fill: where, and what to type."""

    selector: Annotated[str, "The field: [mmid='12'] or a Playwright selector."]
    text: Annotated[str, "The text to type into it."]


async def bulk_enter_text(
    entries: Annotated[list[FieldEntry], "The fields to fill, in order."],
) -> str:
    """Fill several text fields of a form; each is reported like enter_text."""
    active = session()
    said: list[str] = []
    async with watching(active) as changes:
        for entry in entries:
            target = await locate(active, entry["selector"])
            said.append(await fill(active, target, entry["text"], entry["selector"]))
    return " ".join([*said, changes.summary()]).strip()
