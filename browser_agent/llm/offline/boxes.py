"""The site's search field, found as a person finds it: by its role or type, the name or
id its form sends it by, or the words naming it; the box of a scoped search; and the link
to the next page of results."""

from __future__ import annotations

import re

from browser_agent.llm.offline.languages import also
from browser_agent.llm.offline.page import TEXT_ROLES, Element, Page
from browser_agent.llm.offline.words import content_words, covers
from browser_agent.words.text_match import NEXT_PAGE_WORDS, names_next_page, next_page_names

#: The name or id a site's search field goes by in its form, whatever its label's language.
_SEARCH_KEYS = frozenset({"q", "s", "query", "search", "keywords", "term"})


def search_box(page: Page) -> Element | None:
    """The site's search field: by its role or type, then by the name or id its form sends
    it by (``q``, ``s``, ``search``...), then by the words naming it; so a box labelled in
    another language is still found."""
    fields = [e for e in page.interactive() if e.role in TEXT_ROLES and not e.is_password]
    boxes = [e for e in fields if e.role == "searchbox" or e.attrs.get("type") == "search"]
    boxes += [e for e in fields if sent_as_search(e)]
    boxes += [e for e in fields if {"search", "query", "q"} & e.label_words]
    return boxes[0] if boxes else None


def sent_as_search(element: Element) -> bool:
    """Whether the field's name or id says it holds a search: "q", "s", "_search",
    "proj-search", "search_query"."""
    for key in ("name", "id"):
        parts = [p for p in re.split(r"[^a-z0-9]+", element.attrs.get(key, "").lower()) if p]
        if parts and (parts[-1] in _SEARCH_KEYS or parts[0] == "search"):
            return True
    return False


def scoped_box(page: Page, scope: str) -> Element | None:
    """The text field for a scoped search: labelled with the scope, or just before its button."""
    fields = [e for e in page.interactive() if e.role in TEXT_ROLES and not e.is_password]
    for element in fields:
        if all(w in element.label_words for w in content_words(scope)):
            return element
    interactive = page.interactive()
    for index, element in enumerate(interactive):
        if element.role == "button" and covers(element.name, scope) and index > 0:
            before = interactive[index - 1]
            if before in fields:
                return before
    return None


def next_page(page: Page, lang: str = "") -> Element | None:
    """The link to the next page of the results shown (Next, Next page, →, ›, »), in the
    page's language too; None when the results are on one page."""
    named = next_page_names(also(NEXT_PAGE_WORDS, lang or page.lang))
    for element in page.interactive():
        if element.role not in ("link", "button"):
            continue
        if names_next_page(element.name, element.attrs.get("aria-label", ""), named):
            return element
    return None
