"""Scoring text pairs with a learned head: encoding, windowing, caching, aggregation.

One :class:`PairScorer` serves training and run time alike, so the features a head
was fitted on are exactly the features it sees later. For each pair the first text
(question or claim) and the second (passage or evidence) are encoded once
(:mod:`assay.models.encodings` keeps them: passages recur across questions, and
ingest has encoded every chunk already), every window of the
second text is scored, and the best window wins: a passage answers if any part of it
does. A first text longer than one window is *truncated*; callers are told, and the
support model never calls truncated input supported (fail closed).

``encoder=None`` gives the cheap lexical mode: no neural network runs, token
"similarity" is identity of word pieces and the pooled cosine is that of word-piece
counts. A head trained in one mode must be used in the same mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from assay.models.embedder import MiniLMEmbedder
from assay.models.encodings import EncodingCache, shared_encodings
from assay.models.features import FEATURE_NAMES, TextView, pair_features, view
from assay.models.head import Head

__all__ = ["PairScore", "PairScorer"]

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class PairScore:
    """Class probabilities of the best window of one pair, and each class's maximum
    over all windows (a contradiction in any window must not hide behind another)."""

    probabilities: dict[str, float]
    highest: dict[str, float]
    truncated: bool  #: the first text did not fit one window and was cut
    windows: int  #: windows of the second text that were scored


class PairScorer:
    """Features of (first, second) text pairs, scored by ``head``.

    ``positive`` is the class whose probability picks the best window.
    """

    def __init__(
        self,
        head: Head,
        encoder: MiniLMEmbedder | None,
        *,
        positive: str,
        tokenizer: MiniLMEmbedder | None = None,
        cache: EncodingCache | None = None,
    ) -> None:
        """``tokenizer`` splits text in lexical mode (defaults to a :class:`MiniLMEmbedder`);
        ``cache`` keeps encoded texts (default: the process's, :func:`shared_encodings`)."""
        if positive not in head.classes:
            raise ValueError(f"positive class {positive!r} is not one of {head.classes}")
        self.head = head
        self.encoder = encoder
        self.positive = head.classes.index(positive)
        self._tokenizer = tokenizer or encoder or MiniLMEmbedder()
        self._cache = cache
        self._columns = np.asarray(
            [FEATURE_NAMES.index(name) for name in head.features], dtype=np.int64
        )

    def views(self, texts: Sequence[str]) -> list[list[TextView]]:
        """The windows of each text as :class:`TextView`; encoded texts come from the
        cache, which every model reading the same encoder's states shares."""
        if self.encoder is None:  # word pieces only: no network run to save
            windows = self._tokenizer.token_windows(list(texts))
        else:
            cache = self._cache or shared_encodings()
            windows = cache.windows(self.encoder.name, texts, self.encoder.encode_tokens)
        views = {t: [view(t, w) for w in ws] for t, ws in zip(texts, windows, strict=True)}
        return [views[t] for t in texts]

    def features(self, first: TextView, second: Sequence[TextView]) -> Floats:
        """One feature row per window of the second text, in the head's column order."""
        rows = [pair_features(first, window, self.head.idf) for window in second]
        return np.asarray(rows, dtype=np.float64)[:, self._columns]

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        """Score each (first, second) pair; see the module docstring for windows.

        The feature rows of all pairs go through the head in one call: a boosted-tree
        head costs about the same for one row as for a hundred.
        """
        if not pairs:
            return []
        all_views = self.views([text for pair in pairs for text in pair])
        rows = [self.features(all_views[2 * i][0], all_views[2 * i + 1]) for i in range(len(pairs))]
        probabilities = self.head.probabilities(np.vstack(rows))
        out = []
        start = 0
        for i, block in enumerate(rows):
            mine = probabilities[start : start + len(block)]
            start += len(block)
            best = mine[int(np.argmax(mine[:, self.positive]))]
            out.append(
                PairScore(
                    probabilities={
                        c: float(p) for c, p in zip(self.head.classes, best, strict=True)
                    },
                    highest={
                        c: float(p)
                        for c, p in zip(self.head.classes, mine.max(axis=0), strict=True)
                    },
                    truncated=len(all_views[2 * i]) > 1,
                    windows=len(block),
                )
            )
        return out
