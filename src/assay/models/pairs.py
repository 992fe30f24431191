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

from assay.models.embedder import MiniLMEmbedder, TokenWindow
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
        #: a relevance head reads questions (:func:`assay.models.features.pair_features`)
        self._questions = head.info.get("task") == "relevance"
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
        rows = [
            pair_features(first, window, self.head.idf, question=self._questions)
            for window in second
        ]
        return np.asarray(rows, dtype=np.float64)[:, self._columns]

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        """Score each (first, second) pair; see the module docstring for windows.

        The feature rows of all pairs go through the head in one call: a boosted-tree
        head costs about the same for one row as for a hundred.
        """
        if not pairs:
            return []
        all_views = self.views([text for pair in pairs for text in pair])
        return self._scored([(all_views[2 * i], all_views[2 * i + 1]) for i in range(len(pairs))])

    def score_spans(
        self, first: str, second: str, spans: Sequence[tuple[int, int]]
    ) -> list[PairScore]:
        """Score each character span of ``second`` against ``first`` as a text of its own,
        read out of ``second``'s token states: the sentences of a passage cost no run of
        the network when the passage's states are kept (ingest keeps every chunk's), and
        one run of the whole passage otherwise. A span is read from the window holding
        most of its word pieces; a span with none is encoded on its own."""
        if not spans:
            return []
        query, passage = self.views([first, second])
        pieces = [_cut(passage, start, end) for start, end in spans]
        alone = [second[a:b] for (a, b), piece in zip(spans, pieces, strict=True) if piece is None]
        encoded = iter(self.views(alone) if alone else [])
        seconds = [[piece] if piece is not None else next(encoded) for piece in pieces]
        return self._scored([(query, views) for views in seconds])

    def _scored(self, pairs: Sequence[tuple[list[TextView], list[TextView]]]) -> list[PairScore]:
        """The best window of each (first's windows, second's windows) pair."""
        rows = [self.features(first[0], second) for first, second in pairs]
        probabilities = self.head.probabilities(np.vstack(rows))
        out = []
        start = 0
        for (first, _), block in zip(pairs, rows, strict=True):
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
                    truncated=len(first) > 1,
                    windows=len(block),
                )
            )
        return out


def _cut(windows: Sequence[TextView], start: int, end: int) -> TextView | None:
    """Characters ``[start, end)`` of a text as a view of their own, cut out of the window
    of ``windows`` that holds most of their word pieces: those pieces' states (in the
    passage's context), offsets from ``start``, and as its pooled vector the unit mean of
    their states. ``None`` when no window holds any of them."""
    best, chosen = None, 0
    for candidate in windows:
        inside = np.asarray(
            [start <= a and b <= end for a, b in candidate.window.offsets], dtype=np.bool_
        )
        if int(inside.sum()) > chosen:
            best, chosen = (candidate.window, inside), int(inside.sum())
    if best is None:
        return None
    window, inside = best
    states = window.states[inside]
    pooled = window.pooled[:0]  # lexical windows carry no vectors
    if states.shape[1]:
        mean = states.mean(axis=0)
        pooled = (mean / (float(np.linalg.norm(mean)) or 1.0)).astype(np.float32)
    offsets = [
        (a - start, b - start) for (a, b), keep in zip(window.offsets, inside, strict=True) if keep
    ]
    piece = TokenWindow(window.ids[inside], offsets, states, pooled)
    return view(windows[0].text[start:end], piece)
