"""find_elements' engine: the actionable elements of the whole page that match a query."""

from __future__ import annotations

import json
import re

from browser_agent.browser.observe import remember
from browser_agent.browser.session import BrowserSession
from browser_agent.dom.library import read_page
from browser_agent.dom.page_content import fenced, neutralised

_WORD = re.compile(r"\w+")


# An element's kind in the words people use for it (a query may name the kind, not a label)
KIND_WORDS = {
    "searchbox": "searchbox search box field",
    "textbox": "textbox text box field input",
    "combobox": "combobox combo box dropdown drop down select list",
    "listbox": "listbox list box select",
    "checkbox": "checkbox check box tick",
    "radio": "radio button option",
    "spinbutton": "spinbutton number field input",
    "textarea": "textarea text area field",
}


def kind_words(role: str) -> str:
    """The words a query may name an element's kind (its role or tag) with."""
    return KIND_WORDS.get(role.lower(), role.lower())


def score(query: str, name: str, attributes: str, nearby: str, kind: str = "") -> float:
    """How well an element matches, about 0 to 1.5: each query word found in its name
    counts most, then in its attributes (label, placeholder, id) or its kind (role), then
    in the text around it (a word that only starts a page word counts less); the query as
    a phrase of the name adds a bonus, its whole name more."""
    wanted = _WORD.findall(query.lower())
    if not wanted:
        return 0.0
    fields = [
        (name.lower(), 3.0),
        (attributes.lower(), 2.0),
        (kind_words(kind), 2.0),
        (nearby.lower(), 1.0),
    ]
    total = 0.0
    for word in wanted:
        best = 0.0
        for text, weight in fields:
            if word not in text:  # cheap test first: most elements match no word
                continue
            if re.search(rf"\b{re.escape(word)}\b", text):
                best = max(best, weight)
            elif re.search(rf"\b{re.escape(word)}", text):
                best = max(best, weight * 0.8)
        total += best
    phrase = " ".join(wanted)
    plain = " ".join(_WORD.findall(name.lower()))
    bonus = 0.5 if plain == phrase else 0.3 if phrase in plain else 0.0
    return total / (3.0 * len(wanted)) + bonus


# find_elements looks on the page; a small model takes it for the site's own search
SEARCH_HINT = (
    "find_elements only looks on this page; to search the site for it, type it into its "
    "search box: {call}"
)


def search_box(found: list[list]) -> list | None:
    """The page's first search field among its actionable elements (a searchbox, or a text
    box whose name or attributes say search), or None."""
    for entry in found:
        _mmid, _tag, role, name, _line, attributes, _nearby = entry
        said = f"{name} {attributes}".lower()
        if role == "searchbox" or (role == "textbox" and re.search(r"\bsearch", said)):
            return entry
    return None


def has_every_word(query: str, *texts: str) -> bool:
    """Whether every word of ``query`` starts a word of one of ``texts``."""
    joined = " ".join(texts).lower()
    return all(re.search(rf"\b{re.escape(w)}", joined) for w in _WORD.findall(query.lower()))


def complete(query: str, entry: list) -> bool:
    """Whether a found element (an entry of the page's list) has every word of ``query``."""
    _mmid, tag, role, name, _line, attributes, nearby = entry
    return has_every_word(query, name, attributes, nearby, kind_words(role or tag))


async def find_on_page(active: BrowserSession, query: str, limit: int) -> str:
    """The best ``limit`` matches among every actionable element of the page, best first,
    numbered as get_dom numbers them, between the page-content markers; ``observed`` learns
    them. When none has every word and the page has a search box, only that box is listed,
    with the call that searches the site for the query."""
    result = json.loads(await read_page(active.current_page(), "find"))
    scored = []
    for entry in result["found"]:
        mmid, tag, role, name, line, attributes, nearby = entry
        points = score(query, name, attributes, nearby, role or tag)
        if points >= 0.5:
            scored.append((points, mmid, line, entry))
    scored.sort(key=lambda item: (-item[0], item[1]))
    best = scored[:limit]  # best first
    remember(active, [entry[:4] for _points, _mmid, _line, entry in best])
    header = result["text"].partition("\n")[0]
    more = f", the best {limit} shown" if len(scored) > limit else ""
    summary = (
        f"{len(scored)} of the page's {result['interactive']} actionable elements match "
        f"{json.dumps(query)}{more}."
    )
    lines = [line for _points, _mmid, line, _entry in best]
    whole = any(complete(query, entry) for *_scored, entry in best)
    box = None if whole else search_box(result["found"])  # the site may find what is not here
    if box is not None:  # a small model clicks any partial match it is shown
        remember(active, [box[:4]])
        lines = [box[4]]
        some = f"; {len(scored)} have some of them (fewer words list those)" if scored else ""
        call = {"selector": f"[mmid='{box[0]}']", "text": query, "press_enter": True}
        summary = (
            f"No element of this page has every word of {json.dumps(query)}{some}. "
            + SEARCH_HINT.format(call=json.dumps({"name": "enter_text", "arguments": call}))
        )
    elif best and not whole:
        summary += " None of them has every word of it: each has only some."
    body = "\n".join(lines)
    return f"{neutralised(header)}\n{neutralised(summary)}\n{fenced(body)}"
