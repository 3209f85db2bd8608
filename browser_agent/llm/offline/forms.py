"""Doing everyday application work on the page, the ways a person tries them: the site's
own control for the verb (by role and name: "New page", "+ New issue", "Edit", "Delete"),
the form's fields by their labels, placeholders and names, the form's own button, and a
confirmation the site asks for. Nothing names a site; when no control fits, the answer
says which verb, what was looked for and on which page."""

from __future__ import annotations

import ast
import re
from functools import cache
from urllib.parse import quote, unquote_plus, urljoin, urlsplit, urlunsplit

from browser_agent.llm.offline.boxes import search_box, sent_as_search
from browser_agent.llm.offline.dialogs import modal_first
from browser_agent.llm.offline.filters import narrow, order
from browser_agent.llm.offline.form_tasks import (
    SAVE_WORDS,
    SETTINGS_WORDS,
    TEXT_KEYS,
    TITLE_KEYS,
    Confirm,
    Control,
    FormTask,
    Narrow,
    Order,
    Save,
    Setting,
    Write,
    thing,
)
from browser_agent.llm.offline.languages import also, language
from browser_agent.llm.offline.menus import is_toggle, menus_opened, next_menu, open_menu
from browser_agent.llm.offline.outcome import Action, Blocked, Done, Outcome, Situation, choose
from browser_agent.llm.offline.page import (
    CHOICE_ROLES,
    TEXT_ROLES,
    TOGGLE_ROLES,
    Element,
    Page,
    points_here,
)
from browser_agent.llm.offline.places import kept_at, own_settings, settings_link
from browser_agent.llm.offline.resolve import best_option
from browser_agent.llm.offline.words import content_words, holds_whole, joined, words

#: Said when nothing on the page fits: a person can show the way once.
RECORD = "; show the way once with `browser-agent record` and it is learnt"
#: Words a control's name may hold beside its verb and the thing's own words.
_FILLER = (
    "this",
    "the",
    "a",
    "an",
    "new",
    "it",
    "item",
    "entry",
    "one",
    "page",
    "now",
    "changes",
    "my",
)
#: A page (or a dialog on it) that asks before it removes something.
_ASKING = re.compile(
    r"\b(?:are you sure|really|confirm|cannot be undone|can ?not be undone|can't be undone|"
    r"permanently|do you want to)\b",
    re.IGNORECASE,
)
_CONFIRM_WORDS = ("yes", "confirm", "ok", "delete", "remove", "archive", "trash", "continue")
_REFUSE_WORDS = ("cancel", "no", "keep", "back", "close", "not")
_DIALOG = re.compile(r"A confirm dialog said (?P<said>'[^']*'|\"[^\"]*\"); it was (?P<how>\w+)")


def do_form_task(task: FormTask, situation: Situation) -> Outcome:
    """The next step of a create / edit / remove task on the page."""
    if isinstance(task, Confirm):  # its dialog is the point: never closed as in the way
        return _confirm(task, situation)
    modal = modal_first(task, situation)
    if modal is not None:
        return modal
    if isinstance(task, Control):
        return _control(task, situation)
    if isinstance(task, Write):
        return _write(task, situation)
    if isinstance(task, Setting):
        return _setting(task, situation)
    if isinstance(task, Narrow):
        return narrow(task, situation)
    if isinstance(task, Order):
        return order(task, situation)
    return _save(task, situation.page)


# ---- the verb's control ----------------------------------------------------------------


