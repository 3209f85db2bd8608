"""Whether the page a run or a skill ends on shows what the command asked for.

The rule is one for every site: the final page must show the command's values, in its
title, its visible text (open shadow roots and frames too), a field that holds them (a
search box, a chosen option) or its address; and it must not be an error page (HTTP status
400 or above). A search that shows "no results for X" still shows X. At least one value
must be shown, not every one: a form that was sent may keep some to itself (a message sent,
an address given at checkout, while the page thanks the sender by name), and a command of
several clauses ends on its last. Secrets and their ``{NAME}`` placeholders are never
looked for: a password is not shown.
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
    not show (all of them, when it showed none), ``status`` its HTTP status when that is an
    error (else None)."""

    url: str
    missing: tuple[str, ...] = ()
    status: int | None = None

    @property
    def shown(self) -> bool:
        return not self.missing and self.status is None

    def said(self) -> str:
        """One line on why the end state does not show the command done ("" when it does)."""
        if self.shown:
            return ""
        if self.status is not None:
            return f"the final page {self.url} is an error page (HTTP {self.status})."
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
    values = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(command)]
    said = normal(command)
    values += [value for value in used if shows(said, normal(value))]
    return _distinct(values)


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


async def end_state(page: Page, values: Iterable[str], secrets: Iterable[str] = ()) -> EndState:
    """What ``page`` shows of ``values`` (a value that is a secret is not looked for)."""
    hidden = {normal(secret) for secret in secrets if secret}
    wanted = [value for value in values if normal(value) not in hidden]
    texts = [normal(unquote_plus(page.url))]
    status = None
    for frame in page.frames:
        try:
            seen = await frame.evaluate(_READ_PAGE)
        except PlaywrightError:  # a frame that went away or will not run scripts
            continue
        texts += [normal(seen["title"]), normal(seen["text"])]
        texts += [normal(str(field)) for field in seen["fields"]]
        if frame == page.main_frame and int(seen["status"]) >= 400:
            status = int(seen["status"])
    missing = tuple(v for v in wanted if not any(shows(t, normal(v)) for t in texts))
    if len(missing) < len(wanted):  # one shown is enough (see above)
        missing = ()
    return EndState(page.url, missing, status)
