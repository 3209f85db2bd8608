"""Filtering and sorting a list, as a person does it on any site. Showing the rows where a
column holds a value ("show the sightings where species is osprey", "… with a count greater
than 54"): a filter form's column chooser set to the column, its comparison to the one
asked, its value field to the value, then the form's own button; or, with no chooser, the
field named for the column itself. Sorting by a column ("…, highest first"): the site's
sort drop-down, else the column's header, clicked until the address says the list is sorted
that way. Nothing names a site; the end-state check reads the rows shown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from browser_agent.llm.offline.form_tasks import FILTER_PARTS, Narrow, Order, Save
from browser_agent.llm.offline.outcome import Action, Blocked, Done, Outcome, Situation, choose
from browser_agent.llm.offline.page import CHOICE_ROLES, TEXT_ROLES, Element, Option, Page
from browser_agent.llm.offline.resolve import find_fill, resolve
from browser_agent.llm.offline.tasks import Assign
from browser_agent.llm.offline.words import words
from browser_agent.words.asks import Ask

#: How a site's comparison options are named, for each comparison a command asks.
COMPARISONS: dict[str, tuple[str, ...]] = {
    "equal": ("=", "==", "is", "equals", "equal to", "exact"),
    "greater": (">", "greater than", "gt", "more than", "above"),
    "less": ("<", "less than", "lt", "fewer than", "below"),
}


def filter_tasks(ask: Ask) -> list[Narrow | Save]:
    """The steps of a filter clause read by the end-state check's reader."""
    value = ask.values[0]
    parts: list[Narrow | Save] = [Narrow(p, ask.target, ask.view, value) for p in FILTER_PARTS]
    return [*parts, Save("filter")]


@dataclass(frozen=True)
class Row:
    """A filter on the page: what names its column (a text, or a drop-down of columns: the
    ``chooser``), the drop-downs between that and its value ``field`` (how it compares)."""

    chooser: Element | None
    compares: tuple[Element, ...]
    field: Element


def narrow(task: Narrow, situation: Situation) -> Outcome:
    """The next step of one part of a filter on the page as last observed."""
    page = situation.page
    row = filter_row(page, task.column)
    if row is None:
        return _without_row(task, situation)
    if task.part == "column":
        if row.chooser is None:
            return Done()
        return choose(row.chooser, _option(row.chooser.options, (task.column,)), task.column, page)
    if task.part == "comparison":
        names = COMPARISONS.get(task.comparison, ())
        compare = next((e for e in row.compares if _option(e.options, names)), None)
        if compare is not None:
            return choose(compare, _option(compare.options, names), names[0], page)
        if task.comparison == "equal" and not row.compares:
            return Done()  # a filter with no comparison to choose is one of equality
        return Blocked(
            f'could not find how to compare "{task.column}" ({task.comparison}) in the filter '
            f"on {page.url}"
        )
    if row.field.attrs.get("value", "") == task.value:
        return Done()
    arguments = {"selector": row.field.selector, "text": task.value, "press_enter": False}
    return Action("enter_text", arguments, f'type "{task.value}" into {row.field.describe()}')


def filter_row(page: Page, column: str) -> Row | None:
    """The filter for ``column``: a text naming it, or a drop-down of columns set to it or
    still free, followed by nothing but drop-downs up to a field for the value. Of several,
    one already for the column first, else the last free one (a new filter's)."""
    rows: list[tuple[bool, int, Row]] = []
    for namer in page.elements:
        option = _option(namer.options, (column,)) if namer.role in CHOICE_ROLES else None
        named = namer.is_text and not namer.is_heading and words(namer.name) == words(column)
        if option is None and not named:
            continue
        free = option is not None and not any(o.selected and o.value for o in namer.options)
        if option is not None and not (option.selected or free):
            continue  # a chooser set to another column: another filter's
        compares: list[Element] = []
        for element in page.elements[namer.position + 1 :]:
            if element.role in CHOICE_ROLES:
                compares.append(element)
                continue
            if element.role in TEXT_ROLES:
                chooser = namer if option is not None else None
                rows.append((not free, namer.position, Row(chooser, tuple(compares), element)))
            break
    return max(rows, key=lambda r: (r[0], r[1]))[2] if rows else None


def _adder(page: Page, column: str) -> Element | None:
    """A drop-down that offers the column with nothing chosen yet: choosing it may add a
    filter for the column (Trac's "And"); the first such."""
    for element in page.interactive():
        options = element.options if element.role in CHOICE_ROLES else ()
        if _option(options, (column,)) and not any(o.selected and o.value for o in options):
            return element
    return None