def _control(task: Control, situation: Situation) -> Outcome:
    """Click the site's control for the verb; on its form already, nothing to do. A control
    the page does not show may be in a menu (opened, one at a time); one to create a thing
    may be offered by the site's search for its name ("Create the page X")."""
    page = situation.page
    astray = "admin" in situation.prepared and "place" not in situation.prepared
    if task.verb == "create" and not astray and _on_form(page, "create", task.noun):
        return Done()  # its own button says Create too: never sent empty
    # (the administration's first page may hold any form: only its kind's page is the one)
    verbs = also(task.words, page.lang)
    found = _controls(page, verbs, task.noun, task.target)
    if found is None and task.verb == "create":
        found = _offered(page, verbs, task.target)
    if found is not None and task.verb == "create" and _elsewhere(found, task, page):
        found = None  # a bare "New" away from the kind's list may make another kind
    if found is not None:
        return Action("click", {"selector": found.selector}, f"click {found.describe()}")
    if task.verb == "edit" and _on_form(page, "edit", task.noun):
        return Done()
    named = ", ".join(w if w == "+" else w.capitalize() for w in verbs)
    menu = next_menu(page, situation.tried, prefer=verbs, only=True)
    if menu is not None:  # "+": a menu of things to make
        return open_menu(menu, f"a control to {task.describe()}")
    kept = _kept_at(page, task, situation)
    if kept is not None:
        return kept
    box = search_box(page)
    searched = "search" in situation.prepared
    if task.verb == "create" and task.target and box is not None and not searched:
        note = f'search the site for "{task.target}", which may offer to create it'
        arguments = {"selector": box.selector, "text": task.target, "press_enter": True}
        return Action("enter_text", arguments, note, phase="prepare", kind="search")
    address = _own_address(page, task, situation) if searched else None
    if address is not None:
        return address
    admin = _admin(page, task, situation)
    if admin is not None:
        return admin
    settings = own_settings(page, task, situation)
    if settings is not None:
        return settings
    menu = next_menu(page, situation.tried, prefer=verbs)
    if menu is not None:
        return open_menu(menu, f"a control to {task.describe()}")
    return Blocked(
        f"no control to {task.describe()} on {page.url}: looked for links or buttons named "
        f"{named}{_looked_through(situation)}{RECORD}"
    )


@cache
def _filler(lang: str) -> frozenset[str]:
    """The words a control's name may hold beside its verb, in the page's language too."""
    return frozenset(words(" ".join(also(_FILLER, lang))))


def _asks(text: str, lang: str) -> bool:
    """The text asks before removing something, in English or the page's language."""
    if _ASKING.search(text):
        return True
    said = " ".join(words(text))
    asking = also(("are you sure",), lang)[1:]
    return any(f" {' '.join(words(p))} " in f" {said} " for p in asking)


def _looked_through(situation: Situation) -> str:
    """What was looked through besides the page: its menus, the site's search, the place
    its things are kept."""
    searched = " (and in the site's search)" if "search" in situation.prepared else ""
    kept = " (and where the site keeps them)" if "place" in situation.prepared else ""
    own = " (and at its own address)" if "address" in situation.prepared else ""
    return f"{menus_opened(situation.tried)}{searched}{kept}{own}"


#: The names of the link to a site's own administration, where it keeps its lists of things.
_ADMIN_WORDS = ("admin", "administration", "manage", "site admin", "dashboard")


def _kept_at(page: Page, task: Control, situation: Situation) -> Action | None:
    """Where the site keeps things of the kind to create (see :func:`kept_at`)."""
    return kept_at(page, task.noun, situation) if task.verb == "create" else None


def _own_address(page: Page, task: Control, situation: Situation) -> Action | None:
    """The new thing's own address, made as the site makes the addresses of things of its
    kind, once per task: under an address the run has been at or a link goes to whose path
    ends in a word of the kind (/wiki, or /wiki/TracGuide for a wiki page), the new thing's
    name. A wiki offers to create a page where its address is opened. Things kept by number
    are not reached this way."""
    kind = set(content_words(task.noun))
    if task.verb != "create" or not task.target or not kind or "address" in situation.prepared:
        return None
    links = [
        urljoin(page.url, element.attrs["href"])
        for element in page.interactive()
        if element.role == "link" and element.attrs.get("href", "").startswith(("/", "http"))
    ]
    site = urlsplit(page.url).netloc
    for seen in [*reversed(situation.visited), *links]:
        url = urlsplit(seen)
        parts = [unquote_plus(part) for part in url.path.split("/") if part]
        if url.netloc != site or not parts:
            continue
        if parts[-1].lower() in kind:
            under = parts
        elif len(parts) > 1 and parts[-2].lower() in kind and not parts[-1].isdigit():
            under = parts[:-1]
        else:
            continue
        name = task.target.replace(" ", "_") if "_" in parts[-1] else task.target
        path = "/".join(["", *(quote(part) for part in [*under, name])])
        address = urlunsplit((url.scheme, url.netloc, path, "", ""))
        note = f"open {address}, where this site keeps a {task.noun} by its name"
        return Action("open_url", {"url": address}, note, phase="prepare", kind="address")
    return None


