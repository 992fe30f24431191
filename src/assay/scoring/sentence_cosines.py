"""Content-word cosines between the sentences of two passages, where they share a word.

Corroboration, conflict finding and the judge compare passages sentence by sentence:
eight passages of six sentences make about a thousand sentence pairs a question, and
most pairs share no word at all. :func:`shared_cosines` goes through the words each
sentence of the second passage holds (:class:`Sentences` keeps that index) and scores
only the pairs that meet; every other pair's cosine is 0. Each score is the float that
:func:`assay.text.term_cosine` gives the same pair.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Sentences", "shared_cosines"]


@dataclass(frozen=True, slots=True)
class Sentences:
    """A passage's sentences with their term counts (not to be mutated), each count
    vector's norm, and which sentences hold each term (with its count there)."""

    texts: tuple[str, ...]
    counts: tuple[Counter[str], ...]
    norms: tuple[float, ...]
    holding: Mapping[str, tuple[tuple[int, int], ...]]

    @classmethod
    def of(cls, texts: Sequence[str], counts: Sequence[Counter[str]]) -> Sentences:
        """The sentences ``texts`` with their term ``counts``."""
        holding: dict[str, list[tuple[int, int]]] = {}
        for index, terms in enumerate(counts):
            for term, count in terms.items():
                holding.setdefault(term, []).append((index, count))
        return cls(
            tuple(texts),
            tuple(counts),
            tuple(math.sqrt(sum(v * v for v in terms.values())) for terms in counts),
            {term: tuple(places) for term, places in holding.items()},
        )


def shared_cosines(first: Sentences, second: Sentences) -> list[tuple[int, int, float]]:
    """``(i, j, cosine)`` of each sentence ``i`` of ``first`` and ``j`` of ``second``
    that share a term, ordered by ``i`` then ``j``; the pairs left out have cosine 0."""
    out = []
    for i, terms in enumerate(first.counts):
        dots: dict[int, int] = {}
        for term, count in terms.items():
            for j, other in second.holding.get(term, ()):
                dots[j] = dots.get(j, 0) + count * other
        norm = first.norms[i]
        out += [(i, j, min(1.0, dots[j] / (norm * second.norms[j]))) for j in sorted(dots)]
    return out
