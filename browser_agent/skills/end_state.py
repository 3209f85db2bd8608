"""Whether the page a run or a skill ends on shows what the command asked for.

One checker for every site and every caller (the planner's finish, a skill's end, a
verifying replay, a watch, the pytest plugin). The command is read as end states
(:mod:`browser_agent.asks`), one per clause, and each is checked against the final page:

- *open X*: the page is X's own: a title part or heading names X, give or take the site's
  name; not a form holding X (search results, an editor), not "X does not exist", not a
  login page;
- *X's history / settings / edit page*: X named in its title or headings, and that view
  in its title, headings or address;
- *create X with Y*: X and every Y shown by the page itself, not only by a form's field
  still holding them;
- *edit X to add Y*: Y shown by the page (not only a field), X named;
- *remove X*: X no longer listed (a link, a row, an item);
- *log in as U*: U shown, and no password field left;
- *sort by C* / *show the X where C is V*: a table column headed C in that order, or
  holding only such values (a page with no such column is judged by values);
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

import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.asks import Ask, asks
from browser_agent.dom.library import settled_evaluate
from browser_agent.errors import ActionError
from browser_agent.secrets import placeholders

# What a page shows, read in one evaluation per frame: its title, headings, visible text,
# the values its visible fields hold (a password or hidden field is never read), the items
# it lists (links, rows, list items), whether it asks for a password, and its HTTP status.
_READ_PAGE = """() => {
  const fields = [], typed = [], chosen = [], headings = [], listed = [];
  const texts = [document.body ? document.body.innerText : ''];
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const el of roots[i].querySelectorAll('*')) {
      if (el.shadowRoot) {
        roots.push(el.shadowRoot);
        for (const child of el.shadowRoot.children) texts.push(child.innerText || '');
      }
    }
  }
  const shown = (el) =>
    el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const all = (css) => roots.flatMap((root) => [...root.querySelectorAll(css)]).filter(shown);
  const controls = roots.flatMap((root) => [...root.querySelectorAll('input, textarea, select')]);
  let password = false;
  for (const el of controls) {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'password' && shown(el)) password = true;
    if (['password', 'hidden', 'checkbox', 'radio', 'file'].includes(type)) continue;
    if (el.tagName === 'SELECT') {
      for (const option of el.selectedOptions) fields.push(option.text, option.value);
      if (shown(el)) for (const option of el.selectedOptions) chosen.push(option.text);
    } else {
      fields.push(el.value || '');
      const pressed = ['submit', 'button', 'reset', 'image'].includes(type);
      if (shown(el) && !pressed) typed.push(el.value || '');
    }
  }
  for (const el of all('h1, h2, [role=heading]')) headings.push(el.innerText || '');
  for (const el of all('a[href], li, td, th, dt, option').slice(0, 3000)) {
    listed.push(el.innerText || el.textContent || '');
  }
  const tables = all('table').slice(0, 5).map((table) => {
    const rows = [...table.rows].filter(shown).slice(0, 200);
    const cells = (row) => [...row.cells].map((cell) => cell.innerText || '');
    const heads = (row) => row.parentElement.tagName === 'THEAD'
      || (row.cells.length > 0 && [...row.cells].every((cell) => cell.tagName === 'TH'));
    const head = rows.findIndex(heads);  // a row of a form's labels (th, then td) is none
    return head < 0 ? null : { headers: cells(rows[head]), rows: rows.slice(head + 1).map(cells) };
  }).filter(Boolean);
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    title: document.title || '',
    text: texts.join(' '),
    fields, typed, chosen, headings, listed, password, tables,
    status: (nav && nav.responseStatus) || 0,
  };
}"""

# Quoted parts of a command: "…", '…', “…”, ‘…’ (an apostrophe inside a word is no quote).
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|(?<!\w)'([^']+)'(?!\w)")
# "search for X", "search the docs for X": X runs to the end of its clause.
_SEARCH = re.compile(
    r"\bsearch(?:\s+(?:the\s+|a\s+)?[\w-]+(?:\s+[\w-]+)?)?\s+for\s+(?P<term>.+)", re.IGNORECASE
)
_CLAUSE_END = re.compile(
    r"[,;.!?]\s|[,;.!?]$|\s+(?:and|then)\s+|\s+(?:on|in|at)\s+(?:the\s+)?"
    r"(?:site|shop|store|website)\b",
    re.IGNORECASE,
)


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


def normal(text: str) -> str:
    """``text`` as it is compared: case, accents, punctuation and spacing set aside."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[\W_]+", " ", folded).split())