def _admin(page: Page, task: Control, situation: Situation) -> Action | None:
    """The link to the site's administration, once per task, when nothing else made the
    thing: there the site lists the kinds of things it keeps (then see :func:`_kept_at`)."""
    if task.verb != "create" or not task.noun or {"admin", "place"} & set(situation.prepared):
        return None
    names = {joined(n) for n in also(_ADMIN_WORDS, page.lang)}
    for element in page.interactive():
        if element.role in ("link", "tab") and joined(element.name) in names:
            note = f"open {element.describe()}, where the site may keep its {task.noun}s"
            arguments = {"selector": element.selector}
            return Action("click", arguments, note, phase="prepare", kind="admin")
    return None


def _controls(page: Page, verbs: tuple[str, ...], noun: str, target: str) -> Element | None:
    """The link or button whose name is the verb, maybe with the thing's own words ("New
    page", "+ New issue", "Delete this page", "Create the page X on this wiki"); of several,
    the one whose address names the thing (its "Edit", not a sidebar's), then the one after
    the thing's name. A "+" that only opens a menu is not one (see menus)."""
    stems = [stem for verb in verbs for stem in (words(verb) or [verb])]
    own = set(words(noun)) | set(words(target))
    anchors = [e.position for e in page.elements if target and _says(e.name, target)]

    def foreign(extra: set[str]) -> bool:
        """One word beside the verb on a page in another language: the thing's own noun in
        that language ("Neue Meldung" for a new issue), ranked after a control without it."""
        return bool(language(page.lang)) and len(extra) == 1

    scored = []
    for element in page.interactive():
        if not element.clickable or element.role in TOGGLE_ROLES or points_here(element, page):
            continue
        said = words(element.name)
        if element.name.strip() == "+" and "+" in stems:
            if is_toggle(element):
                continue
            rank, nouny, plain = stems.index("+"), False, True
        else:
            hits = [i for i, stem in enumerate(stems) if stem in said]
            extra = set(said) - set(stems) - own - _filler(page.lang)
            if not hits or extra and not holds_whole(element.name, target) and not foreign(extra):
                continue
            rank, nouny = min(hits), bool(set(said) & set(words(noun)))
            plain = not extra or holds_whole(element.name, target)
        before = [element.position - a for a in anchors if a < element.position]
        near = min(before) if before else 10_000
        address = _addresses(element, target, page)
        under = _under_kind(element, noun, page)
        scored.append(((nouny, plain, -rank, address, under, -near, -element.position), element))
    return max(scored, key=lambda s: s[0])[1] if scored else None


def _under_kind(element: Element, noun: str, page: Page) -> bool:
    """The heading the control follows names the kind ("Add New" under "Pages", not the
    header's "New" before any heading)."""
    kind = set(words(noun))  # "page" too, a stopword elsewhere
    heads = [e for e in page.elements[: element.position] if e.is_heading]
    return bool(kind and heads) and kind <= set(words(heads[-1].name))


def _addresses(element: Element, target: str, page: Page) -> bool:
    """The control's address is the thing's: it names the thing (/wiki/Contacts/edit for
    "Contacts") or goes on from the address of the thing's page (/issues/2/edit on
    /issues/2), as a sidebar's or a menu's own Edit does not."""
    href = unquote_plus(element.attrs.get("href", ""))
    if not href or href.startswith(("#", "javascript:")):
        return False
    path = urlsplit(href).path
    if page.path != "/" and path.startswith(f"{page.path.rstrip('/')}/"):
        return True
    return holds_whole(href, target) if target else False


def _elsewhere(control: Element, task: Control, page: Page) -> bool:
    """A control to make something that names neither the kind nor the new thing ("New",
    "+"), on a page that is not the list of the kind asked for (its title, main heading and
    address do not name it): it may make another kind (a dashboard's "New" makes a post)."""
    kind = set(content_words(task.noun))
    if not kind or kind & set(words(control.name)) or holds_whole(control.name, task.target):
        return False  # "New user", or "Create "Slow start"" offered for the new thing
    heads = [page.title, page.path, *(h.name for h in page.headings() if h.role == "h1")]
    return not any(kind <= set(words(text)) for text in heads)


