"""Choosing, for one plan task and the page as last observed, the tool call that does it.

Every choice is a word match between the task and the page's elements (names,
labels, placeholders, ids, values, option labels, text). When nothing matches well
enough the task is Blocked with a "could not" reason; nothing is ever clicked on a
guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from browser_agent.llm.offline.boxes import next_page, scoped_box, search_box
from browser_agent.llm.offline.dialogs import consent_button, modal_first
from browser_agent.llm.offline.languages import also, language, relabelled
from browser_agent.llm.offline.menus import menus_opened, next_menu, open_menu
from browser_agent.llm.offline.outcome import (
    Action,
    Blocked,
    Done,
    Outcome,
    Situation,
    choose,
    where,
)
from browser_agent.llm.offline.page import (
    CHOICE_ROLES,
    TEXT_ROLES,
    TOGGLE_ROLES,
    Element,
    Option,
    Page,
    points_here,
)
from browser_agent.llm.offline.places import kept_at
from browser_agent.llm.offline.tasks import (
    ONLY,
    Assign,
    Dismiss,
    Explore,
    Goto,
    PageTask,
    Press,
    Reach,
    Search,
    Suggest,
)
from browser_agent.llm.offline.words import (
    closeness,
    content_words,
    covers,
    holds_whole,
    joined,
    precision,
    unquote,
    words,
)
from browser_agent.secrets import PLACEHOLDER

_PAGES = 3  # pages of search results looked through for a link, after the first
_VALUE_LEAD = re.compile(r"^(?:is|=|:|as|to|of)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Fill:
    """A field found for an Assign: the element, the value, and how to set it."""

    element: Element
    value: str
    how: str  # type, select, tick or click


def resolve(task: PageTask, situation: Situation) -> Outcome:
    """The next step of ``task`` on the page."""
    if isinstance(task, Goto):
        return Action("open_url", {"url": task.url}, f"open {task.url}")
    if isinstance(task, Explore):
        return Done()  # the next task looks through the page when its target is not shown
    if isinstance(task, Suggest):
        return _suggest(task, situation)
    if isinstance(task, Dismiss):
        return _dismiss(task, situation)
    task = _in_language(task, situation.page.lang)
    modal = modal_first(task, situation)
    if modal is not None:
        return modal
    if isinstance(task, Reach):
        return reach(task, situation)
    early = _route_first(situation.page, _via(task), situation)
    if early is not None:
        return early
    if isinstance(task, Search):
        return _search(task, situation)
    if isinstance(task, Assign):
        return _assign(task, situation)
    return _press(task, situation)


def find_fill(task: Assign, page: Page) -> Fill | None:
    """The field an Assign sets on this page, with the value to give it (a "label value"
    text is also read with its label in the page's language)."""
    if task.keys:
        return _field_by_keys(task, page)
    for text in (task.text, *relabelled(task.text, page.lang)):
        found = _field_by_text(replace(task, text=text), page)
        if found is not None:
            return found
    return None


def _in_language(task: PageTask, lang: str) -> PageTask:
    """The task with the words of the page's language after its English ones: the names of
    what it clicks, the fields it fills, the links on its way."""
    if not language(lang):
        return task
    if isinstance(task, Press):
        return replace(task, phrases=also(task.phrases, lang), via=also(task.via, lang))
    if isinstance(task, Assign):
        return replace(task, keys=also(task.keys, lang), via=also(task.via, lang))
    return task


# ---- tasks -----------------------------------------------------------------------------


def reach(task: Reach, situation: Situation) -> Outcome:
    page = situation.page
    if any(covers(h.name, task.phrase) for h in page.headings() if h.role == "h1"):
        return Done()
    if _titled(page.title, task.phrase):
        return Done()
    if re.fullmatch(r"#\d+", task.phrase):  # a number: its link says it, never "1.6"
        link = next((e for e in page.interactive() if _numbered(e.name, task.phrase)), None)
    else:
        link = _best_clickable(page, (task.phrase,), prefer=("link", "tab", "menuitem"))
    if link is not None and _offers_to_make(link.name, task.phrase):
        link = None  # "Create the page X" leads to a form for X, not to X
    if link is not None and not points_here(link, page):
        return Action("click", {"selector": link.selector}, f"open {link.describe()}")
    searched = "search" in situation.prepared
    box = search_box(page)
    if task.search and not searched and box is not None:
        return Action(
            "enter_text",
            {"selector": box.selector, "text": task.phrase, "press_enter": True},
            f'search the site for "{task.phrase}" to find its link',
            phase="prepare",
            kind="search",
        )
    more = next_page(page) if searched and situation.prepared.count("page") < _PAGES else None
    if more is not None:  # the results go on: a person looks at the next page of them
        note = f'look for "{task.phrase}" on the next page of results ({more.describe()})'
        return Action("click", {"selector": more.selector}, note, phase="prepare", kind="page")
    place = kept_at(page, task.kind, situation) if task.kind else None
    if place is not None:
        return place
    tried = " (I searched the site for it)" if searched else ""
    if "place" in situation.prepared:
        tried += f" (and where the site keeps its {task.kind}s)"
    return Blocked(f'could not find a link to "{task.phrase}" on {where(page)}{tried}')


def _numbered(name: str, number: str) -> bool:
    """A link's name says the thing's number: "#14" in it, or the bare number alone."""
    said = re.search(rf"(?<![\w.#]){re.escape(number)}(?![\w.])", name)
    return said is not None or name.strip() == number[1:]


def _titled(title: str, phrase: str) -> bool:
    """The page's title begins with the thing's name, as its own page's does ("#7 (Crash on
    start) – Tracker", "Gamma – Wiki"); a page of results for it does not."""
    first = re.split(r"\s+[–—|·-]\s+", title.strip(), maxsplit=1)[0]
    wanted, have = content_words(phrase), words(first)
    return bool(wanted) and have[: len(wanted)] == wanted


# Words of a link's name that make it an offer to make or change the thing it names.
_MAKING = frozenset({"create", "new", "add", "make", "start", "edit", "write"})


def _offers_to_make(name: str, phrase: str) -> bool:
    """The link named ``name`` offers to make or edit ``phrase``, not to open it: "Create
    the page X", "Edit X". A name that holds the phrase whole is the thing's own link
    unless it starts with such a word ("Bug #3 (New): X" is X's, its status says New)."""
    said, wanted = content_words(name), content_words(phrase)
    if holds_whole(name, phrase):
        return bool(said) and said[0] in _MAKING and said[0] not in wanted
    return bool((set(said) - set(wanted)) & _MAKING)


def _search(task: Search, situation: Situation) -> Outcome:
    page = situation.page
    box = scoped_box(page, task.scope) if task.scope else search_box(page)
    if box is None and task.scope and not task.strict:
        box = search_box(page)
    if box is not None:
        return Action(
            "enter_text",
            {"selector": box.selector, "text": task.query, "press_enter": True},
            f'search for "{task.query}" in {box.describe()}',
        )
    route = _route(page, _via(task), situation, menus=True)
    if route is not None:
        return route
    what = f"{task.scope} search box" if task.scope else "search box"
    return Blocked(f"could not find a {what} on {where(page)}{menus_opened(situation.tried)}")


def _assign(task: Assign, situation: Situation) -> Outcome:
    page = situation.page
    if task.read_from:
        shown = _value_shown_for(page, task.read_from)
        if shown is None:
            return Blocked(f'could not find the value of "{task.read_from}" on {where(page)}')
        task = replace(task, value=shown, read_from="")
    fill = find_fill(task, page)
    if fill is None:
        route = _route(page, task.via, situation, menus=True)
        if route is not None:
            return route
        opened = menus_opened(situation.tried)
        return Blocked(
            f"could not find a field or option for {_wanted(task)} on {where(page)}{opened}"
        )
    element = fill.element
    if fill.how == "type":
        return Action(
            "enter_text",
            {"selector": element.selector, "text": fill.value},
            f'type "{_shown(element, fill.value)}" into {element.describe()}',
        )
    if fill.how == "select":
        return choose(element, best_option(element.options, fill.value), fill.value, page)
    if "checked" in element.states:
        return Done()
    return Action("click", {"selector": element.selector}, f"click {element.describe()}")


def _press(task: Press, situation: Situation) -> Outcome:
    page = situation.page
    if task.nth:
        return _press_nth(task, page)
    prefer = (task.role,) if task.role else ("button", "link", "tab")
    target = _best_clickable(page, task.phrases, prefer=prefer)
    if target is None:
        target = _form_button(page, task.phrases)
    if target is None:
        tab = _next_tab(page, situation.prepared.count("explore"))
        if tab is not None:
            return Action(
                "click",
                {"selector": tab.selector},
                f'open {tab.describe()} to look for "{task.phrases[0]}"',
                "prepare",
                "explore",
            )
    if target is not None:
        if target.role in TOGGLE_ROLES and "checked" in target.states:
            return Done()
        if task.hover:  # a step of a menu path: pointing at it opens its submenu
            return Action("hover", {"selector": target.selector}, f"point at {target.describe()}")
        return Action("click", {"selector": target.selector}, f"click {target.describe()}")
    route = _route(page, task.via, situation, menus=True)
    if route is not None:
        return route
    menu = next_menu(page, situation.tried) if not task.nth else None
    if menu is not None:
        return open_menu(menu, f'"{task.phrases[0]}"')
    kind = task.role or "button or link"
    opened = menus_opened(situation.tried)
    return Blocked(f'could not find a {kind} named "{task.phrases[0]}" on {where(page)}{opened}')


_SUGGESTION_LOOKS = 1


def _suggest(task: Suggest, situation: Situation) -> Outcome:
    """The first suggestion shown that fits; a second look when none is shown yet (lists
    of suggestions often open a moment after typing)."""
    page = situation.page
    fits = [
        e
        for e in page.interactive()
        if e.clickable
        and e.name.casefold().startswith(task.prefix.casefold())
        and e.name.casefold().endswith(task.suffix.casefold())
        and e.name.casefold() != task.prefix.casefold()
    ]
    if fits:
        return Action("click", {"selector": fits[0].selector}, f"choose {fits[0].describe()}")
    if situation.prepared.count("look") < _SUGGESTION_LOOKS:
        note = "look again for the suggestions"
        return Action("get_dom", {"content_type": "all_fields"}, note, "prepare", "look")
    return Blocked(f"could not find a suggestion that fits ({task.describe()}) on {where(page)}")


def _press_nth(task: Press, page: Page) -> Outcome:
    """'The 3rd checkbox': the nth visible element of the role, counted in page order."""
    roles = TEXT_ROLES if task.role == "textbox" else {task.role}
    same = [e for e in page.interactive() if e.role in roles]
    if task.nth == ONLY:
        if len(same) != 1:
            return Blocked(
                f"could not tell which {task.role} is meant: {where(page)} has {len(same)}"
            )
        return Action("click", {"selector": same[0].selector}, f"click {same[0].describe()}")
    if len(same) < task.nth:
        return Blocked(
            f"could not find a {task.describe().removeprefix('click the ')}: there are "
            f"{len(same)} {task.role or 'element'}s on {where(page)}"
        )
    target = same[task.nth - 1]
    if target.role in TOGGLE_ROLES and "checked" in target.states:
        return Done()
    return Action("click", {"selector": target.selector}, f"click {target.describe()}")


#: What commands call the button that sends a form, when the form's button says otherwise.
_SUBMIT_WORDS = ("submit", "login", "log in", "sign in", "send", "search", "go", "ok", "save")


def _form_button(page: Page, phrases: tuple[str, ...]) -> Element | None:
    """For 'press login' on a form whose only button says "OK": the button that follows
    the form's text fields, when it is the only one there."""
    if not any(joined(p) in {joined(w) for w in also(_SUBMIT_WORDS, page.lang)} for p in phrases):
        return None
    elements = page.interactive()
    fields = [i for i, e in enumerate(elements) if e.role in TEXT_ROLES]
    if not fields:
        return None
    after = [e for e in elements[fields[-1] + 1 :] if e.role == "button"]
    buttons = [e for e in elements if e.role == "button"]
    if len(after) == 1:
        return after[0]
    return buttons[0] if len(buttons) == 1 else None


def _next_tab(page: Page, explored: int) -> Element | None:
    """The next tab not shown yet, for a target that may be on another tab."""
    hidden = [e for e in page.interactive() if e.role == "tab" and "selected" not in e.states]
    return hidden[explored] if explored < len(hidden) else None


def _value_shown_for(page: Page, label: str) -> str | None:
    """The text the page shows next to ``label`` (a table or list of label and value)."""
    for index, text in enumerate(page.texts[:-1]):
        if joined(text) == joined(label):
            return page.texts[index + 1]
    return None


def _dismiss(task: Dismiss, situation: Situation) -> Outcome:
    page = situation.page
    if not page.modal and task.via and "link" not in situation.prepared:
        route = _route(page, task.via, situation)
        if route is not None:
            return route
    button = consent_button(page, task.choice or "dismiss")
    if button is None:
        wanted = task.choice or "dismiss"
        return Blocked(f"could not find a dialog or cookie banner to {wanted} on {where(page)}")
    return Action("click", {"selector": button.selector}, f"click {button.describe()}")


# ---- matching --------------------------------------------------------------------------


def _via(task: Search | Assign | Press) -> tuple[str, ...]:
    """The names of the links on the way to the page where the task is done (a search's
    scope: "stores" for the store search)."""
    if isinstance(task, Search):
        return (task.scope,) if task.scope else ()
    return task.via


def _route_first(page: Page, via: tuple[str, ...], situation: Situation) -> Action | None:
    """A link to the task's page when the page shown is not it (its headings and title say)."""
    texts = [page.title, *(h.name for h in page.headings())]
    if not via or any(covers(text, phrase) for text in texts for phrase in via):
        return None
    return _route(page, via, situation)


def _route(
    page: Page, via: tuple[str, ...], situation: Situation, menus: bool = False
) -> Action | None:
    """A link towards the page where the task can be done, at most two hops per task: never
    one to this page, a checkbox, or a form's own button (that sends the form, it leads
    nowhere); with ``menus``, else a menu that may hold that link, opened."""
    if not via or situation.prepared.count("link") >= 2:
        return None
    link = _best_clickable(
        page, via, prefer=("link", "tab", "menuitem", "button"), usable=_leads_elsewhere(page)
    )
    if link is None:
        menu = next_menu(page, situation.tried) if menus else None
        return open_menu(menu, f'a link "{via[0]}"') if menu is not None else None
    return Action(
        "click",
        {"selector": link.selector},
        f"open {link.describe()} to get to the right page",
        "prepare",
        "link",
    )


def _best_clickable(
    page: Page,
    phrases: tuple[str, ...],
    prefer: tuple[str, ...] = (),
    usable: Callable[[Element], bool] | None = None,
) -> Element | None:
    """The clickable element whose name (or label) holds every word of one of the phrases
    (among those ``usable`` says may serve)."""
    scored = []
    for element in page.interactive():
        if not element.clickable or (usable is not None and not usable(element)):
            continue
        for rank, phrase in enumerate(phrases):
            if not _names(element, phrase):
                continue
            exact = joined(element.name) == joined(phrase)
            scored.append(
                (
                    element.role in prefer,
                    exact,
                    -rank,
                    covers(element.name, phrase),
                    precision(phrase, element.name),
                    -element.position,
                    element,
                )
            )
    return max(scored, key=lambda s: s[:-1])[-1] if scored else None


def _leads_elsewhere(page: Page) -> Callable[[Element], bool]:
    """Whether an element may lead to another page: not a link to this one, a checkbox or
    a form's submit button."""

    def leads(element: Element) -> bool:
        submits = element.role == "button" and element.attrs.get("type") == "submit"
        return not (points_here(element, page) or element.role in TOGGLE_ROLES or submits)

    return leads


#: Marks a command uses for a close button, which pages name "Close" in words.
_CLOSE_MARKS = frozenset({"x", "\u00d7", "\u2715", "\u2716"})


def _names(element: Element, phrase: str) -> bool:
    """True when the element's name or identifying attributes hold every word of the phrase
    (an "x" names a close button)."""
    if phrase.strip().lower() in _CLOSE_MARKS and element.role == "button":
        return bool({"close", "dismiss"} & element.label_words) or element.name in _CLOSE_MARKS
    if element.name and joined(element.name) == joined(phrase):
        return True  # 'the link "In"': a name made only of small words is still a name
    wanted = content_words(phrase)
    if not wanted:
        return False
    if covers(element.name, phrase):
        return True
    return all(w in element.label_words for w in wanted)


#: Words that say "a text field" without naming one.
_ANY_FIELD = frozenset({"text", "textbox", "textfield", "textarea", "entry", "area", "single"})


def _field_by_keys(task: Assign, page: Page) -> Fill | None:
    fields = [e for e in page.interactive() if e.role in TEXT_ROLES | CHOICE_ROLES]
    for key in task.keys:
        wanted = content_words(key)
        if not set(wanted) - _ANY_FIELD:  # "the text field": the page's only one
            typed = [e for e in fields if e.role in TEXT_ROLES and not e.is_password]
            if len(typed) == 1:
                return Fill(typed[0], task.value, "type")
            continue
        found = [e for e in fields if wanted and all(w in e.label_words for w in wanted)]
        if found:
            best = max(found, key=lambda e: (_completeness(wanted, e), -e.position))
            how = "select" if best.role in CHOICE_ROLES else "type"
            return Fill(best, task.value, how)
    return None


def _field_by_text(task: Assign, page: Page) -> Fill | None:
    """Split "label value" by the page's labels; or find the toggle or button the text names."""
    tokens = list(re.finditer(r"\S+", task.text))
    best: tuple[tuple[int, float, int], Fill] | None = None
    for element in page.interactive():
        if element.role not in TEXT_ROLES | CHOICE_ROLES:
            continue
        matched, start = _label_prefix(tokens, element)
        if not matched or start >= len(task.text):
            continue
        value = unquote(_VALUE_LEAD.sub("", task.text[start:].strip()))
        if not value:
            continue
        score = (matched, _completeness(content_words(task.text), element), -element.position)
        how = "select" if element.role in CHOICE_ROLES else "type"
        if best is None or score > best[0]:
            best = (score, Fill(element, value, how))
    if best is not None:
        return best[1]
    toggles = [
        e for e in page.interactive() if e.role in TOGGLE_ROLES and covers(e.name, task.text)
    ]
    if toggles:
        return Fill(max(toggles, key=lambda e: precision(task.text, e.name)), "", "tick")
    if task.clicks:
        target = _best_clickable(page, (task.text,), prefer=("button", "link", "tab"))
        if target is not None:
            return Fill(target, "", "click")
    return None


def _label_prefix(tokens: list[re.Match[str]], element: Element) -> tuple[int, int]:
    """How many words at the start of the text name this element, and where the rest begins."""
    labels = element.label_words
    matched, start = 0, 0
    for token in tokens:
        if PLACEHOLDER.fullmatch(token.group(0)):  # "{PASSWORD}" is a secret's value
            break
        token_words = content_words(token.group(0))
        if not token_words:
            if matched:
                break
            start = token.end()
            continue
        if not all(w in labels for w in token_words):
            break
        matched += len(token_words)
        start = token.end()
    return matched, start


def _completeness(wanted: list[str], element: Element) -> float:
    """The share of the element's name that the wanted words account for."""
    name = content_words(element.name) or list(element.label_words)
    return sum(1 for w in name if w in wanted) / len(name) if name else 0.0


def best_option(options: tuple[Option, ...], wanted: str) -> Option | None:
    """The option whose label or value says ``wanted`` ("price low to high" -> "Price: low to
    high", never "Price: high to low")."""
    scored = []
    for option in options:
        if not option.value:
            continue
        if joined(option.label) == joined(wanted) or option.value.lower() == wanted.lower():
            return option
        if covers(option.label, wanted) or covers(wanted, option.label):
            scored.append((closeness(option.label, wanted), option))
    return max(scored, key=lambda s: s[0])[1] if scored else None


def _wanted(task: Assign) -> str:
    return f'{task.keys[0]} "{task.value}"' if task.keys else f'"{task.text}"'


def _shown(element: Element, value: str) -> str:
    return "(the password)" if element.is_password else value
