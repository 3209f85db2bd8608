"""Where a replay ended against where its recorded run ended: one page though the two
addresses differ in the options a form adds, or in how they write the values given; and,
when the query still differs, one page when the two addresses show the same."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, unquote_plus, urlencode, urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.secrets import placeholders
from browser_agent.skills.page_seen import shown_words


def same_end(
    final: str, expected: str, example: Mapping[str, Any], used: Mapping[str, Any]
) -> bool:
    """Whether ``final`` is the page of the recorded end ``expected`` once each example
    value there stands for the value used in its place (as typed, or as an address writes
    it): the same path, and every query key of the recorded end with its value. An example
    value may also stay, as a word of the site's own that a value happened to match (the
    command's "wiki" read as a link's name, in /wiki/), but only beside a value used that
    the address shows: the replay's own values must show somewhere. Keys only the final
    address has do not count: two roads to one page (a form sent before the page's script
    is ready, and after) add options of their own; what the page shows is judged by the
    end check (see skills.end_state)."""
    final, expected = unquote_plus(final), unquote_plus(expected)
    swapped: list[tuple[list[str], list[str]]] = []  # per placeholder: example, used forms
    for name, value in example.items():
        if name in used and used[name] != value:
            forms = _url_forms(str(value))
            for form in forms:
                expected = expected.replace(form, f"\0{len(swapped)}\0")
            swapped.append((forms, _url_forms(str(used[name]))))
    shown = [any(form in final for form in used_forms) for _, used_forms in swapped]
    either = [
        sorted({*used_forms, *(forms if any(shown) and not seen else ())}, key=len, reverse=True)
        for (forms, used_forms), seen in zip(swapped, shown, strict=True)
    ]

    def fits(got: str, asked: str) -> bool:
        pattern = re.escape(asked)
        for index, forms in enumerate(either):
            alternatives = "|".join(re.escape(form) for form in forms)
            pattern = pattern.replace(re.escape(f"\0{index}\0"), f"(?:{alternatives})")
        return re.fullmatch(pattern, got) is not None

    ended, wanted = urlsplit(final), urlsplit(expected)
    if not fits(ended.path, wanted.path):
        return False
    got, asked = dict(parse_qsl(ended.query, True)), dict(parse_qsl(wanted.query, True))
    return all(key in got and fits(got[key], value) for key, value in asked.items())


async def shows_the_same(
    page: Page, ended: str, expected: str, example: Mapping[str, Any], used: Mapping[str, Any]
) -> bool:
    """Whether the page the replay ended on (``ended``, relative) shows what the recorded
    end shows for the values used: that address (same path, another query: the results
    of one search sent by another road) is opened in its place and the two pages' words
    compared, dates and counts aside. The page stays on the recorded end's address."""
    address = expected_address(expected, example, used)
    if urlsplit(address).path != urlsplit(ended).path or placeholders(address):
        return False
    mine = await shown_words(page)
    try:
        await page.goto(urljoin(page.url, address))
    except PlaywrightError:
        return False
    return await shown_words(page) == mine


def expected_address(expected: str, example: Mapping[str, Any], used: Mapping[str, Any]) -> str:
    """The recorded end ``expected`` with each example value replaced by the value used in
    its place, written as the address wrote the example (as typed, with + or _, a slug)."""
    path_and_query = unquote_plus(expected)
    for name, value in example.items():
        if name not in used or used[name] == value:
            continue
        pairs = zip(_url_forms(str(value), False), _url_forms(str(used[name]), False), strict=True)
        for form, replacement in sorted(pairs, key=lambda pair: len(pair[0]), reverse=True):
            path_and_query = path_and_query.replace(form, replacement)
    parts = urlsplit(path_and_query)
    query = urlencode(parse_qsl(parts.query, True))
    return quote(parts.path, safe="/:@!$&'()*+,;=-._~") + (f"?{query}" if query else "")


def _url_forms(value: str, sort: bool = True) -> list[str]:
    """How an address may hold ``value``: as it is, its spaces as + or _ (a wiki's title),
    or as a slug; longest first unless ``sort`` is off (then always in that order)."""
    slug = "-".join(re.sub(r"[\W_]+", " ", value.casefold()).split())
    forms = [value, value.replace(" ", "+"), value.replace(" ", "_"), slug]
    return sorted(set(forms), key=len, reverse=True) if sort else forms