def _offered(page: Page, verbs: tuple[str, ...], target: str) -> Element | None:
    """A link named by the new thing's name inside a sentence that offers to create it
    ("Create the page "X" on this wiki!", its link the name alone)."""
    stems = {stem for verb in verbs for stem in words(verb)}
    for element in page.interactive():
        before = page.elements[element.position - 1] if element.position else None
        if element.role != "link" or not target or not holds_whole(element.name, target):
            continue
        if before is not None and before.is_text and stems & set(words(before.name)):
            return element
    return None


def _says(text: str, phrase: str) -> bool:
    return bool(content_words(phrase)) and set(content_words(phrase)) <= set(words(text))


def _on_form(page: Page, verb: str, noun: str) -> bool:
    """The page is already the form of the verb: a field to write and a button named for
    saving it ("Create ticket", "Save page"; a dashboard's "Save Draft" form is another
    thing's)."""
    fields = [e for e in _fields(page) if e.role in TEXT_ROLES]
    if verb == "create":
        fields = [e for e in fields if _labelled(e, also(TITLE_KEYS, page.lang))]
    button = _save_button(page, verb, noun, named=True)
    return button is not None and any(_same_part(field, button, page) for field in fields)


def _same_part(field: Element, button: Element, page: Page) -> bool:
    """The button follows the field within one part of the page: no heading between them
    (a dashboard's panels each have a form of their own)."""
    between = page.elements[field.position + 1 : button.position]
    return field.position < button.position and not any(e.is_heading for e in between)


# ---- the form's fields -----------------------------------------------------------------


def _fields(page: Page) -> list[Element]:
    """The fields a form is filled in with: text fields and drop-downs, never the site's
    search box or a password."""
    return [
        e
        for e in page.interactive()
        if e.role in TEXT_ROLES | CHOICE_ROLES
        and e.role != "searchbox"
        and e.attrs.get("type") != "search"
        and not sent_as_search(e)
        and not e.is_password
    ]


def _labelled(element: Element, keys: tuple[str, ...]) -> bool:
    return any(
        content_words(key) and set(content_words(key)) <= element.label_words for key in keys
    )


def _field_for(task: Write, page: Page) -> Element | None:
    """The field for the task's label: by its label, placeholder or name, the command's own
    word first; a text is also the form's only other text field."""
    fields = _fields(page)
    for key in also(task.keys, page.lang):
        wanted = content_words(key)
        found = [e for e in fields if wanted and set(wanted) <= e.label_words]
        found = [e for e in found if _takes(e, task.value)] or found
        if found:
            return max(found, key=lambda e: (_share(wanted, e), -e.position))
    if task.keys and task.keys[0] in TEXT_KEYS or task.label in TEXT_KEYS:
        titles = also(TITLE_KEYS, page.lang)
        rest = [e for e in fields if e.role in TEXT_ROLES and not _labelled(e, titles)]
        if len(rest) == 1:
            return rest[0]
    return None


def _takes(field: Element, value: str) -> bool:
    """The field can hold the value: any but a drop-down, or one offering it (of a
    drop-down and a text box of one label, "User name", the box takes a new name)."""
    if not value or field.role not in CHOICE_ROLES:
        return True
    return best_option(field.options, value) is not None


def _share(wanted: list[str], element: Element) -> float:
    """How much of the element's name the wanted words are (its label before its text)."""
    name = words(element.name)[:4] or sorted(element.label_words)
    return sum(1 for w in name if w in wanted) / len(name)