def shows(haystack: str, value: str) -> bool:
    """Whether ``value``'s words occur, in order and as whole words, in ``haystack``
    (both already :func:`normal`)."""
    return bool(value) and f" {value} " in f" {haystack} "


def command_values(command: str, used: Iterable[str] = ()) -> list[str]:
    """The values a command gives, as an end state shows them: its quoted parts, and what
    the run typed or chose that is words of the command (a search term given unquoted)."""
    values = _quoted(command)
    said = normal(command)
    values += [value for value in used if shows(said, normal(value))]
    return _distinct(values)


def _quoted(text: str) -> list[str]:
    """The quoted parts of ``text``, without their quotes (see ``_QUOTED``)."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


def search_terms(command: str, typed: Iterable[str] = ()) -> list[str]:
    """The terms ``command`` searches for (quoted, or the words up to the clause's end) that
    the run did not type: those its final page must hold."""
    said = [normal(text) for text in typed]
    terms = []
    for match in _SEARCH.finditer(command):
        term = match["term"].strip()
        quoted = _QUOTED.match(term)
        if quoted:
            term = next(g for g in quoted.groups() if g)
        else:
            end = _CLAUSE_END.search(term)
            term = term[: end.start()] if end else term
        if not any(shows(text, normal(term)) for text in said):
            terms.append(term.strip())
    return _distinct(terms)


def skill_values(values: Mapping[str, object]) -> list[str]:
    """The values a skill was given (its parameters, a list's items one by one)."""
    found: list[str] = []
    for value in values.values():
        items = value if isinstance(value, list) else [value]
        found += [str(item) for item in items if isinstance(item, str | int)]
    return _distinct(found)


def _distinct(values: Iterable[str]) -> list[str]:
    """Values worth looking for, once each: no secret placeholder, none empty."""
    kept: dict[str, str] = {}
    for value in values:
        if placeholders(value) or not normal(value):
            continue
        kept.setdefault(normal(value), value.strip())
    return list(kept.values())


@dataclass
class _Seen:
    """What the final page shows, every frame together, each text already :func:`normal`:
    ``own`` what the page itself says (title, headings, text), ``texts`` that plus its
    fields and address, ``typed`` what its visible text fields hold."""

    address: str
    status: int = 0
    titles: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)
    own: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    typed: list[str] = field(default_factory=list)
    chosen: list[str] = field(default_factory=list)  # the options its visible lists show
    held: list[str] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)
    password: bool = False
    tables: list[dict[str, Any]] = field(default_factory=list)  # headers, rows (as shown)


async def _read(page: Page) -> _Seen:
    """Read ``page`` and its frames once (a frame that went away is passed over)."""
    seen = _Seen(normal(unquote_plus(page.url)))
    seen.texts.append(seen.address)
    seen.held.append(seen.address)
    for frame in page.frames:
        try:  # a page a navigation replaces meanwhile is read once it is in place
            read = await settled_evaluate(frame, _READ_PAGE)
        except PlaywrightError:  # a frame that went away or will not run scripts
            continue
        fields = [normal(str(value)) for value in read["fields"]]
        title = normal(read["title"])
        if frame == page.main_frame:
            seen.status = int(read["status"])
            parts = re.split(r"\s+[-–—|·:»]\s+|\s*[|–—·»]\s*", read["title"])
            seen.titles += [title, *(normal(part) for part in parts)]
        seen.headings += [normal(text) for text in read["headings"]]
        seen.own += [title, *seen.headings, normal(read["text"])]
        seen.texts += [title, normal(read["text"]), *fields]
        seen.typed += [normal(str(value)) for value in read["typed"]]
        seen.chosen += [normal(str(value)) for value in read["chosen"]]
        seen.held += [title, *fields, *map(normal, _quoted(read["text"]))]
        seen.listed += [normal(text) for text in read["listed"]]
        seen.password |= bool(read["password"])
        seen.tables += read["tables"]
    return seen


