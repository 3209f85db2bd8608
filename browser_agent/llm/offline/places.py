"""Where a site keeps things: the link named by the kind ("Users" for a user, "Databases"
for a database), followed once per task, as a person goes to the list of things of that
kind to make one there or to find one in it; and the settings of the site or of one thing
(Settings, Options, Operations…), where a setting is changed or a thing removed."""

from __future__ import annotations

from urllib.parse import unquote_plus

from browser_agent.llm.offline.form_tasks import SETTINGS_WORDS, Control, thing
from browser_agent.llm.offline.languages import also
from browser_agent.llm.offline.outcome import Action, Situation
from browser_agent.llm.offline.page import Page, points_here
from browser_agent.llm.offline.words import content_words, holds_whole, joined, words


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


def own_settings(page: Page, task: Control, situation: Situation) -> Action | None:
    """The thing's own settings, for a removal its page has no control for: on the thing's
    page (its title or address names it), a link named Settings, Operations… (a database's
    "Operations", a repository's "Settings"), where sites keep the control to remove it."""
    if task.verb != "remove" or not task.target:
        return None
    if not any(holds_whole(said, task.target) for said in (page.title, unquote_plus(page.url))):
        return None
    why = f"where {thing(task.noun, task.target)} may be removed"
    return settings_link(page, situation, why, near=task.target)


def settings_link(page: Page, situation: Situation, why: str, near: str = "") -> Action | None:
    """A link to settings, named Settings, Options, Preferences… in the page's language,
    each once: in page order, or with ``near``, the first after where the page names that
    thing (its heading's "Options", not the site menu's "Settings" above it)."""
    names = {joined(name) for name in also(SETTINGS_WORDS, page.lang)}
    anchors = [e.position for e in page.elements if near and holds_whole(e.name, near)]
    found = []
    for element in page.interactive():
        if element.role not in ("link", "tab", "menuitem") or points_here(element, page):
            continue
        note = f"open {element.describe()}, {why}"
        if joined(element.name) in names and note not in situation.tried:
            after = [element.position - a for a in anchors if a < element.position]
            found.append((min(after, default=1_000_000), element.position, note, element))
    if not found:
        return None
    *_, note, element = min(found, key=lambda f: f[:2])
    arguments = {"selector": element.selector}
    return Action("click", arguments, note, phase="prepare", kind="settings")
