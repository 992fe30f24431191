"""A question whose own count lies outside the bound its answer states.

"How much does it cost to collect 5 bulky items?" against "We collect up to 3 bulky
items ... for £35. Each further item costs £10": the sentence that best matches the
question states the price of at most three, so "£35" would answer the question as if the
asker had three. The answer must quote the rule on (the next sentence says what further
items cost) and lead with no short value, which the reader works out from the quote.
Likewise below a minimum: "I've worked here for 8 months. Will my maternity leave be on
full pay?" against "The first 26 weeks are paid at full salary once you have worked for
us for at least 12 months; with less service, statutory pay applies throughout" is not
answered by leading with "The first 26 weeks are paid at full salary". And where a rule
gives a value for each of what the asker counts ("I've worked here 4 years, how much
notice would the company give me?" against "1 month's notice for each complete year of
service, up to 12 weeks"), its "1 month" is no answer: the reader multiplies.

A rule often comes as its cases, each bounded: "If you cancel 7 days or more before
departure you get a full refund. If you cancel less than 7 days before, we refund half
the fare." The asker's own quantity ("I cancel three days before") picks the case
(:func:`meets_condition`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from assay.text import content_terms, stem

__all__ = [
    "asks_limit", "exceeds_bound", "falls_short", "in_range", "meets_bound", "meets_condition",
    "per_each", "states_bound", "states_limit",
]  # fmt: skip

_WORDS = r"((?:\s+[A-Za-z][\w-]*){1,3})"
#: a count a rule caps: "up to 3 bulky items", "a maximum of 6 guests"
_UP_TO = re.compile(
    rf"\b(?:up\s+to|at\s+most|no\s+more\s+than|a\s+maximum\s+of|maximum\s+of)\s+(\d+){_WORDS}",
    re.I,
)
#: a count a rule requires: "at least 12 months", "a minimum of 2 years"
_AT_LEAST = re.compile(
    rf"\b(?:at\s+least|no\s+fewer\s+than|no\s+less\s+than|a\s+minimum\s+of|minimum\s+of)"
    rf"\s+(\d+){_WORDS}",
    re.I,
)
#: a value given for each of something: "for each complete year of service", "per guest"
_PER_EACH = re.compile(
    r"\b(?:for|per|with)\s+(?:each|every)\s+(?:complete\s+|full\s+|additional\s+|extra\s+)?"
    r"([A-Za-z]+)|\bper\s+([A-Za-z]+)",
    re.I,
)
#: a count the asker states: "5 bulky items", "8 guests"
_COUNT = re.compile(rf"(?<![\d.,£$€])\b(\d{{1,4}})\b(?![.,]\d){_WORDS}")


def _nouns(words: str) -> set[str]:
    return {stem(w) for w in content_terms(words)}


def _outside(question: str, sentence: str, bound: re.Pattern[str], above: bool) -> bool:
    """Whether ``question`` states a count of a thing that a ``bound`` of ``sentence`` on
    the same thing leaves out: above it when ``above``, else below it."""
    bounds = [(int(m.group(1)), _nouns(m.group(2))) for m in bound.finditer(sentence)]
    return any(
        (asked > limit if above else asked < limit) and nouns & _nouns(m.group(2))
        for m in _COUNT.finditer(question)
        if (asked := int(m.group(1)))
        for limit, nouns in bounds
    )


def exceeds_bound(question: str, sentence: str) -> bool:
    """Whether ``question`` states a count of something above the most of it that
    ``sentence`` allows for ("5 bulky items" against "up to 3 bulky items")."""
    return _outside(question, sentence, _UP_TO, above=True)


def falls_short(question: str, sentence: str) -> bool:
    """Whether ``question`` states a count of something below the least of it that
    ``sentence`` requires ("8 months" against "at least 12 months")."""
    return _outside(question, sentence, _AT_LEAST, above=False)


def per_each(question: str, sentence: str) -> bool:
    """Whether ``sentence`` gives a value for each of a thing that ``question`` counts
    ("4 years" against "1 month's notice for each complete year of service")."""
    each = {stem(m.group(1) or m.group(2)) for m in _PER_EACH.finditer(sentence)}
    return any(
        int(m.group(1)) > 1 and each & _nouns(m.group(2).split()[0])
        for m in _COUNT.finditer(question)
    )


#: a yes-or-no question whether something is capped: "Is mileage unlimited?", "Is there a
#: limit on guests?"
_ASKS_LIMIT = re.compile(r"\b(?:un)?limited\b|\b(?:a|any)\s+(?:limit|maximum|cap)\b", re.I)


def asks_limit(question: str) -> bool:
    """Whether ``question`` asks whether something is limited (or unlimited)."""
    return _ASKS_LIMIT.search(question) is not None


def states_bound(text: str) -> bool:
    """Whether ``text`` states a count a rule caps or requires ("up to 150 miles per day",
    "at least 12 months")."""
    return _UP_TO.search(text) is not None or _AT_LEAST.search(text) is not None


#: a span that states a bound rather than a value: "more than 10 consecutive days"
_BOUND_SPAN = re.compile(
    r"^\W*(?:(more\s+than|over|above|longer\s+than|at\s+least)"
    r"|(less\s+than|under|below|fewer\s+than|up\s+to|at\s+most))\s+(\d+(?:\.\d+)?)\b",
    re.I,
)
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")
#: the words that state a figure as the most or the least of something, before it ("up
#: to £85,000", "only ever pays 50%", "at least 18") or after it ("20kg max", "18 or over")
_LIMIT_BEFORE = re.compile(
    r"\b(?:up\s+to|at\s+(?:most|least)|no\s+(?:more|less|fewer)\s+than|(?:a\s+)?(?:maximum|minimum)"
    r"(?:\s+of)?|max|min|capped\s+at|limited\s+to|only(?:\s+[a-z]+){0,2})\s*[$€£¥]?\s*$",
    re.I,
)
_LIMIT_AFTER = re.compile(
    r"^(?:\s*[a-z%°]{1,6}\.?)?\s*(?:max(?:imum)?|min(?:imum)?|or\s+(?:less|more|under|over|fewer|above|below))\b",
    re.I,
)


def meets_bound(value: str, bound: str) -> bool:
    """Whether ``bound`` is a span that states a bound ("more than 10 consecutive days",
    "up to 3 items") and the one figure of ``value`` ("25") lies within it: a rule's
    threshold ("Requests of more than 10 consecutive days need director approval") does
    not disagree with an entitlement of 25 days."""
    m = _BOUND_SPAN.match(bound)
    found = _NUMBER.findall(value.replace(",", ""))
    if m is None or len(found) != 1:
        return False
    limit, said = float(m.group(3)), float(found[0])
    return said > limit if m.group(1) else said <= limit


def states_limit(text: str, value: str) -> bool:
    """Whether ``text`` states the figure of ``value`` as the most or the least of
    something ("FSCS only covers you up to £85,000", "20kg max"): a rival limit, not a
    value that lies within a bound. An answer's "up to 23 kg" and a forum's "20kg max"
    disagree, where a rule's "more than 10 consecutive days" and an entitlement of "25
    days" do not (:func:`meets_bound`)."""
    found = _NUMBER.findall(value.replace(",", ""))
    if len(found) != 1:
        return False
    plain = text.replace(",", "")
    for m in _NUMBER.finditer(plain):
        if float(m.group(0)) == float(found[0]) and (
            _LIMIT_BEFORE.search(plain[max(0, m.start() - 30) : m.start()])
            or _LIMIT_AFTER.match(plain[m.end() : m.end() + 20])
        ):
            return True
    return False