async def shown_words(page: Page) -> list[str]:
    """What the page shows (title, headings, text, what its visible fields hold and the
    options they show), word by word, each word holding a digit masked: two pages showing
    one thing give one list whatever their dates."""
    seen = await _read(page)
    words = " ".join([*seen.own, *seen.typed, *seen.chosen]).split()
    return ["#" if any(char.isdigit() for char in word) else word for word in words]


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


def _missing_thing(seen: _Seen, target: str) -> bool:
    """The page says ``target`` does not exist ("X does not exist", "no page named X")."""
    absent = r"(?:does not exist|doesn t exist|not found|could not be found|was not found)"
    return any(
        re.search(rf"\b{re.escape(target)}\s+(?:\S+\s+){{0,3}}?{absent}", text)
        or re.search(rf"\bno (?:such )?\w+ (?:named |titled |called )?{re.escape(target)}\b", text)
        for text in seen.own
    )


def _error(seen: _Seen, url: str, values: list[str]) -> str:
    """Why the page is an error page, the browser's or the site's ("" when it is not)."""
    if url.startswith("chrome-error:"):
        return "is the browser's error page (the site could not be reached or looped)"
    named = [normal(value) for value in values]
    for line in [*seen.titles[:1], *seen.headings[:1]]:
        if _ERROR.search(line) and not any(shows(line, value) for value in named):
            return f"says it is an error ({line!r})"
    return ""


def _page_of(ask: Ask, seen: _Seen) -> tuple[str, str]:
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


def _logged_in(ask: Ask, seen: _Seen) -> tuple[str, str]:
    """*log in as U*: no password asked for any more, and U shown."""
    if seen.password:
        return "still asks for a password: the login did not go through", ""
    if not any(shows(text, normal(ask.target)) for text in seen.own):
        return "", f"does not show {ask.target!r} signed in"
    return "", ""


def _removed(ask: Ask, seen: _Seen) -> tuple[str, str]:
    """*remove X*: no link, row or item of the page is X's any more."""
    target = normal(ask.target)
    most = len(target.split()) + 4  # an item that is X's, not a sentence that mentions it
    if any(shows(item, target) and len(item.split()) <= most for item in seen.listed):
        return "", f"still lists {ask.target!r}"
    return "", ""


def _saved(ask: Ask, seen: _Seen, hidden: set[str]) -> tuple[str, str]:
    """*create X with Y*, *edit X to add Y*: X and each Y shown by the page itself."""
    values = [normal(value) for value in (ask.target, *ask.values)]
    unsaid = [v for v in values if v and v not in hidden and not any(shows(t, v) for t in seen.own)]
    if not unsaid:
        return "", ""
    if all(any(shows(held, value) for held in seen.typed) for value in unsaid):
        return "", f"holds {unsaid[0]!r} only in a form's field: it was not saved"
    return "", f"does not show {unsaid[0]!r} (not in its title, headings or text)"


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _sorted(ask: Ask, seen: _Seen) -> tuple[str, str] | None:
    """*sort by C*: a table with a column headed C lists its rows in that order (numbers
    or dates, as the cells show them); None on a page with no such column (its values
    are then looked for as any clause's are)."""
    cells = _column(ask, seen)
    if cells is None:
        return None
    keys = [_order_key(cell) for cell in cells if cell]
    if len(keys) < 2 or None in keys:
        return "", ""
    ascending = [a <= b for a, b in itertools.pairwise(keys)]  # type: ignore[operator]
    descending = [a >= b for a, b in itertools.pairwise(keys)]  # type: ignore[operator]
    ok = {"ascending": all(ascending), "descending": all(descending)}
    if ok.get(ask.view, all(ascending) or all(descending)):
        return "", ""
    order = f", {ask.view}" if ask.view else ""
    shown = ", ".join(cells[:4])
    return "", f"does not list its {ask.target!r} column in order{order} ({shown}…)"


