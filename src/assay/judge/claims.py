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

__all__ = ["split_claims"]

_YES_NO = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)


def split_claims(answer: str) -> list[str]:
    """The claims of ``answer`` in order, each an exact excerpt of it, deduplicated."""
    claims: dict[str, None] = {}
    for sentence in SENTENCE_BREAK.split(answer.strip()):
        for part in CITATION.split(sentence)[::2]:  # the text between citations
            claim = part.strip().strip(",;:").strip()
            if (content_terms(claim) or _YES_NO.match(claim)) and claim in answer:
                claims.setdefault(claim, None)
    return list(claims)
