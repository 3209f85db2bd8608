"""Whether the page a run or a skill ends on shows what the command asked for.

One checker for every site and every caller (the planner's finish, a skill's end, a
verifying replay, a watch, the pytest plugin). The command is read as end states
(:mod:`browser_agent.words.asks`), one per clause, and each is checked against the final page:

- *open X*: the page is X's own: a title part or heading names X, give or take the site's
  name; not a form holding X (search results, an editor), not "X does not exist", not a
  login page;
- *X's history / settings / edit page*: X named in its title or headings, and that view
  in its title, headings or address;
- *create X with Y*: X and every Y shown by the page itself, not only by a form's field
  still holding them, unless a fresh load of its address gives them back (an editor that
  saves in place);
- *edit X to add Y*: Y shown by the page (not only a field, with the same exception), X
  named; *set my email address to Y* (a setting) the same, with no thing named;
- *remove X*: X no longer listed (a link, a row, an item), and the removal shown: a notice
  naming X, or a list of its kind (items sharing a word with X) without it;
- *log in as U*: U shown, and no password field left;
- *sort by C* / *show the X where C is V*: a table column headed C in that order, or
  holding only such values (a page with no such column is judged by values);
- *show the X Ys at the Z* (no column named): a word of the clause that is a whole cell
  of a table is in every row of it (the rows it names, not the whole list);
- anything else: the page shows the command's values, in its title, visible text (open
  shadow roots and frames too), a field that holds them (a search box, a chosen option)
  or its address. One is enough: a form that was sent may keep some to itself, and a
  command of several clauses ends on its last. A search is stricter: the term a command
  searches for must have been typed by the run, or be held as a results page holds it
  (its address, title, a field, or quoted in its text).

Every page is also checked for being an error: HTTP status 400 or above, the browser's own
error page, or a title or main heading that says error / not found (and names none of the
command's values). A page found wrong (an error, a login page, a form holding X, "does
not exist") fails the run; a page that does not show the state asked for leaves it
unverified. Secrets and their ``{NAME}`` placeholders are never looked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urldefrag

from playwright.async_api import Page

from browser_agent.browser.session import session
from browser_agent.errors import ActionError, BrowserError
from browser_agent.skills.end_saved import given_back, held_only, saved
from browser_agent.skills.end_tables import filtered_by, rows_named, sorted_by
from browser_agent.skills.page_seen import Seen, read_page
from browser_agent.words.asks import Ask, asks
from browser_agent.words.text_match import normal, shows


class EndNotShown(ActionError):
    """A skill ran its steps, but its final page does not show what the command gave
    (``wrong``: the page is found wrong, an error or a form, not merely unconfirmed)."""

    def __init__(
        self, said: str, answer: str, missing: tuple[str, ...], wrong: bool = False
    ) -> None:
        super().__init__(f"the end state is unverified: {said} {answer}", kind="unverified")
        self.said = said  # one line: what the final page does not show
        self.answer = answer  # what the skill would have answered
        self.missing = missing
        self.wrong = wrong


@dataclass(frozen=True)
class EndState:
    """What the final page showed of what the command asked: ``missing`` the values it
    does not show (all of them, when it showed none), ``unsearched`` the search terms it
    does not hold, ``status`` its HTTP status when that is an error (else None), ``wrong``
    why the page is not what was asked at all (an error, a login page, a form holding the
    thing named), ``unconfirmed`` which clause's state it does not show."""

    url: str
    missing: tuple[str, ...] = ()
    status: int | None = None
    unsearched: tuple[str, ...] = ()
    wrong: str = ""
    unconfirmed: str = ""

    @property
    def shown(self) -> bool:
        return (
            not self.missing
            and not self.unsearched
            and self.status is None
            and not self.wrong
            and not self.unconfirmed
        )

    def said(self) -> str:
        """One line on why the end state does not show the command done ("" when it does)."""
        if self.shown:
            return ""
        if self.status is not None:
            return f"the final page {self.url} is an error page (HTTP {self.status})."
        if self.wrong:
            return f"the final page {self.url} {self.wrong}."
        if self.unconfirmed:
            return f"the final page {self.url} {self.unconfirmed}."
        if self.unsearched:
            terms = " or ".join(repr(term) for term in self.unsearched)
            return (
                f"the final page {self.url} is not the results of a search for {terms} (the "
                "term is not in its address, title or fields, nor quoted in its text)."
            )
        names = " or ".join(repr(value) for value in self.missing)
        return (
            f"the final page {self.url} does not show {names} (not in its title, text, "
            "fields or address)."
        )