def _write(task: Write, situation: Situation) -> Outcome:
    page = situation.page
    field = _field_for(task, page)
    if _title_given(task, field, page):
        return Done()  # a form opened for the thing already named ("Creating "X"")
    if field is None and "part" not in situation.prepared:
        button = _first_part(page)
        if button is not None:
            note = f"click {button.describe()}: the form asks for the rest on its next page"
            arguments = {"selector": button.selector}
            return Action("click", arguments, note, phase="prepare", kind="part")
    if field is None:
        keys = ", ".join(k.capitalize() for k in task.keys)
        return Blocked(
            f"no field for the {task.label} of {thing(task.noun, '')} on {page.url}: looked "
            f"for fields labelled {keys}{RECORD}"
        )
    opener = None if "open" in situation.prepared else _opener(field, page)
    if opener is not None:  # "reassign to [owner]": the choice that opens the field first
        note = f"choose {opener.describe()}, which opens {field.describe()}"
        return Action("click", {"selector": opener.selector}, note, phase="prepare", kind="open")
    if field.role in CHOICE_ROLES:
        return _choose(task, field, page)
    value, held = task.value, field.attrs.get("value", "")
    if task.append:
        if held.endswith("\u2026"):  # shown cut short: read it whole first
            if "read" not in situation.prepared:
                note = f"read what {field.describe()} holds, to add to it"
                selector = {"selector": field.selector}
                return Action("extract_text", selector, note, phase="prepare", kind="read")
            whole = _read_back(situation.read)
            if whole is None or not joined(whole).startswith(joined(held[:-1])):
                return _add_after(task, field)  # a plain text area: added after what it holds
            held = whole
        if _holds(held, value):
            return Done()
        value = f"{held.rstrip()} {value}" if held.strip() else value
    elif held == value:
        return Done()
    how = "add" if task.append else "type"
    return Action(
        "enter_text",
        {"selector": field.selector, "text": value},
        f'{how} "{task.value}" in {field.describe()}',
    )


def _setting(task: Setting, situation: Situation) -> Outcome:
    """Nothing to do on a page with the setting's field; else open the site's (or the
    thing's) settings, each such link once, in the order the page shows them."""
    page = situation.page
    if _field_for(Write(task.label, task.keys, ""), page) is not None:
        return Done()
    opened = settings_link(page, situation, f"where the {task.label} may be set")
    if opened is not None:
        return opened
    keys = ", ".join(k.capitalize() for k in task.keys)
    named = ", ".join(w.capitalize() for w in also(SETTINGS_WORDS, page.lang))
    return Blocked(
        f"no field for the {task.label} on {page.url}: looked for fields labelled {keys}, "
        f"and for links named {named}{RECORD}"
    )


def _first_part(page: Page) -> Element | None:
    """The "Next" of a form in parts (a wiki's new page: its title, then its text on the
    next page): a button named Next or Continue after a text field, with no heading
    between; None otherwise."""
    named = {joined(word) for word in also(_NEXT_WORDS, page.lang)}
    fields = [e for e in _fields(page) if e.role in TEXT_ROLES]
    for button in page.interactive():
        if (
            button.role == "button"
            and joined(button.name) in named
            and any(_same_part(field, button, page) for field in fields)
        ):
            return button
    return None


#: The names of the button that takes a form in parts to its next page.
_NEXT_WORDS = ("next", "continue", "next step")


def _add_after(task: Write, field: Element) -> Action:
    """Type the value after what the field holds, kept as it is (the field's whole text is
    more than the page shows)."""
    arguments = {"selector": field.selector, "text": task.value, "append": True}
    return Action("enter_text", arguments, f'add "{task.value}" in {field.describe()}')


def _title_given(task: Write, field: Element | None, page: Page) -> bool:
    """The form was opened for the thing already named: the page's title or main heading
    holds its title whole, and no field is labelled Title, Subject or Name (a "Summary" of
    the change is not the thing's title)."""
    if task.label != "title" or task.append:
        return False
    if field is not None and _labelled(field, also(TITLE_KEYS[:3], page.lang)):
        return False
    heads = [page.title, *(h.name for h in page.headings() if h.role in ("h1", "h2"))]
    return any(holds_whole(text, task.value) for text in heads)


def _opener(field: Element, page: Page) -> Element | None:
    """The unticked radio button or checkbox just before a disabled field, which a form
    ticks to open it ("reassign to" before the new owner's box); None when the field is
    enabled or nothing before it opens it."""
    if "disabled" not in field.states:
        return None
    before = [e for e in page.elements[: field.position] if not e.is_text][-2:]
    toggles = [e for e in before if e.role in ("radio", "checkbox") and "checked" not in e.states]
    return toggles[-1] if toggles else None