def _column(ask: Ask, seen: _Seen) -> list[str] | None:
    """The cells of the first table column headed as the clause names it (None: no such
    column, or no row)."""
    column = normal(ask.target)
    for table in seen.tables:
        headers = [normal(str(header)) for header in table["headers"]]
        if column in headers:
            at = headers.index(column)
            cells = [str(row[at]).strip() for row in table["rows"] if len(row) > at]
            return cells or None
    return None


def _filtered(ask: Ask, seen: _Seen) -> tuple[str, str] | None:
    """*show the X where C is V* (greater than, less than): every row of a table with a
    column headed C holds such a value there; None on a page with no such column."""
    cells = _column(ask, seen)
    if cells is None or not ask.values:
        return None
    wanted = ask.values[0]
    if ask.view == "equal":
        other = [cell for cell in cells if normal(cell) != normal(wanted)]
    else:
        limit, greater = _order_key(wanted), ask.view == "greater"
        if not isinstance(limit, float):
            return None
        keys = [(cell, _order_key(cell)) for cell in cells]
        other = [
            cell
            for cell, key in keys
            if not isinstance(key, float) or (key <= limit if greater else key >= limit)
        ]
    if other:
        return "", f"lists rows whose {ask.target!r} is {other[0]!r}, not only {wanted!r}"
    return "", ""


def _order_key(cell: str) -> float | str | None:
    """A cell as it sorts: its number (a price, a count), or an ISO date as text."""
    if re.fullmatch(r"\d{4}-\d\d-\d\d.*", cell):
        return cell
    found = _NUMBER.search(cell)
    return float(found.group(0).replace(",", "")) if found else None


def _check(ask: Ask, seen: _Seen, hidden: set[str]) -> tuple[str, str] | None:
    """One clause's end state on the page: (why it is wrong, why it is unconfirmed); None
    when the page offers nothing to judge it by."""
    if ask.kind == "sort":
        return _sorted(ask, seen)
    if ask.kind == "filter":
        return _filtered(ask, seen)
    if ask.kind in ("open", "view"):
        return _page_of(ask, seen)
    if ask.kind == "login":
        return _logged_in(ask, seen)
    if ask.kind == "remove":
        return _removed(ask, seen)
    return _saved(ask, seen, hidden)


async def end_state(
    page: Page,
    values: Iterable[str],
    secrets: Iterable[str] = (),
    searched: Iterable[str] = (),
    command: str = "",
    refused: str = "",
) -> EndState:
    """What ``page`` shows of what ``command`` asks (see the module's docstring) and of
    ``values`` (a value that is a secret is not looked for), and whether it holds every
    term ``searched`` for as a results page does. ``refused`` says why the tab's last
    navigation was refused, when it has not moved on since: the run did not get there."""
    hidden = {normal(secret) for secret in secrets if secret}
    wanted = [value for value in values if normal(value) not in hidden]
    terms = [term for term in searched if normal(term) not in hidden]
    seen = await _read(page)
    clauses = asks(command) if command else []
    kinds = [
        ask
        for index, ask in enumerate(clauses)
        if ask.kind != "values"
        and ask.target
        # "open X and view its history": a page opened on the way is not where it ends
        and not (ask.kind in ("open", "view") and index < len(clauses) - 1)
    ]
    status = seen.status if seen.status >= 400 else None
    wrong = _error(seen, page.url, [*wanted, *(ask.target for ask in kinds)])
    if refused:
        wrong = f"is where the run stayed when a navigation was refused ({refused})"
    unconfirmed, checked = "", []
    for ask in kinds:
        judged = _check(ask, seen, hidden)
        if judged is not None:
            checked.append(ask)
            wrong, unconfirmed = wrong or judged[0], unconfirmed or judged[1]
    missing: tuple[str, ...] = ()
    if len(checked) < len(clauses) or not clauses:  # clauses of no kind: their values
        missing = tuple(v for v in wanted if not any(shows(t, normal(v)) for t in seen.texts))
        if len(missing) < len(wanted):  # one shown is enough (see above)
            missing = ()
    unsearched = tuple(t for t in terms if not any(shows(h, normal(t)) for h in seen.held))
    return EndState(page.url, missing, status, unsearched, wrong, unconfirmed)