_SMALL_NUMBERS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
_QUANTITY = rf"(\d+(?:\.\d+)?|{'|'.join(_SMALL_NUMBERS)})"
#: units a case of a rule is bounded in, each to its singular
_UNITS = {
    "minute": "minute", "min": "minute", "hour": "hour", "hr": "hour", "day": "day",
    "night": "night", "week": "week", "month": "month", "year": "year", "yr": "year",
    "kg": "kg", "km": "km", "mile": "mile",
}  # fmt: skip
_UNIT = r"(minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?|yrs?|kg|km|miles?)\b"
#: the asker's own quantity: "three days before", "a 9-hour flight", "my 70-year-old"
_ASKERS = re.compile(rf"\b{_QUANTITY}(?:\s|-)(?:working\s+|calendar\s+|business\s+)?{_UNIT}", re.I)
_AT_LEAST_WORDS = r"at\s+least|no\s+less\s+than|no\s+fewer\s+than|a\s+minimum\s+of"
_ABOVE_WORDS = r"more\s+than|over|above|longer\s+than|older\s+than"
_AT_MOST_WORDS = r"up\s+to|at\s+most|no\s+more\s+than|a\s+maximum\s+of|within"
_BELOW_WORDS = r"less\s+than|fewer\s+than|under|below|shorter\s+than|younger\s+than"
#: a bounded case: "less than 7 days", "at least 12 months", "7 days or more"
_CASE = re.compile(
    rf"\b(?:(?P<before>{_AT_LEAST_WORDS}|{_ABOVE_WORDS}|{_AT_MOST_WORDS}|{_BELOW_WORDS})\s+"
    rf"{_QUANTITY}\s*(?:working\s+|calendar\s+|business\s+)?{_UNIT}"
    rf"|{_QUANTITY}\s*(?:working\s+|calendar\s+|business\s+)?{_UNIT}\s+"
    r"(?P<after>or\s+(?:more|longer|over|above|older|less|fewer|under|below|shorter|younger)"
    r"|and\s+(?:over|above|under|below)))",
    re.I,
)


