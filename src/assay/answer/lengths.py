"""Lengths of time however they are written: "an hour", "hour-long", "half an hour",
"90-minute" and "1.5 hours" are all minutes, and so are "12 months", "a year" and
"yearly" (pure).

People ask for "an hour-long massage"; a price list has a row "Full body massage:
Length: 60 minutes". The words differ, the length is the same: :func:`minutes_stated`
reads both as 60, so that the row of the asked length can be told from its neighbours
(:func:`assay.answer.reading.row_weights`). "How much is a yearly prepayment
certificate?" is so told the row "Prepayment certificate, 12 months" from "..., 3
months". A month is a twelfth of a year here, so that "12 months" is "a year".
"""

from __future__ import annotations

import re

__all__ = ["minutes_stated"]

_WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "sixty": 60, "ninety": 90,
}  # fmt: skip
_YEAR = 525_600  # minutes: a month is a twelfth of it, so "12 months" is "a year"
_UNIT_MINUTES = {
    "minute": 1, "min": 1, "hour": 60, "hr": 60, "h": 60, "day": 1440, "week": 10_080,
    "month": _YEAR // 12, "year": _YEAR,
}  # fmt: skip

_AMOUNT = r"(\d+(?:\.\d+)?|" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(minute|min|hour|hr|h|day|week|month|year)s?"
#: "60 minutes", "90-minute", "1.5 hours", "an hour", "two-day"
_LENGTH = re.compile(
    rf"\b{_AMOUNT}[\s-]?{_UNIT}\b(?!-|\s+and\s+a\s+half)|\b{_AMOUNT}[\s-]{_UNIT}-long\b", re.I
)
#: "half an hour", "a half-hour", "an hour and a half", "a quarter of an hour", "hour-long"
_SPECIAL = (
    (re.compile(r"\ban\s+hour\s+and\s+a\s+half\b", re.I), 90),
    (re.compile(r"\bhalf\s+an\s+hour\b|\bhalf-hour\b", re.I), 30),
    (re.compile(r"\b(?:a\s+)?quarter\s+of\s+an\s+hour\b", re.I), 15),
    (re.compile(r"(?<![\w-])hour-long\b", re.I), 60),
    # a period named by its adjective: "a yearly certificate", "the annual pass"
    (re.compile(r"\b(?:yearly|annual)\b", re.I), _YEAR),
    (re.compile(r"\bmonthly\b", re.I), _UNIT_MINUTES["month"]),
    (re.compile(r"\bweekly\b", re.I), _UNIT_MINUTES["week"]),
)


def minutes_stated(text: str) -> set[int]:
    """The lengths of time ``text`` states, in whole minutes: "How much is an hour-long
    massage?" -> {60}; "Length: 90 minutes" -> {90}; "yearly" and "12 months" -> {525600};
    a clock time ("at 3pm") is none."""
    found = {minutes for pattern, minutes in _SPECIAL if pattern.search(text)}
    for match in _LENGTH.finditer(text):
        amount = match.group(1) or match.group(3)
        unit = (match.group(2) or match.group(4)).lower()
        start = match.start()
        if text[max(0, start - 12) : start].lower().endswith(("half ", "half-", "quarter of ")):
            continue  # "half an hour", "a quarter of an hour" are read above
        value = _WORD_NUMBERS.get(amount.lower()) if not amount[0].isdigit() else float(amount)
        if value is not None:
            found.add(round(float(value) * _UNIT_MINUTES[unit]))
    return found
