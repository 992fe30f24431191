"""What a sentence answers to a yes-or-no question about cost or a limit, without denying.

"Is roaming free in the EU?": "Roaming in the EU costs £2 a day" says no, though it
denies nothing, and a forum's "EU roaming is still free" says yes. "Do I pay for
returns?": "Returns by post cost £3.50" says yes, "returns to a store are free" no. "Is
mileage unlimited?": "up to 150 miles per day" says no. A negation reads the other way
for any other question (:func:`assay.answer.choose`); these questions are answered by a
price, "free" or a limit, so those decide.
"""

from __future__ import annotations

import re

from assay.answer.expected import MONEY

__all__ = ["asks_cost", "says_no", "states_cost"]

#: a question whether something costs nothing: "Is roaming free in the EU?", "Does a smart
#: meter cost anything?"
_ASKS_FREE = re.compile(
    r"\bfree\b|\bcost\s+(?:anything|extra)\b|\bany\s+(?:charge|fee|cost)\b|\bpay\s+anything\b",
    re.IGNORECASE,
)
#: a question whether one pays: "Do I pay for returns?", "Is there a charge for ...?"
_ASKS_PAY = re.compile(
    r"\b(?:do|will|would|must|should)\s+(?:I|we|you)\s+(?:have\s+to\s+|need\s+to\s+)?pay\s+for\b"
    r"|\bis\s+there\s+a\s+(?:charge|fee|cost)\b|\b(?:am|are|is)\s+(?:I|we|you|it)\s+charged\b",
    re.IGNORECASE,
)
#: a sentence that says it costs nothing, and one that says it no longer does
_COSTS_NOTHING = re.compile(
    r"\bfree\b|\bno\s+(?:extra\s+)?(?:charge|fee|cost)\b|\bat\s+no\s+(?:extra\s+)?cost\b"
    r"|\b(?:paid|pay|costs?)\s+nothing\b|\bwithout\s+charge\b",
    re.IGNORECASE,
)
_NOT_FREE = re.compile(r"\b(?:not|no\s+longer|n't)\s+(?:\w+\s+)?free\b", re.IGNORECASE)
#: asked whether something has no limit: a limit says no, "unlimited" yes
_UNLIMITED = re.compile(r"\bunlimited\b|\bno\s+(?:upper\s+)?limit\b|\blimitless\b", re.I)
_NOT_UNLIMITED = re.compile(r"\b(?:not|no\s+longer|n't)\s+(?:\w+\s+)?unlimited\b", re.I)
_LIMITED = re.compile(
    r"\b(?:up\s+to|at\s+most|no\s+more\s+than|a\s+maximum\s+of|maximum\s+of|capped\s+at"
    r"|limited\s+to)\s+[$€£¥]?\d|\blimit\s+(?:is|of)\s+[$€£¥]?\d",
    re.I,
)


def asks_cost(question: str) -> bool:
    """Whether ``question`` asks whether something costs anything (free, or paid for)."""
    return bool(_ASKS_FREE.search(question) or _ASKS_PAY.search(question))


def states_cost(text: str) -> bool:
    """Whether ``text`` says what something costs: a price, or that it is free."""
    return bool(_COSTS_NOTHING.search(text) or MONEY.found_in(text))


def _free(text: str) -> bool | None:
    """Whether ``text`` says it costs nothing (``True``), states a price (``False``), or
    says neither (``None``)."""
    if _COSTS_NOTHING.search(text):
        return _NOT_FREE.search(text) is None
    return False if MONEY.found_in(text) else None


def says_no(question: str, text: str) -> bool | None:
    """Whether ``text`` answers the yes-or-no ``question`` with no (``True``) or yes
    (``False``) by a price, "free" or a limit; ``None`` where the question is not about
    those, or the text does not say."""
    if _ASKS_FREE.search(question) and (free := _free(text)) is not None:
        return not free
    if _ASKS_PAY.search(question) and (free := _free(text)) is not None:
        return free
    if _UNLIMITED.search(question):  # "up to 150 miles per day" against "unlimited"
        if _UNLIMITED.search(text):
            return _NOT_UNLIMITED.search(text) is not None
        if _LIMITED.search(text):
            return True
    return None
