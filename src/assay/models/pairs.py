"""Scoring text pairs with a learned head: encoding, windowing, caching, aggregation.

One :class:`PairScorer` serves training and run time alike, so the features a head
was fitted on are exactly the features it sees later. For each pair the first text
(question or claim) and the second (passage or evidence) are encoded once (an LRU
cache keeps recent passages, which recur across questions), every window of the
second text is scored, and the best window wins: a passage answers if any part of it
does. A first text longer than one window is *truncated*; callers are told, and the
support model never calls truncated input supported (fail closed).

``encoder=None`` gives the cheap lexical mode: no neural network runs, token
"similarity" is identity of word pieces and the pooled cosine is that of word-piece
counts. A head trained in one mode must be used in the same mode.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from assay.models.embedder import MiniLMEmbedder, TokenWindow
from assay.models.features import FEATURE_NAMES, TextView, pair_features, view
from assay.models.head import Head

__all__ = ["PairScore", "PairScorer"]

Floats = npt.NDArray[np.float64]
_shared_caches: dict[str, OrderedDict[str, list[TextView]]] = {}


def clear_encoding_caches() -> None:
    """Forget every cached text encoding (benchmarks measure a cold start with it)."""
    for cache in _shared_caches.values():
        cache.clear()


_cache_lock = threading.Lock()


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
        cache_size: int = 2048,
    ) -> None:
        """``tokenizer`` splits text in lexical mode (defaults to a :class:`MiniLMEmbedder`)."""
        if positive not in head.classes:
            raise ValueError(f"positive class {positive!r} is not one of {head.classes}")
        self.head = head
        self.encoder = encoder
        self.positive = head.classes.index(positive)
        self._tokenizer = tokenizer or encoder or MiniLMEmbedder()
        # scorers in the same mode share views: the relevance and support models then
        # encode a retrieved passage once between them
        mode = encoder.name if encoder is not None else f"lexical:{self._tokenizer.name}"
        self._cache = _shared_caches.setdefault(mode, OrderedDict())
        self._cache_size = cache_size
        self._lock = _cache_lock
        self._columns = np.asarray(
            [FEATURE_NAMES.index(name) for name in head.features], dtype=np.int64
        )

    def views(self, texts: Sequence[str]) -> list[list[TextView]]:
        """The windows of each text as :class:`TextView`, from the cache where possible."""
        with self._lock:
            missing = sorted({t for t in texts if t not in self._cache})
        if missing:
            windows = self._windows(missing)
            with self._lock:
                for text, text_windows in zip(missing, windows, strict=True):
                    self._cache[text] = [view(text, w) for w in text_windows]
                    self._cache.move_to_end(text)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        with self._lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
            for text in found:  # least recently used goes first
                self._cache.move_to_end(text)
        # texts evicted between the two steps (a cache smaller than one batch) are redone
        redo = [t for t in texts if t not in found]
        if redo:
            found.update(
                (t, [view(t, w) for w in ws])
                for t, ws in zip(redo, self._windows(redo), strict=True)
            )
        return [found[t] for t in texts]

    def _windows(self, texts: list[str]) -> list[list[TokenWindow]]:
        if self.encoder is not None:
            return self.encoder.encode_tokens(texts)
        return self._tokenizer.token_windows(texts)

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
