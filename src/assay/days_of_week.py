"""Days of the week however a text gives them: by name ("Tuesday", "Tues"), by a span
("Sunday to Thursday", "Mon-Fri") or by their kind ("weekdays", "at weekends").

People ask about one day ("How much is a double on a Tuesday?"); price lists and opening
hours give spans ("Sunday to Thursday: £110, Friday and Saturday: £145"). A day falls
in a span whatever words the span uses, so the column of a table row and the judge's
check of what the evidence holds read the span's days, not its words.
"""

from __future__ import annotations

import re

__all__ = ["days_named"]

_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: a day by its name ("Tuesday", "tuesdays") or its capitalised short name ("Tue",
#: "Thurs."): "the sun is out" names no Sunday
_DAY = (
    r"(?:(?i:(mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)s?)"
    r"|(Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?:s|rs?)?\.?)"
)
#: "Sunday to Thursday", "Mon-Fri", "Monday \u2013 Friday", "Tuesday through Saturday"
_SPAN = re.compile(
    rf"\b{_DAY}\s*(?:-|\u2013|\u2014|(?i:to|through|thru|until|till))\s*{_DAY}(?![\w-])"
)
_ONE = re.compile(rf"\b{_DAY}(?![\w-])")
_KINDS = (
    (re.compile(r"\bweek-?days?\b|\bweek-?nights?\b", re.I), range(5)),
    (re.compile(r"\bweek-?ends?\b", re.I), range(5, 7)),
)


def days_named(text: str) -> set[int]:
    """The days of the week ``text`` names (0 is Monday): "Sunday to Thursday" ->
    {6, 0, 1, 2, 3}; "Friday and Saturday" -> {4, 5}; "weekends" -> {5, 6}."""
    days: set[int] = set()
    for span in _SPAN.finditer(text):
        first, last = (_NAMES.index(d.lower()) for d in span.groups() if d)
        days |= {(first + n) % 7 for n in range((last - first) % 7 + 1)}
    rest = _SPAN.sub(" ", text)
    days |= {_NAMES.index((m.group(1) or m.group(2)).lower()) for m in _ONE.finditer(rest)}
    for pattern, kind in _KINDS:
        if pattern.search(rest):
            days |= set(kind)
    return days
