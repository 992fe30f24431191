"""Parts of the day: people ask by name ("Do you close in the evening?"), documents
answer with clock times ("open 08:00 to 18:00").

A question's "evening" is covered by evidence that states a clock time in the evening,
and its "close" by a span of hours ("open 08:00 to 18:00" says when it closes), as a
holiday is covered by its date (:func:`assay.text.holidays_dated`): the word is the
asker's, the time is the document's, and a coverage check that wanted the word would
ask back a question the evidence answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: each part of the day a question may name, with the hours (24-hour clock, start
#: inclusive, end exclusive) whose clock times speak to it; "night" wraps past midnight
PARTS: dict[str, tuple[tuple[int, int], ...]] = {
    "morning": ((5, 12),),
    "lunchtime": ((11, 15),),
    "afternoon": ((12, 18),),
    "evening": ((17, 24),),
    "night": ((20, 24), (0, 5)),
}

_NAMED = re.compile(
    r"\b(?:(morning|afternoon|evening|night)s?|(lunch-?time)s?|(tonight)|(overnight))\b", re.I
)

#: "18:00", "6pm", "6.30 p.m.", "noon", "midnight"; never "6.00" alone, which is a price
#: as often as a time
_CLOCK = re.compile(
    r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\b\.?|\b(\d{1,2}):(\d{2})\b|\b(noon|midday|midnight)\b",
    re.I,
)


def parts_named(text: str) -> set[str]:
    """The parts of the day ``text`` names: "this morning" -> {"morning"}."""
    found: set[str] = set()
    for match in _NAMED.finditer(text):
        word, lunch, tonight, overnight = match.groups()
        if word:
            found.add(word.lower())
        elif lunch:
            found.add("lunchtime")
        elif tonight:
            found.add("evening")
        elif overnight:
            found.add("night")
    return found


def clock_hours(text: str) -> list[int]:
    """The hour (0-23) of every clock time ``text`` states: "18:00" -> 18, "6.30pm" -> 18,
    "noon" -> 12; "£6.00" is no time."""
    hours: list[int] = []
    for match in _CLOCK.finditer(text):
        hour12, _, meridiem, hour24, minutes, word = match.groups()
        if word:
            hours.append(0 if word.lower() == "midnight" else 12)
        elif hour12 is not None:
            hour = int(hour12)
            if 1 <= hour <= 12:
                hours.append(hour % 12 + (12 if meridiem.lower() == "p" else 0))
        elif hour24 is not None and int(hour24) < 24 and int(minutes) < 60:
            hours.append(int(hour24))
    return hours


def parts_stated(text: str) -> set[str]:
    """The parts of the day the clock times of ``text`` fall in: "open 08:00 to 18:00"
    -> {"morning", "afternoon", "evening"}."""
    return {
        part
        for hour in clock_hours(text)
        for part, spans in PARTS.items()
        if any(start <= hour < end for start, end in spans)
    }


#: words for when something opens or closes: a span of hours ("08:00 to 18:00") says both
_OPEN_OR_CLOSE = re.compile(r"(?:re)?open(?:s|ing)?|clos(?:e|es|ing)|shut(?:s|ting)?", re.I)
_SPAN = re.compile(
    rf"(?:{_CLOCK.pattern})\s*(?:-|\u2013|to|until|till)\s*(?:{_CLOCK.pattern})", re.I
)


def parts_timed(terms: Iterable[str], texts: Iterable[str]) -> list[str]:
    """The ``terms`` that the clock times of ``texts`` speak to: a part of the day one of
    them falls in (["evening"] for "evening" beside "open 08:00 to 18:00"), and the
    opening or closing a span of hours gives (["close"] beside the same)."""
    texts = list(texts)
    stated = {part for text in texts for part in parts_stated(text)}
    hours = any(_SPAN.search(text) for text in texts)
    return [
        term
        for term in terms
        if parts_named(term) & stated or (hours and _OPEN_OR_CLOSE.fullmatch(term))
    ]
