"""A small Okapi BM25 index, for mining hard negatives when building training pairs.

The training sets of assay's own small models need passages that look relevant but
are not: a paragraph about the same topic that does not answer the question, the
sentences of an abstract that share the claim's words but are not its rationale.
BM25 finds those cheaply and deterministically, with no model and no download.

Scoring (Okapi BM25 with the non-negative idf used by Lucene)::

    idf(t)     = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(q,d) = sum_{t in q} idf(t) * tf(t,d) * (k1 + 1)
                               / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))

with ``k1 = 1.2`` and ``b = 0.75``. Each distinct query term counts once. Tokens are
the lowercased ``\\w+`` words of the text, less a short list of English stopwords.

References
----------
S. E. Robertson and H. Zaragoza, "The Probabilistic Relevance Framework: BM25 and
Beyond", Foundations and Trends in Information Retrieval 3(4), 2009.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Sequence

import numpy as np
from numpy.typing import NDArray

from assay.errors import InvalidInputError

_WORD = re.compile(r"\w+")
_STOPWORDS = frozenset(
    """
    a an and are as at be been but by did do does for from had has have he her his how
    i if in into is it its me my no not of on or our she so than that the their them
    then there these they this those to was we were what when where which who whom why
    will with would you your
    """.split()
)


def tokenize(text: str) -> list[str]:
    """The lowercased ``\\w+`` words of ``text`` in order, stopwords removed."""
    return [t for t in _WORD.findall(text.lower()) if t not in _STOPWORDS]


class BM25:
    """An Okapi BM25 index over a fixed list of texts, addressed by their position.

    Parameters
    ----------
    texts:
        The documents; a document's index in this sequence is its id in results.
    k1, b:
        The usual term-frequency saturation and length-normalisation constants.

    Examples
    --------
    >>> index = BM25(["the cat sat", "a dog barked", "cats and dogs"])
    >>> index.top("dog", 1)[0][0]
    1
    """

    def __init__(self, texts: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> None:
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise InvalidInputError(
                "texts",
                texts,
                "give a list of strings, one per document",
                problem="is not a sequence of strings",
            )
        if not k1 >= 0 or not 0 <= b <= 1:
            raise InvalidInputError("k1, b", (k1, b), "use k1 >= 0 and 0 <= b <= 1")
        docs = [tokenize(t) for t in texts]
        self.size = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avgdl = float(lengths.mean()) if self.size and lengths.sum() > 0 else 1.0
        norm = k1 * (1.0 - b + b * lengths / avgdl)
        raw: dict[str, tuple[list[int], list[int]]] = {}
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                ids, tfs = raw.setdefault(term, ([], []))
                ids.append(i)
                tfs.append(tf)
        self._postings: dict[str, tuple[NDArray[np.intp], NDArray[np.float64]]] = {}
        for term, (ids, tfs) in raw.items():
            idx = np.array(ids, dtype=np.intp)
            freq = np.array(tfs, dtype=np.float64)
            df = len(ids)
            idf = math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))
            self._postings[term] = (idx, idf * freq * (k1 + 1.0) / (freq + norm[idx]))

    def __len__(self) -> int:
        return self.size

    def scores(self, query: str) -> NDArray[np.float64]:
        """The BM25 score of every document for ``query``, in document order."""
        out = np.zeros(self.size, dtype=np.float64)
        # Terms in first-occurrence order, so that float sums are reproducible.
        for term in dict.fromkeys(tokenize(query)):
            posting = self._postings.get(term)
            if posting is not None:
                out[posting[0]] += posting[1]
        return out

    def top(
        self, query: str, k: int, exclude: Collection[int] = frozenset()
    ) -> list[tuple[int, float]]:
        """The ``k`` best documents for ``query`` as ``(index, score)``, best first.

        Ties are broken by the lower index. Documents in ``exclude`` are never
        returned; indices there that are out of range are ignored. When fewer than
        ``k`` documents share a word with the query, zero-scoring documents fill the
        list in index order, so the result has ``min(k, len(self) - excluded)`` items.
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise InvalidInputError("k", k, "give a whole number of results >= 0")
        if k == 0 or self.size == 0:
            return []
        scores = self.scores(query)
        keep = np.ones(self.size, dtype=bool)
        dropped = [i for i in exclude if 0 <= i < self.size]
        keep[dropped] = False
        candidates = np.flatnonzero(keep)
        # lexsort: the last key is primary -> highest score first, then lowest index.
        order = candidates[np.lexsort((candidates, -scores[candidates]))][:k]
        return [(int(i), float(scores[i])) for i in order]
