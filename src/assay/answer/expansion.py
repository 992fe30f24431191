"""Offline query expansion for broadening (R8): pseudo-relevance feedback.

When the evidence for a question is weak but not absent, the passages that were found
still say which words the knowledge base uses for the topic. Pseudo-relevance feedback
(Rocchio; RM3 in Lavrenko & Croft's relevance models) adds the words most
characteristic of the top passages to the query and searches again. The phrasings here
are (1) the question plus the feedback terms and (2) the question's meaningful words
alone, which drops question-word noise that can steer lexical search.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.judge.schema import Context
from assay.text import NUMBER, content_terms, stem

__all__ = ["feedback_terms", "pseudo_relevance_phrasings"]


def feedback_terms(question: str, passages: Sequence[str], n: int = 5) -> list[str]:
    """The ``n`` words most frequent across the passages (weighted towards the first,
    counted once per passage) that the question does not already use."""
    asked = {stem(t) for t in content_terms(question)}
    weights: dict[str, float] = {}
    for rank, text in enumerate(passages):
        for term in dict.fromkeys(content_terms(text)):
            if stem(term) not in asked and len(term) > 2 and not NUMBER.fullmatch(term):
                weights[term] = weights.get(term, 0.0) + 1.0 / (1 + rank)
    return [t for t, _ in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def pseudo_relevance_phrasings(question: str, evidence: Sequence[Context], n: int = 3) -> list[str]:
    """Up to ``n`` phrasings of ``question`` built from the top ``evidence`` passages."""
    terms = feedback_terms(question, [c.text for c in evidence[:3]])
    keywords = " ".join(content_terms(question))
    candidates = [
        f"{question} {' '.join(terms[:3])}".strip(),
        keywords,
        f"{keywords} {' '.join(terms)}".strip(),
    ]
    seen = {question.strip().casefold()}
    out = []
    for phrasing in candidates:
        key = phrasing.casefold()
        if phrasing and key not in seen:
            seen.add(key)
            out.append(phrasing)
    return out[:n]