#: "a week before", "an hour late": one of the unit, where a case follows
_ASKERS_ONE = re.compile(
    rf"\ban?\s+{_UNIT}\s+(?:before|after|ago|early|earlier|late|later|in\s+advance)\b", re.I
)
#: units of time that measure one span in other words, each in its smallest: "a week
#: before" meets "28 days or less before", "an hour late" is no "30 to 59 minutes". Not
#: months or years: "8 months" of service is no "trip of 10 days or more", nor is a
#: "12 year old dog" measured by "from 8 weeks old" (a month meets weeks alone:
#: :data:`_WEEKS_A_MONTH`)
_SAME_SPAN = {"minute": ("minute", 1.0), "hour": ("minute", 60.0), "day": ("day", 1.0),
              "night": ("day", 1.0), "week": ("day", 7.0)}  # fmt: skip


#: a month in weeks, for "a month before" against "more than 6 weeks before"
_WEEKS_A_MONTH = 52 / 12


def _value(text: str) -> float:
    word = text.lower()
    return float(_SMALL_NUMBERS.index(word) + 1) if word in _SMALL_NUMBERS else float(word)


def _asked(question: str) -> list[tuple[float, str]]:
    """The quantities the asker states, each with its unit: "three days before", "a
    9-hour flight", "a week before"."""
    asked = [(_value(m.group(1)), _unit_of(m.group(2))) for m in _ASKERS.finditer(question)]
    return asked + [(1.0, _unit_of(m.group(1))) for m in _ASKERS_ONE.finditer(question)]


def _measured(value: float, unit: str, limit: float, limit_unit: str) -> tuple[float, float] | None:
    """``value`` and ``limit`` in one unit (:data:`_SAME_SPAN`); ``None`` when they
    measure different things."""
    if unit == limit_unit:
        return value, limit
    if {unit, limit_unit} == {"month", "week"}:  # "a month before" against "6 weeks"
        return (
            (value * _WEEKS_A_MONTH, limit) if unit == "month" else (value, limit * _WEEKS_A_MONTH)
        )
    (base, scale), (limit_base, limit_scale) = (
        _SAME_SPAN.get(unit, (unit, 1.0)),
        _SAME_SPAN.get(limit_unit, (limit_unit, 1.0)),
    )
    return (value * scale, limit * limit_scale) if base == limit_base else None


def _unit_of(text: str) -> str:
    word = text.lower()
    return _UNITS.get(word, _UNITS.get(word.rstrip("s"), word))


def _holds(value: float, limit: float, words: str) -> bool:
    """Whether ``value`` lies within the bound ``words`` ("less than", "or more") sets at
    ``limit``."""
    words = " ".join(words.lower().split())
    if re.fullmatch(_AT_LEAST_WORDS, words) or words in {"or more", "or longer", "or over",
                                                        "or above", "or older", "and over",
                                                        "and above"}:  # fmt: skip
        return value >= limit
    if re.fullmatch(_ABOVE_WORDS, words):
        return value > limit
    if re.fullmatch(_BELOW_WORDS, words):
        return value < limit
    return value <= limit  # up to, at most, within, or less, and under


#: an age a rule starts or stops at: "from 8 weeks old", "until your pet is 10 years old"
_AGE = re.compile(
    rf"\b(?P<words>from|until|till|up\s+to)\s+(?:(?:your|the|their|its|his|her)\s+\w+\s+"
    rf"(?:is|are|turns?)\s+)?{_QUANTITY}\s*{_UNIT}\s+old\b",
    re.I,
)
#: an age in years without the unit: "aged 18 or over", "aged under 16", "over the age of 65"
_AGED = re.compile(
    rf"\baged\s+{_QUANTITY}\s*(?P<after>or\s+(?:over|older|above)|and\s+(?:over|above)|\+)"
    rf"|\b(?:aged\s+|(?=(?:over|under)\s+the\s+age))(?P<before>under|below|over)\s+"
    rf"(?:the\s+age\s+of\s+)?{_QUANTITY}",
    re.I,
)