def _choose(task: Write, field: Element, page: Page) -> Outcome:
    """The option the command names, chosen even when the form already shows it: a value
    of the command is a step of its own, so that a skill learnt from the run takes it as a
    parameter (a form's default role is not the role of every user made with it)."""
    option = best_option(field.options, task.value)
    if option is not None and option.selected:
        arguments = {"selector": field.selector, "option": option.value or option.label}
        return Action("select_option", arguments, f'choose "{option.label}" in {field.describe()}')
    return choose(field, option, task.value, page)


def _holds(held: str, value: str) -> bool:
    return bool(value) and joined(value) in joined(held)


def _read_back(response: str) -> str | None:
    """The text an extract_text answer quotes (between the page-content markers)."""
    found = re.search(r"^(?P<q>'.*'|\".*\")$", response, re.MULTILINE)
    if not found:
        return None
    try:
        text = ast.literal_eval(found["q"])
    except (ValueError, SyntaxError):
        return None
    return re.sub(r"\s*… \(\d+ more characters\)$", "", text) if isinstance(text, str) else None


# ---- the form's button -----------------------------------------------------------------


def _save(task: Save, page: Page) -> Outcome:
    button = _save_button(page, task.verb, task.noun)
    if button is not None:
        return Action("click", {"selector": button.selector}, f"click {button.describe()}")
    named = ", ".join(w.capitalize() for w in also(SAVE_WORDS[task.verb][:5], page.lang))
    return Blocked(
        f"no button to {task.describe()} on {page.url}: looked for buttons named {named}{RECORD}"
    )


def _save_button(page: Page, verb: str, noun: str, named: bool = False) -> Element | None:
    """The form's button: named by a saving word (and the thing's words), after the form's
    fields; else (unless it must be ``named`` so) the only button that follows them."""
    stems = [w for word in also(SAVE_WORDS[verb], page.lang) for w in words(word)]
    fields = [e.position for e in _fields(page)]
    last = max(fields, default=-1)
    searching = {w for word in also(("search",), page.lang) for w in words(word)}
    buttons = [
        e for e in page.interactive() if e.role == "button" and not searching & set(words(e.name))
    ]
    scored = []
    for button in buttons:
        said = words(button.name)
        hits = [i for i, stem in enumerate(stems) if stem in said]
        if not hits or set(said) - set(stems) - set(words(noun)) - _filler(page.lang):
            continue
        scored.append(((button.position > last, -min(hits), -button.position), button))
    if scored:
        return max(scored, key=lambda s: s[0])[1]
    after = [b for b in buttons if b.position > last] if fields and not named else []
    return after[0] if len(after) == 1 else None


# ---- the confirmation ------------------------------------------------------------------


def _confirm(task: Confirm, situation: Situation) -> Outcome:
    """Confirm on the page that asks; a dialog the browser answered says how it went."""
    page = situation.page
    dialog = _DIALOG.search(situation.said)
    if dialog and dialog["how"] != "accepted":
        return Blocked(
            f"could not {task.describe()}: the site asked {dialog['said']} in a dialog, which "
            "was dismissed: dialogs that ask are dismissed unless the command says to "
            'confirm them (add "and confirm" to the command)'
        )
    if dialog or not (page.modal or any(_asks(text, page.lang) for text in page.texts)):
        return Done()
    refusing = {w for word in also(_REFUSE_WORDS, page.lang) for w in words(word)}
    confirming = also(_CONFIRM_WORDS, page.lang)
    scored = []
    for element in page.interactive():
        said = set(words(element.name))
        if element.role not in ("button", "link") or said & refusing:
            continue
        hits = [i for i, word in enumerate(confirming) if word in said]
        if hits:
            scored.append(((element.role == "button", -min(hits), element.position), element))
    if not scored:
        return Blocked(
            f"could not {task.describe()}: {page.url} asks to confirm but has no button to "
            f"confirm with (looked for Yes, Confirm, OK, Delete, Remove){RECORD}"
        )
    button = max(scored, key=lambda s: s[0])[1]
    return Action("click", {"selector": button.selector}, f"click {button.describe()}")
