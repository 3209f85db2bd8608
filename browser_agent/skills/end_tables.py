"""What a table on the final page shows of a command's clause: rows in the order asked
(*sort by C*), only rows holding the value asked (*show the X where C is V*), or only the
rows a clause names by their cells (*the kestrel sightings at the lagoon*). Each reads the
tables :func:`browser_agent.skills.page_seen.read_page` found."""

from __future__ import annotations

import itertools
import re

from browser_agent.skills.page_seen import Seen
from browser_agent.words.asks import Ask
from browser_agent.words.text_match import normal

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def sorted_by(ask: Ask, seen: Seen) -> tuple[str, str] | None:
    """*sort by C*: a table with a column headed C lists its rows in that order (numbers
    or dates by their value, words by their letters, as the cells show them); None on a
    page with no such column (its values are then looked for as any clause's are)."""
    cells = _column(ask, seen)
    if cells is None:
        return None
    shown = [cell for cell in cells if cell]
    keys = [_order_key(cell) for cell in shown]
    if len(keys) < 2:
        return "", ""
    # words as the site's own collation may order them: byte by byte, or case aside
    orders = [shown, [cell.casefold() for cell in shown]] if None in keys else [keys]
    ok = {
        "ascending": any(all(a <= b for a, b in itertools.pairwise(o)) for o in orders),  # type: ignore[operator]
        "descending": any(all(a >= b for a, b in itertools.pairwise(o)) for o in orders),  # type: ignore[operator]
    }
    if ok.get(ask.view, ok["ascending"] or ok["descending"]):
        return "", ""
    order = f", {ask.view}" if ask.view else ""
    listed = ", ".join(cells[:4])
    return "", f"does not list its {ask.target!r} column in order{order} ({listed}…)"


def _column(ask: Ask, seen: Seen) -> list[str] | None:
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


def filtered_by(ask: Ask, seen: Seen) -> tuple[str, str] | None:
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


# Words of a clause that name no value a row holds.
_FUNCTION_WORDS = frozenset({"the", "and", "all", "for", "from", "with", "its", "their", "show"})


def rows_named(clause: str, seen: Seen) -> str:
    """Why a table of the page is not the rows a clause names by their cells' values
    ("the kestrel sightings at the lagoon": species kestrel, site lagoon): a word of the
    clause that is a whole cell of a table's column must be in every row of it; "" when
    it is, or when no word of the clause is a cell."""
    words = {word for word in normal(clause).split() if len(word) > 2} - _FUNCTION_WORDS
    for table in seen.tables:
        rows = [[normal(str(cell)) for cell in row] for row in table["rows"] if row]
        named = {word for word in words if any(word in row for row in rows)}
        for word in sorted(named):
            other = next((row for row in rows if word not in row), None)
            if other is not None:
                shown = ", ".join(cell for cell in other if cell)[:80]
                return f"lists rows without {word!r} ({shown})"
    return ""


def _order_key(cell: str) -> float | str | None:
    """A cell as it sorts: its number (a price, a count), or an ISO date as text."""
    if re.fullmatch(r"\d{4}-\d\d-\d\d.*", cell):
        return cell
    found = _NUMBER.search(cell)
    return float(found.group(0).replace(",", "")) if found else None