#: an age the asker gives without its unit: "I'm 68, can I still give blood?", "My son
#: is 16": years
_ASKERS_AGE = re.compile(
    r"\b(?:I['\u2019]m|I\s+am|(?:he|she)\s+is|(?:he|she)['\u2019]s|(?:my|our)\s+\w+\s+is)\s+"
    r"(\d{1,3})\b(?!\s*(?:[.,]\d|%|[A-Za-z]))",
    re.I,
)
#: a rule's ages without the unit: "If you are over 70", "aged 17 to 70"
_OVER_AGE = re.compile(
    rf"\b(?:you\s+are|you['\u2019]re)\s+(over|under|below|above)\s+{_QUANTITY}\b"
    r"(?!\s*(?:[.,]\d|%|[A-Za-z]))",
    re.I,
)
_AGED_RANGE = re.compile(rf"\baged\s+{_QUANTITY}\s*(?:-|\u2013|to)\s*{_QUANTITY}\b", re.I)

#: a range a case lies in: "30 to 59 minutes", "between 2 and 5 days", "aged 5 to 15"
_RANGE = re.compile(
    rf"\b(?:between\s+{_QUANTITY}\s+and\s+|{_QUANTITY}\s*(?:-|\u2013|to\s)\s*){_QUANTITY}\s*"
    rf"(?:working\s+|calendar\s+|business\s+)?{_UNIT}"
    rf"|{_AGED_RANGE.pattern}",
    re.I,
)


def _bounds(sentence: str) -> Iterator[tuple[str, str, str]]:
    """Each bound ``sentence`` sets, as (its words, its limit, its unit): ("less than",
    "7", "days") of "If you cancel less than 7 days before"; an age given without a unit
    ("aged 18 or over", "if you are over 70", "aged 17 to 70") is in years."""
    for m in _CASE.finditer(sentence):
        if m.group("before"):
            yield m.group("before"), m.group(2), m.group(3)
        else:
            yield m.group("after"), m.group(4), m.group(5)
    for m in _AGE.finditer(sentence):
        starts = m.group("words").lower()  # "until 10 years old": not once it is 10
        words = {"from": "at least", "until": "less than", "till": "less than"}.get(starts, starts)
        yield words, m.group(2), m.group(3)
    for m in _AGED.finditer(sentence):
        yield (
            ("at least" if m.group("after") else m.group("before")),
            m.group(1) or m.group(4),
            "year",
        )
    for m in _OVER_AGE.finditer(sentence):
        yield m.group(1), m.group(2), "year"
    for m in _AGED_RANGE.finditer(sentence):
        yield "at least", m.group(1), "year"
        yield "at most", m.group(2), "year"


def in_range(question: str, label: str) -> bool | None:
    """Whether the quantity the asker states in ``question`` ("40 minutes late") lies in
    a range ``label`` gives in the same unit ("Delay 30 to 59 minutes": True; "15 to 29
    minutes": False; "aged 5 to 15": years); ``None`` where it gives none. For the
    header of a table row, which names the case the row is for: in prose a range is as
    often a value ("1 tablet every 6 to 8 hours" is no case of "in 24 hours")."""
    asked = _asked(question)
    verdicts = []
    for m in _RANGE.finditer(label) if asked else ():
        low, high, unit = m.group(1) or m.group(2), m.group(3), m.group(4)
        if m.group(5):  # "aged 5 to 15": years
            low, high, unit = m.group(5), m.group(6), "year"
        for value, its_unit in asked:
            lower = _measured(value, its_unit, _value(low), _unit_of(unit))
            upper = _measured(value, its_unit, _value(high), _unit_of(unit))
            if lower is not None and upper is not None:
                verdicts.append(lower[1] <= lower[0] <= upper[1])
    return any(verdicts) if verdicts else None


def meets_condition(question: str, sentence: str) -> bool | None:
    """Whether the quantity the asker states in ``question`` ("if I cancel three days
    before") lies within every bound ``sentence`` sets on a quantity of the same unit
    ("If you cancel less than 7 days before": True; "7 days or more before": False), an
    age a rule starts or stops at included ("until your pet is 10 years old");
    ``None`` where the sentence bounds no quantity in a unit the question states. An age
    the asker gives bare ("I'm 68") is in years."""
    asked = _asked(question)
    asked += [(_value(m.group(1)), "year") for m in _ASKERS_AGE.finditer(question)]
    verdicts = [
        _holds(*both, words)
        for words, limit, unit in (_bounds(sentence) if asked else ())
        for value, its_unit in asked
        if (both := _measured(value, its_unit, _value(limit), _unit_of(unit))) is not None
    ]
    return all(verdicts) if verdicts else None
