"""Whether the page a run or a skill ends on shows what the command asked for.

The rule is one for every site: the final page must show the command's values, in its
title, its visible text (open shadow roots and frames too), a field that holds them (a
search box, a chosen option) or its address; and it must not be an error page (HTTP status
400 or above). A search that shows "no results for X" still shows X. At least one value
must be shown, not every one: a form that was sent may keep some to itself (a message sent,
an address given at checkout, while the page thanks the sender by name), and a command of
several clauses ends on its last. Secrets and their ``{NAME}`` placeholders are never
looked for: a password is not shown.

A search is stricter: the term a command searches for ("search for X", "search the wiki
for X") must have been typed by the run, or be what the final page holds as a results page
does: in its address, its title, a field, or quoted in its text ('results for "X"'). A
catalog's text names most words anyway; clicking a category named by one of the term's
words is not searching for it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import unquote_plus

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.errors import ActionError
from browser_agent.secrets import placeholders

# What a page shows, read in one evaluation per frame: its title, visible text, the values
# its visible fields hold (a password or hidden field is never read) and its HTTP status.
_READ_PAGE = """() => {
  const fields = [];
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
  const controls = roots.flatMap((root) => [...root.querySelectorAll('input, textarea, select')]);
  for (const el of controls) {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (['password', 'hidden', 'checkbox', 'radio', 'file'].includes(type)) continue;
    if (el.tagName === 'SELECT') {
      for (const option of el.selectedOptions) fields.push(option.text, option.value);
    } else {
      fields.push(el.value || '');
    }
  }
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    title: document.title || '',
    text: texts.join(' '),
    fields,
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
    """A skill ran its steps, but its final page does not show what the command gave."""

    def __init__(self, said: str, answer: str, missing: tuple[str, ...]) -> None:
        super().__init__(f"the end state is unverified: {said} {answer}", kind="unverified")
        self.said = said  # one line: what the final page does not show
        self.answer = answer  # what the skill would have answered
        self.missing = missing


@dataclass(frozen=True)
class EndState:
    """What the final page showed of the command's values: ``missing`` the values it does
    not show (all of them, when it showed none), ``unsearched`` the search terms it does
    not hold, ``status`` its HTTP status when that is an error (else None)."""

    url: str
    missing: tuple[str, ...] = ()
    status: int | None = None
    unsearched: tuple[str, ...] = ()

    @property
    def shown(self) -> bool:
        return not self.missing and not self.unsearched and self.status is None

    def said(self) -> str:
        """One line on why the end state does not show the command done ("" when it does)."""
        if self.shown:
            return ""
        if self.status is not None:
            return f"the final page {self.url} is an error page (HTTP {self.status})."
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


async def end_state(
    page: Page, values: Iterable[str], secrets: Iterable[str] = (), searched: Iterable[str] = ()
) -> EndState:
    """What ``page`` shows of ``values`` (a value that is a secret is not looked for), and
    whether it holds every term ``searched`` for as a results page does."""
    hidden = {normal(secret) for secret in secrets if secret}
    wanted = [value for value in values if normal(value) not in hidden]
    terms = [term for term in searched if normal(term) not in hidden]
    address = normal(unquote_plus(page.url))
    texts, held, status = [address], [address], None
    for frame in page.frames:
        try:
            seen = await frame.evaluate(_READ_PAGE)
        except PlaywrightError:  # a frame that went away or will not run scripts
            continue
        fields = [normal(str(field)) for field in seen["fields"]]
        texts += [normal(seen["title"]), normal(seen["text"]), *fields]
        if terms:  # a search's term as its results page holds it: quoted, not just said
            held += [normal(seen["title"]), *fields, *map(normal, _quoted(seen["text"]))]
        if frame == page.main_frame and int(seen["status"]) >= 400:
            status = int(seen["status"])
    missing = tuple(v for v in wanted if not any(shows(t, normal(v)) for t in texts))
    if len(missing) < len(wanted):  # one shown is enough (see above)
        missing = ()
    unsearched = tuple(t for t in terms if not any(shows(h, normal(t)) for h in held))
    return EndState(page.url, missing, status, unsearched)
