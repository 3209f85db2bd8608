"""Where a site keeps things of a kind: the link named by the kind ("Users" for a user,
"Databases" for a database), followed once per task, as a person goes to the list of
things of that kind to make one there or to find one in it."""

from __future__ import annotations

from browser_agent.llm.offline.outcome import Action, Situation
from browser_agent.llm.offline.page import Page, points_here
from browser_agent.llm.offline.words import content_words, words


def kept_at(page: Page, noun: str, situation: Situation) -> Action | None:
    """The link to where the site keeps its ``noun``s, once per task: the kind's every word
    in the link's name and at most one more, the fewest more first ("Databases" before
    "Database operations"); None when no link is so named or one was followed already."""
    kind = content_words(noun)
    if not kind or "place" in situation.prepared:
        return None
    named = [
        (len(said) - len(kind), element)
        for element in page.interactive()
        if element.role in ("link", "tab")
        and not points_here(element, page)
        and set(kind) <= set(said := words(element.name))
        and len(said) <= len(kind) + 1
    ]
    if not named:
        return None
    element = min(named, key=lambda n: n[0])[1]
    note = f"open {element.describe()}, where the site keeps its {noun}s"
    return Action("click", {"selector": element.selector}, note, phase="prepare", kind="place")