# Words that, beside X in a title or heading, make it another page than X's own: a form
# to make or change X, results for X, a view of X, "the page titled X".
_NOT_ITS_OWN = frozenset(
    {
        *("create", "creating", "new", "edit", "editing", "add", "adding", "write"),
        *("writing", "draft", "preview", "search", "results", "result", "for", "titled"),
        *("named", "called", "untitled", "history", "revisions", "revision", "changes"),
        *("diff", "settings"),
    }
)
# A title or main heading that says the page is an error.
_ERROR = re.compile(
    r"\b(?:error|not found|does not exist|doesn t exist|no such \w+|forbidden|access denied|"
    r"unauthori[sz]ed|bad request|something went wrong|server error)\b"
)
# A notice that something is gone ("was deleted", "gelöscht", "supprimée"), as normal() has it.
_GONE = (
    r"(?:deleted|removed|archived|trashed|erased|discarded|geloscht|entfernt|archiviert|"
    r"supprimee?s?|retiree?s?|archivee?s?|eliminad[oa]s?|borrad[oa]s?|archivad[oa]s?)\b"
)
# Synonyms of a view a command asks for, as a page's title, heading or address says it.
_VIEW_WORDS = {
    "history": ("history", "revisions", "versions", "changes"),
    "revisions": ("history", "revisions", "versions"),
    "changes": ("history", "changes", "diff"),
    "settings": ("settings", "preferences", "options", "configuration", "admin"),
    "edit": ("edit", "editing", "editor"),
    "source": ("source", "raw"),
}


def _names(line: str, target: str) -> bool:
    """``line`` (a title part or heading) names ``target`` itself: its words, with at most
    three more, none of which make it another page (see _NOT_ITS_OWN)."""
    if not target or not shows(line, target):
        return False
    extra = f" {line} ".replace(f" {target} ", " ", 1).split()
    return len(extra) <= 3 and not set(extra) & _NOT_ITS_OWN


def _missing_thing(seen: Seen, target: str) -> bool:
    """The page says ``target`` does not exist ("X does not exist", "no page named X")."""
    absent = r"(?:does not exist|doesn t exist|not found|could not be found|was not found)"
    return any(
        re.search(rf"\b{re.escape(target)}\s+(?:\S+\s+){{0,3}}?{absent}", text)
        or re.search(rf"\bno (?:such )?\w+ (?:named |titled |called )?{re.escape(target)}\b", text)
        for text in seen.own
    )


def _error(seen: Seen, url: str, values: list[str]) -> str:
    """Why the page is an error page, the browser's or the site's ("" when it is not)."""
    if url.startswith("chrome-error:"):
        return "is the browser's error page (the site could not be reached or looped)"
    named = [normal(value) for value in values]
    for line in [*seen.titles[:1], *seen.headings[:1]]:
        if _ERROR.search(line) and not any(shows(line, value) for value in named):
            return f"says it is an error ({line!r})"
    return ""


def _page_of(ask: Ask, seen: Seen) -> tuple[str, str]:
    """*open X* and *X's history*: X's own page, or that view of it."""
    target = normal(ask.target)
    if _missing_thing(seen, target):
        return f"says {ask.target!r} does not exist", ""
    titled = [*seen.titles, *seen.headings]
    if ask.kind == "view":
        words = _VIEW_WORDS.get(ask.view, (ask.view,))
        named = any(shows(line, target) for line in titled)
        if not named or not any(shows(line, w) for line in [*titled, seen.address] for w in words):
            return (
                "",
                f"is not the {ask.view} of {ask.target!r} (its title and headings do not say so)",
            )
        return "", ""
    if any(_names(line, target) for line in titled):
        return "", ""
    if seen.password:
        return f"is a login page, not the page of {ask.target!r}", ""
    if any(shows(held, target) for held in seen.typed):
        return f"is a form holding {ask.target!r} (results or an editor), not its own page", ""
    return "", f"is not the page of {ask.target!r} (no title or heading names it)"


def _logged_in(ask: Ask, seen: Seen) -> tuple[str, str]:
    """*log in as U*: no password asked for any more, and U shown."""
    if seen.password:
        return "still asks for a password: the login did not go through", ""
    if not any(shows(text, normal(ask.target)) for text in seen.own):
        return "", f"does not show {ask.target!r} signed in"
    return "", ""


# The roles of an element that is a thing itself (its link, its row's box), not a control
# that acts on it ("Delete draft").
_ITEMS = frozenset(
    {"link", "checkbox", "radio", "row", "cell", "gridcell", "option", "listitem", "treeitem"}
)


async def _where_it_was(
    seen: Seen, target: str, acted: Sequence[tuple[str, str, str]]
) -> Seen | None:
    """The last page the run used ``target``'s own element on (the link it opened, the box
    of its row it ticked), as it reads now: the final page itself (``seen``), or read again
    in a tab of its own; None when the run used no such element, or that page cannot be
    read."""
    urls = [url for url, role, name in acted if role in _ITEMS and shows(normal(name), target)]
    if not urls:
        return None
    if urldefrag(urls[-1])[0] == urldefrag(seen.url)[0]:
        return seen
    try:
        return await session().read_aside(urls[-1], read_page)
    except BrowserError:  # no session: nothing to read it in
        return None


def _lists(seen: Seen, target: str) -> bool:
    """Whether a link, row or item of the page is ``target``'s (a short one: not a sentence
    that mentions it)."""
    most = len(target.split()) + 4
    return any(shows(item, target) and len(item.split()) <= most for item in seen.listed)


