"""A question whose own count goes past the bound its answer states.

"How much does it cost to collect 5 bulky items?" against "We collect up to 3 bulky
items ... for £35. Each further item costs £10": the sentence that best matches the
question states the price of at most three, so "£35" would answer the question as if the
asker had three. The answer must quote the rule on (the next sentence says what further
items cost) and lead with no short value, which the reader works out from the quote.
"""

from __future__ import annotations

import re

from assay.text import content_terms, stem

__all__ = ["exceeds_bound"]

_WORDS = r"((?:\s+[A-Za-z][\w-]*){1,3})"
#: a count a rule caps: "up to 3 bulky items", "a maximum of 6 guests"
_UP_TO = re.compile(
    rf"\b(?:up\s+to|at\s+most|no\s+more\s+than|a\s+maximum\s+of|maximum\s+of)\s+(\d+){_WORDS}",
    re.I,
)
#: a count the asker states: "5 bulky items", "8 guests"
_COUNT = re.compile(rf"(?<![\d.,£$€])\b(\d{{1,4}})\b(?![.,]\d){_WORDS}")


def _nouns(words: str) -> set[str]:
    return {stem(w) for w in content_terms(words)}


def exceeds_bound(question: str, sentence: str) -> bool:
    """Whether ``question`` states a count of something above the most of it that
    ``sentence`` allows for ("5 bulky items" against "up to 3 bulky items")."""
    caps = [(int(m.group(1)), _nouns(m.group(2))) for m in _UP_TO.finditer(sentence)]
    if not caps:
        return False
    return any(
        asked > most and nouns & _nouns(m.group(2))
        for m in _COUNT.finditer(question)
        if (asked := int(m.group(1)))
        for most, nouns in caps
    )
