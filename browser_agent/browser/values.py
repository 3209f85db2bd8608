"""Values as typed fields want them: dates and times said the way people say them.

``<input type=time>`` takes "19:55", not "7:55 PM"; Playwright's fill refuses anything
else and a skill would go on with an empty field. Text for such fields is read with
dateutil's parser and written in the field's own format; other fields take text as is.
"""

from __future__ import annotations

from datetime import datetime

#: The value format of each typed input, as HTML defines it.
FORMATS = {
    "date": "%Y-%m-%d",
    "time": "%H:%M",
    "datetime-local": "%Y-%m-%dT%H:%M",
    "month": "%Y-%m",
}


def field_value(input_type: str, text: str) -> str:
    """``text`` in the format an input of ``input_type`` holds; ValueError when ``text``
    says no date or time such a field can hold."""
    kind = input_type.lower()
    if kind not in FORMATS and kind != "week":
        return text
    try:
        moment = datetime.strptime(text.strip(), FORMATS[kind]) if kind in FORMATS else None
    except ValueError:
        moment = None
    if moment is None:
        from dateutil import parser as dates  # only for a date said in words: 10 ms to load

        try:
            moment = dates.parse(text, default=datetime(2000, 1, 1))
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"{text!r} is not a {kind} this field can hold") from exc
    if kind == "week":
        year, week, _day = moment.isocalendar()
        return f"{year}-W{week:02d}"
    return moment.strftime(FORMATS[kind])
