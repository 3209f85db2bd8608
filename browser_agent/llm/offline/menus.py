"""Menus: a control the page does not show may sit inside one (a "+" menu of things to
create, a "More" menu of page actions, a user menu with "Log in", an administration's
fly-out under "Posts" with "Categories"). A person opens such a menu and looks again; so
does the planner, one menu at a time, each at most once per task, and never anything but
a menu's own toggle: clicked, or pointed at where it is a link that says it has a menu
(ARIA's aria-haspopup) and goes elsewhere when clicked."""

from __future__ import annotations

from browser_agent.llm.offline.languages import every_language
from browser_agent.llm.offline.outcome import Action
from browser_agent.llm.offline.page import TOGGLE_ROLES, Element, Page
from browser_agent.llm.offline.words import content_words, words

#: How many menus one task opens before it says it could not find its control.
MAX_MENUS = 3
#: Words a menu's toggle goes by when it names itself ("More", "Actions", "Personal tools",
#: "My tools"), in English and the other languages of the table ("Mehr", "Meine Werkzeuge").
_MENU_WORDS = frozenset(
    word
    for name in every_language(
        ("more", "menu", "menus", "action", "actions", "option", "options", "tool", "tools")
        + ("personal", "my", "user", "account")
    )
    for word in words(name)
)
#: Marks a menu's toggle shows instead of a name: a "+" of things to add, an ellipsis, a
#: hamburger.
_MENU_MARKS = frozenset({"+", "\u2026", "...", "\u22ef", "\u22ee", "\u2630", "\u2261"})


def is_toggle(element: Element) -> bool:
    """Whether the element opens a menu: a collapsed control, a link with a menu opened by
    pointing at it (see pointed_at), or a mark ("+", an ellipsis) or a menu's name
    ("More", "Actions") on a button, a text or a link that leads nowhere ("#")."""
    if element.role in TOGGLE_ROLES or not (element.clickable or element.role == "text"):
        return False
    if element.attrs.get("type") == "submit":
        return False
    if "collapsed" in element.states or pointed_at(element):
        return True
    if element.role == "link" and element.attrs.get("href") != "#":
        return False
    name = element.name.strip()
    said = content_words(name)
    return name in _MENU_MARKS or bool(said) and set(said) <= _MENU_WORDS


def next_menu(
    page: Page, tried: list[str], prefer: tuple[str, ...] = (), only: bool = False
) -> Element | None:
    """The next menu toggle on the page not opened yet for this task: those whose name
    holds one of ``prefer`` ("+" for creating) first (with ``only``, those alone), then
    those named as menus, then marks, then any collapsed control, each in page order;
    None once MAX_MENUS were opened."""
    if sum(" the menu " in note for note in tried) >= MAX_MENUS:
        return None
    toggles = [e for e in page.elements if is_toggle(e) and not _opened(e, tried)]

    def preferred(element: Element) -> bool:
        name = element.name.strip().lower()
        return any(p == name or p in words(name) for p in prefer)

    if only:
        toggles = [e for e in toggles if preferred(e)]
    ranked = sorted(toggles, key=lambda e: (not preferred(e), _kind(e)))
    return ranked[0] if ranked else None


def pointed_at(element: Element) -> bool:
    """Whether the element is a link that says it has a menu (ARIA's aria-haspopup) and
    goes elsewhere when clicked: its menu opens by pointing at it (an administration's
    "Posts" with Categories and Tags). Its line leaves out a target elsewhere on the site,
    and shows one of "#" or a script, which a click toggles."""
    href = element.attrs.get("href", "")
    return (
        element.role == "link"
        and "has menu" in element.states
        and not href.startswith(("#", "javascript:"))
    )


def _kind(element: Element) -> int:
    """How surely the element is a menu's toggle: 0 named as a menu, 1 a mark, 2 only
    collapsed (a sidebar or a section that folds) or a link with a menu (its name is a
    part of the site's, "Users" or "Tools", not a menu's own)."""
    if pointed_at(element):
        return 2
    said = content_words(element.name)
    if said and set(said) <= _MENU_WORDS:
        return 0
    return 1 if element.name.strip() in _MENU_MARKS else 2


def menus_opened(tried: list[str]) -> str:
    """What a "could not find" answer adds when the task's menus were opened too."""
    count = sum(" the menu " in note for note in tried)
    return f" (also in {count} menu{'s' if count > 1 else ''} it opens)" if count else ""


def open_menu(toggle: Element, looking_for: str) -> Action:
    """The click that opens ``toggle``'s menu (the pointing, for one opened by pointing at
    it), as a step that prepares the task (``looking_for`` says what for: 'the link "Log
    in"', "a control to create an issue")."""
    return Action(
        "hover" if pointed_at(toggle) else "click",
        {"selector": toggle.selector},
        f"open the menu behind {toggle.describe()} to look for {looking_for}",
        "prepare",
        "menu",
    )


def _opened(element: Element, tried: list[str]) -> bool:
    return "expanded" in element.states or any(element.describe() in note for note in tried)