def _without_row(task: Narrow, situation: Situation) -> Outcome:
    """No filter for the column on the page: a drop-down that offers it may add one (chosen
    once, a step on the way); else a field of the column's own name ("Status") takes the
    value and there is nothing to choose."""
    page = situation.page
    adds = _adder(page, task.column) if "filter" not in situation.prepared else None
    if task.part == "column" and adds is not None:
        option = _option(adds.options, (task.column,))
        note = f'choose "{task.column}" in {adds.describe()}, which may add a filter for it'
        chosen = option.value or option.label if option else task.column
        arguments = {"selector": adds.selector, "option": chosen}
        return Action("select_option", arguments, note, phase="prepare", kind="filter")
    own = next((e for e in page.interactive() if _is_named(e, task.column)), None)
    if own is None:
        return Blocked(
            f'could not find a filter for "{task.column}" on {page.url}: looked for a '
            "drop-down of columns or a text naming it before a field, and a field of its name"
        )
    if task.part == "column":
        return Done()
    if task.part == "comparison":
        if task.comparison == "equal":
            return Done()
        return Blocked(
            f'could not find how to compare "{task.column}" ({task.comparison}) on {page.url}'
        )
    if own.role in CHOICE_ROLES:
        return choose(own, _option(own.options, (task.value,)), task.value, page)
    if own.attrs.get("value", "") == task.value:
        return Done()
    arguments = {"selector": own.selector, "text": task.value, "press_enter": False}
    return Action("enter_text", arguments, f'type "{task.value}" into {own.describe()}')


def _is_named(element: Element, column: str) -> bool:
    """A field whose label is the column's name ("Status", "Species:")."""
    return element.role in TEXT_ROLES | CHOICE_ROLES and words(element.name) == words(column)


def _option(options: tuple[Option, ...], names: tuple[str, ...]) -> Option | None:
    """The option named by one of ``names`` (its label or value), the earlier name first."""
    for name in map(_plain, names):
        for option in options:
            if name and name in (_plain(option.label), _plain(option.value)):
                return option
    return None


def _plain(text: str) -> str:
    """A name as compared: case and spaces aside, its marks kept ("=" is not ">")."""
    return " ".join(text.split()).casefold()


#: What an address holds when its list is sorted highest first.
_DESCENDING = re.compile(r"desc", re.IGNORECASE)


def order(task: Order, situation: Situation) -> Outcome:
    """The next step of sorting: the sort drop-down's option, else a click on the column's
    header: a first click (a step on the way) sorts by it, a second turns it round when
    the address says the first sorted it the other way."""
    page = situation.page
    by_box = Assign(keys=("sort", "order"), value=task.value)
    header = _header(page, task.column)
    if find_fill(by_box, page) is not None or header is None:
        return resolve(by_box, situation)
    sorted_by = _sorted_by(page.url, task.column)
    if sorted_by is None:
        note = f"click {header.describe()}, the column's header, to sort by it"
        return Action("click", {"selector": header.selector}, note, phase="prepare", kind="sort")
    if task.direction and sorted_by != task.direction:
        note = f"click {header.describe()} again to sort {task.direction}"
        return Action("click", {"selector": header.selector}, note)
    return Done()


def _header(page: Page, column: str) -> Element | None:
    """The link named by the column, marks aside ("species", "count ▼"): of several (a facet
    and the header), the last, the table's own."""
    wanted = words(column)
    found = [e for e in page.interactive() if e.role == "link" and words(e.name) == wanted]
    return found[-1] if found else None


def _sorted_by(url: str, column: str) -> str | None:
    """How the address says the list is sorted by ``column`` (descending when the column's
    key or value says "desc", or another key or value of the query does: desc=1, dir=desc),
    or None when it does not name the column."""
    query = parse_qsl(urlsplit(url).query)
    turned = any(  # desc=1, dir=desc, order=DESC beside the column's key
        (_DESCENDING.search(key) and value.lower() not in ("", "0", "false"))
        or _DESCENDING.fullmatch(value.lower().removesuffix("ending"))
        for key, value in query
    )
    for key, value in query:
        if words(value) == words(column) or value.lstrip("-") == column:
            descending = turned or _DESCENDING.search(key + value) or value.startswith("-")
            return "descending" if descending else "ascending"
    return None