def _removed(ask: Ask, seen: Seen, before: Seen | None) -> tuple[str, str]:
    """*remove X*: no link, row or item of the page is X's any more, and the page shows
    the removal itself: a notice that names X with a word of removal ("Sprint 4 was
    removed", "Draft deleted"), or a list of X's kind (items that share a word with X)
    without it. A page that merely does not show X (another page, a search with no
    results, X's own page, a form holding X) confirms nothing. ``before`` is the page the
    run used X's element on, read now: it must not list X any more, and then it shows the
    removal."""
    target = normal(ask.target)
    if _lists(seen, target):
        return "", f"still lists {ask.target!r}"
    if before is not None:
        if _lists(before, target):
            return "", f"is not where {ask.target!r} went: {before.url} still lists it"
        return "", ""  # gone from where the run found it
    if seen.password:
        return f"is a login page: it does not show {ask.target!r} removed", ""
    x, between = re.escape(target), r"\s+(?:\S+\s+){0,5}?"
    near = rf"\b{x}{between}{_GONE}|\b{_GONE}{between}{x}\b"
    if any(re.search(near, text) for text in seen.own):
        return "", ""  # a notice of its removal
    holding = [seen.address, *seen.typed, *seen.chosen]
    if any(shows(text, target) for text in holding) or any(
        _names(line, target) for line in [*seen.titles, *seen.headings]
    ):
        return "", f"is {ask.target!r}'s own page or a form holding it, not a list without it"
    words = {word for word in target.split() if len(word) > 2 and not word.isdigit()}
    short = [item for item in seen.listed if len(item.split()) <= len(target.split()) + 4]
    if any(words & set(item.split()) for item in short):
        return "", ""  # the list X was in, others of its kind still there
    return "", f"does not show {ask.target!r} removed (no notice of it, no list of its kind)"


def _check(ask: Ask, seen: Seen, hidden: set[str], before: Seen | None) -> tuple[str, str] | None:
    """One clause's end state on the page: (why it is wrong, why it is unconfirmed); None
    when the page offers nothing to judge it by."""
    if ask.kind == "sort":
        return sorted_by(ask, seen)
    if ask.kind == "filter":
        return filtered_by(ask, seen)
    if ask.kind in ("open", "view"):
        return _page_of(ask, seen)
    if ask.kind == "login":
        return _logged_in(ask, seen)
    if ask.kind == "remove":
        return _removed(ask, seen, before)
    return saved(ask, seen, hidden)


async def end_state(
    page: Page,
    values: Iterable[str],
    secrets: Iterable[str] = (),
    searched: Iterable[str] = (),
    command: str = "",
    refused: str = "",
    acted: Sequence[tuple[str, str, str]] = (),
) -> EndState:
    """What ``page`` shows of what ``command`` asks (see the module's docstring) and of
    ``values`` (a value that is a secret is not looked for), and whether it holds every
    term ``searched`` for as a results page does. ``refused`` says why the tab's last
    navigation was refused, when it has not moved on since: the run did not get there.
    ``acted`` is where the run used which element (BrowserSession.acted): a
    removal is seen gone from there."""
    hidden = {normal(secret) for secret in secrets if secret}
    wanted = [value for value in values if normal(value) not in hidden]
    terms = [term for term in searched if normal(term) not in hidden]
    seen = await read_page(page)
    clauses = asks(command) if command else []
    kinds = [
        ask
        for index, ask in enumerate(clauses)
        if ask.kind != "values"
        and (ask.target or (ask.kind == "edit" and ask.values))  # a setting names no thing
        # "open X and view its history": a page opened on the way is not where it ends
        and not (ask.kind in ("open", "view") and index < len(clauses) - 1)
    ]
    status = seen.status if seen.status >= 400 else None
    wrong = _error(seen, page.url, [*wanted, *(ask.target for ask in kinds if ask.target)])
    if refused:
        wrong = f"is where the run stayed when a navigation was refused ({refused})"
    unconfirmed, checked = "", []
    for ask in kinds:
        before = None
        if ask.kind == "remove":
            before = await _where_it_was(seen, normal(ask.target), acted)
        judged = _check(ask, seen, hidden, before)
        held = held_only(ask, seen, hidden)
        if held and await given_back(seen, held):
            judged = ("", "")  # an editor that saved in place
        if judged is not None:
            checked.append(ask)
            wrong, unconfirmed = wrong or judged[0], unconfirmed or judged[1]
    for ask in clauses:  # "show the kestrel sightings at the lagoon": only such rows
        if ask.kind == "values" and not ask.values:
            unconfirmed = unconfirmed or rows_named(ask.clause, seen)
    missing: tuple[str, ...] = ()
    unchecked = [  # clauses of no kind that give values ("confirm" gives none)
        ask
        for ask in clauses
        if ask not in checked
        and (ask.kind != "values" or any(shows(normal(ask.clause), normal(v)) for v in wanted))
    ]
    if unchecked or not clauses:  # their values
        missing = tuple(v for v in wanted if not any(shows(t, normal(v)) for t in seen.texts))
        if len(missing) < len(wanted):  # one shown is enough (see above)
            missing = ()
    unsearched = tuple(t for t in terms if not any(shows(h, normal(t)) for h in seen.held))
    return EndState(page.url, missing, status, unsearched, wrong, unconfirmed)
