"""What kind of answer a question expects, and whether a text holds one.

Classic question answering types a question by its wording before looking for the
answer (Moldovan et al., "The structure and performance of an open-domain question
answering system", ACL 2000): "when" wants a date, "how long" a duration, "who" a
name. assay uses the type three ways: the extractive answerer prefers sentences that
hold the type, the judge marks an answer that lacks it, and evidence sufficiency
reports contexts that hold none. Only types that can be recognised on the surface are
used; a question of no recognised type expects nothing in particular.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.text import MONTH, NUMBER, YEAR

__all__ = [
    "CURRENCY_CODES",
    "FREQUENCY",
    "MONEY",
    "AnswerKind",
    "asks_yes_or_no",
    "expected_kind",
    "wants_explanation",
]

_DURATION_UNITS = (
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|yrs?|"
    r"decades?|centuries|century)"
)
#: "5 business days", "ten working days", "30 calendar days"
_DAY_KINDS = r"(?:business|working|calendar|banking|school|consecutive|full|whole)"
_LENGTH_UNITS = r"(?:mm|cm|m|km|metres?|meters?|feet|foot|ft|inch(?:es)?|in|miles?|yards?)"
_FIGURE = (
    r"(?:\d+(?:[.,]\d+)*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|half)"
)


#: how often: "every other week", "twice a year", "3 times per day", "weekly"
FREQUENCY = (
    r"\bevery\s+(?:other\s+|second\s+|\w+\s+)?(?:\w+\s+)?(?:day|week|fortnight|month|year|"
    r"hour|minute|morning|evening|night|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)s?\b|\b(?:once|twice|\w+\s+times)\s+(?:a|an|per|each|every)\s+\w+"
    r"|\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually)\b"
)


@dataclass(frozen=True, slots=True)
class AnswerKind:
    """A type of answer: its name, how to say it, and a pattern that finds it."""

    name: str
    description: str  #: "date or time period", for messages
    pattern: re.Pattern[str]

    def found_in(self, text: str) -> bool:
        """Whether ``text`` holds an answer of this kind."""
        return bool(self.pattern.search(text))


#: ISO 4217 codes written beside an amount ("EUR 14", "120 CHF")
CURRENCY_CODES = "usd|eur|gbp|chf|jpy|cad|aud|nzd|sek|nok|dkk|pln|czk|cny|inr|sgd|hkd"

#: a duration or a length: "5-7 business days", "3 hours", "2 km"
_DURATION = (
    rf"\b{_FIGURE}\s*(?:-|\u2013|to)?\s*{_FIGURE}?\s*(?:{_DAY_KINDS}\s+)?"
    rf"(?:{_DURATION_UNITS}|{_LENGTH_UNITS})\b"
)

_KINDS = {
    "date": AnswerKind(
        "date",
        "date or time period",
        re.compile(
            rf"{YEAR.pattern}|{MONTH.pattern}|\b\d{{1,2}}:\d{{2}}\b|\b(?:monday|tuesday|"
            r"wednesday|thursday|friday|saturday|sunday|century|decade)\b",
            re.I,
        ),
    ),
    "duration": AnswerKind(
        "duration",
        "duration or length",
        re.compile(
            _DURATION,
            re.I,
        ),
    ),
    "temperature": AnswerKind(
        "temperature", "temperature", re.compile(r"\d\s*°|\b[Dd]egrees?\b|\d\s?[CF]\b")
    ),
    "money": AnswerKind(
        "money",
        "price or amount of money",
        re.compile(
            rf"[$€£¥]\s?\d|\b(?:{CURRENCY_CODES})\s?\d"
            rf"|\d\s*(?:dollars|euros|pounds|cents|francs|yen|{CURRENCY_CODES})\b",
            re.I,
        ),
    ),
    "frequency": AnswerKind(  # or the interval: "the batteries last about 12 months"
        "frequency",
        "how often",
        re.compile(rf"{FREQUENCY}|{_DURATION}", re.I),
    ),
    "figure": AnswerKind(
        "figure", "figure or quantity", re.compile(rf"\b{_FIGURE}\b|{NUMBER.pattern}", re.I)
    ),
    "name": AnswerKind(
        "name", "name of a person or organisation", re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+")
    ),
}
#: the kind a price is, for a reader that weighs it apart from the question's kind
MONEY = _KINDS["money"]

_QUESTION_KINDS: list[tuple[re.Pattern[str], str]] = [
    # "when" opening the question, not a clause of it ("How much ... when I'm abroad?")
    (re.compile(r"(?:^|[.;:!?]\s+)\W*when\b|\bwhat\s+(?:year|date|day|month|time|century|"
                r"decade)\b", re.I), "date"),
    (re.compile(r"\bhow\s+(?:long|old|soon)\b", re.I), "duration"),
    (re.compile(r"\bhow\s+often\b", re.I), "frequency"),
    (re.compile(r"\b(?:what|which)\b.*\btemperatures?\b|\bhow\s+(?:hot|cold|warm)\b", re.I),
     "temperature"),
    (re.compile(r"\bhow\s+much\b.*\b(?:cost|pay|charge\s+for|price)\b|\b(?:what|which)\s+"
                r"(?:is\s+the\s+)?(?:price|cost|fee)\b", re.I), "money"),
    (re.compile(r"\bhow\s+(?:many|much|far|tall|high|big|large|wide|deep|heavy|fast)\b|"
                r"\bwhat\s+(?:percentage|percent|number|amount|size|proportion)\b", re.I),
     "figure"),
    (re.compile(r"^\W*(?:who|whom|whose)\b", re.I), "name"),  # not "the composer who was"
]  # fmt: skip


def expected_kind(question: str) -> AnswerKind | None:
    """The kind of answer ``question`` asks for; ``None`` when its wording does not say."""
    for pattern, kind in _QUESTION_KINDS:
        if pattern.search(question):
            return _KINDS[kind]
    return None


#: questions that want an explanation or a yes or no, not a span: the reader, trained on
#: spans, neither declines them nor gives their short answer
_AUXILIARY = (
    r"(?:can|could|may|might|must|should|shall|is|are|was|were|do|does|did|will|would"
    r"|has|have|had)\b"
)
_EXPLAIN = re.compile(
    rf"^\W*why\b|^\W*how\s+(?:come\b|to\b|{_AUXILIARY})"
    r"|^\W*what\s+(?:happens|happened|will\s+happen|should\b|to\s+do\b|do\s+\w+\s+do\b)"
    rf"|^\W*{_AUXILIARY}",
    re.I,
)
#: a yes-or-no question, also when it follows a statement ("It blows a fuse; can I ...?")
_YES_NO = re.compile(rf"(?:^|[.;:!?]\s+)\W*{_AUXILIARY}(?:[^.;:!?]|\.(?=\d))*\?\s*$", re.I)


def wants_explanation(question: str) -> bool:
    """Whether ``question`` wants an explanation, a description or a yes or no ("Why
    ...", "How does ...", "What happens if ...", "Can I ..."), not a span of a passage.
    "How" followed by an adjective asks for a degree ("How accurate ...", "How long ..."),
    which a span states."""
    return _EXPLAIN.search(question) is not None


def asks_yes_or_no(question: str) -> bool:
    """Whether ``question`` is a yes-or-no question, also after a statement."""
    return _YES_NO.search(question) is not None
