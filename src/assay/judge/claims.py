"""Splitting an answer into the claims a judge grades one by one (J2).

A claim is a sentence of the answer, or the part of a sentence before or after an
inline citation, with at least one meaningful word or a yes or no ("No." is a claim).
Every claim is an exact excerpt of the answer (the J1 contract quotes claims verbatim),
so citations are cut around, never rewritten.
"""

from __future__ import annotations

import re

from assay.answer.citations import CITATION
from assay.text import SENTENCE_BREAK, content_terms

__all__ = ["LED", "split_claims"]

_YES_NO = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)


#: a short answer leading its quote: "£250: The main driver must show ..."
LED = re.compile(r"^(?P<lead>[^:\n]{1,80}):\s+(?P<quote>\S.*)$", re.DOTALL)


def _sentences(answer: str) -> list[str]:
    """``answer``'s sentences, their parts at semicolons apart. A short answer that only a
    later part of its quote states ("£250: The main driver must show a credit card ...;
    we block a deposit of £250 on it.") is left out of the first part: read with that
    part alone, it is a figure the part does not state, and the part that states it is a
    claim of its own."""
    parts = SENTENCE_BREAK.split(answer)
    led = LED.match(parts[0]) if parts else None
    if led is None:
        return parts
    lead, quote = led["lead"].strip().lower(), led["quote"]
    if lead in quote.lower() or not parts[0].rstrip().endswith(";"):
        return parts
    for part in parts[1:]:
        if lead in part.lower():
            return [quote, *parts[1:]]
        if not part.rstrip().endswith(";"):
            break  # the sentence ends before a part states it
    return parts


def split_claims(answer: str) -> list[str]:
    """The claims of ``answer`` in order, each an exact excerpt of it, deduplicated."""
    claims: dict[str, None] = {}
    for sentence in _sentences(answer.strip()):
        for part in CITATION.split(sentence)[::2]:  # the text between citations
            claim = part.strip().strip(",;:").strip()
            if (content_terms(claim) or _YES_NO.match(claim)) and claim in answer:
                claims.setdefault(claim, None)
    return list(claims)
