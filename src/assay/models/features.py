"""Pair features for assay's own relevance and support models.

Cosine similarity of two sentence embeddings says whether two texts are about the same
thing; it cannot say whether a passage *answers* a question or *supports* a claim
(SQuAD 2.0's unanswerable questions sit on their own paragraph; cosine separates them
from answerable ones with AUROC 0.64). What does separate them is finer grained: does
every important word of the question find a counterpart in one sentence of the passage,
are the numbers and names it asks about there, does that sentence hold the kind of
thing the question asks for (a year for "when", a number for "how many"), does a
negation appear on one side only. :func:`pair_features` computes such evidence from
MiniLM's contextual token vectors (frozen) and the texts, and a small learned head
(:mod:`assay.models.head`) turns it into a probability.

Token weights are inverse document frequencies over MiniLM's word-piece vocabulary,
learned at training time and shipped with the head, so rare words (names, terms)
count more than common ones.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.models.embedder import TokenWindow
from assay.text import BOUND, NAME, figures, is_stopword, measured_figures

__all__ = ["FEATURE_NAMES", "LEXICAL_FEATURES", "TextView", "pair_features", "view"]

Floats = npt.NDArray[np.float64]

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_YEAR = re.compile(r"\b(?:1[0-9]|20)\d\d\b")
_WORD = re.compile(r"\w+")
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|without|neither|nor|none)\b|n't\b", re.I)
_MONTHS = "january february march april may june july august september october november december"
_DATE_WORD = re.compile(r"\b(?:" + "|".join(_MONTHS.split()) + r"|century|decade)\b", re.I)
_WH_TYPES = ("when", "who", "where", "how_many", "how_much", "what", "which", "why", "how")
# question phrases that ask for a time or a quantity without "when" or "how many"
_ASKS_TIME = re.compile(
    r"\b(?:what|which) (?:year|century|decade|month|day|date|era|period)\b", re.I
)
_ASKS_QUANTITY = re.compile(
    r"\b(?:how (?:long|old|far|large|big|high|tall|often)|what (?:percentage|percent|"
    r"proportion|number|amount|size|age))\b",
    re.I,
)
_MATCHED = (0.5, 0.7)
# words whose swap turns an answerable question into an unanswerable one ("first" -> "last")
_MODIFIERS = frozenset(
    """first last largest smallest biggest most least highest lowest longest shortest
    earliest latest oldest newest only before after best worst major minor main
    """.split()
)  # token cosines at or above these count as a counterpart

FEATURE_NAMES: tuple[str, ...] = (
    "align",
    "align_min",
    "unmatched_50",
    "unmatched_70",
    "exact",
    "best_align",
    "best_min",
    "best_unmatched_70",
    "best_exact",
    "best_new_content",
    "best_near_80",
    "best_near_60",
    "best_far_40",
    "near_miss",
    "split_evidence",
    "second_align",
    "best_gap",
    "missing_modifiers",
    "query_negation",
    "rare_min",
    "rare_second_min",
    "rare_best_exact",
    "log_missing_words",
    "pooled_cosine",
    "best_sentence_cosine",
    "bm25",
    "missing_numbers",
    "missing_names",
    "negation_mismatch",
    "log_query_tokens",
    "log_passage_tokens",
    *(f"wh_{t}" for t in _WH_TYPES),
    "best_has_number",
    "best_has_year",
    "best_has_new_name",
    "when_x_time",
    "count_x_number",
    "who_where_x_name",
)
#: the features that need no neural encoder: the cheap lexical scorer uses only these
LEXICAL_FEATURES: tuple[str, ...] = (
    "exact",
    "best_exact",
    "best_new_content",
    "split_evidence",
    "missing_modifiers",
    "query_negation",
    "bm25",
    "missing_numbers",
    "missing_names",
    "negation_mismatch",
    "log_query_tokens",
    "log_passage_tokens",
    *(f"wh_{t}" for t in _WH_TYPES),
    "best_has_number",
    "best_has_year",
    "best_has_new_name",
    "when_x_time",
    "count_x_number",
    "who_where_x_name",
)


@dataclass(frozen=True, slots=True)
class TextView:
    """One window of a text with what the features need, computed once per text."""

    text: str
    window: TokenWindow
    content: npt.NDArray[np.bool_]  #: word pieces that carry meaning (not stopword/punctuation)
    sentence_of: npt.NDArray[np.int64]  #: sentence index of each word piece
    sentences: list[str]


def view(text: str, window: TokenWindow) -> TextView:
    """The :class:`TextView` of ``window``, one window of ``text``."""
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text) + 1]
    starts = np.asarray([start for start, _ in window.offsets], dtype=np.int64)
    sentence_of = np.searchsorted(np.asarray(bounds[1:-1]), starts, side="right").astype(np.int64)
    content = np.asarray([_is_content(text[a:b]) for a, b in window.offsets] or [], dtype=np.bool_)
    sentences = [text[bounds[i] : bounds[i + 1]].strip() for i in range(len(bounds) - 1)]
    return TextView(text, window, content, sentence_of, sentences)


@functools.lru_cache(maxsize=1 << 16)
def _is_content(piece: str) -> bool:
    """Whether a word piece as written carries meaning; asked for each piece of each
    text viewed (a passage: ~250), from a vocabulary of a few ten thousand."""
    word = piece.lower()
    return any(ch.isalnum() for ch in word) and not is_stopword(word)


def _wh_type(query: str) -> str | None:
    q = query.lower()
    for phrase, kind in (("how many", "how_many"), ("how much", "how_much")):
        if phrase in q:
            return kind
    words = _WORD.findall(q)
    for kind in ("when", "who", "where", "why", "which", "what", "how"):
        if kind in words or (kind == "who" and ("whom" in words or "whose" in words)):
            return kind
    return None


def _names(text: str) -> set[str]:
    return {m.group().lower() for m in NAME.finditer(text) if not is_stopword(m.group().lower())}


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the features read of a text's words: the same for every pair it is in."""

    lower: str
    words: tuple[str, ...]  #: its words, lowercase, in order
    word_set: frozenset[str]
    figures: frozenset[str]
    names: frozenset[str]
    negated: bool
    has_year: bool
    wh: str | None
    asks_time: bool
    asks_quantity: bool


@functools.lru_cache(maxsize=4096)
def _facts(text: str) -> _Facts:
    """The :class:`_Facts` of ``text``; a question, a passage and its sentences recur
    across the pairs of one question (8 hits, their sentences, the judge's claims)."""
    lower = text.lower()
    words = tuple(_WORD.findall(lower))
    wh = _wh_type(text)
    return _Facts(
        lower=lower,
        words=words,
        word_set=frozenset(words),
        figures=frozenset(figures(text)),
        names=frozenset(_names(text)),
        negated=bool(_NEGATION.search(text)),
        has_year=bool(_YEAR.search(text) or _DATE_WORD.search(text)),
        wh=wh,
        asks_time=wh == "when" or bool(_ASKS_TIME.search(text)),
        asks_quantity=wh in ("how_many", "how_much") or bool(_ASKS_QUANTITY.search(text)),
    )


def pair_features(
    query: TextView, passage: TextView, idf: Floats, *, question: bool = False
) -> Floats:
    """The :data:`FEATURE_NAMES` vector for ``query`` against ``passage``.

    ``idf`` maps word-piece id to inverse document frequency. Works for relevance
    (question, passage) and support (claim, evidence) alike. A ``question`` (relevance)
    states its asker's situation with figures that a rule answers: "a 7-hour flight"
    against "flights longer than 6 hours", "my 300 g drone" against "250 g or more"; such
    a figure (:func:`assay.text.measured_figures`) is not missing from a passage that
    states a bound (:data:`assay.text.BOUND`). A claim's figures always must be there.
    """
    q, p = query.window, passage.window
    q_ids = q.ids[query.content] if len(q.ids) else q.ids
    weights = idf[q_ids] if len(q_ids) else np.zeros(0)
    total = float(weights.sum()) or 1.0
    sims = _similarities(query, passage) if len(q_ids) and len(p.ids) else None
    best_match = sims.max(axis=1) if sims is not None else np.zeros(len(q_ids))
    in_passage = np.isin(q_ids, p.ids)

    def weighted(values: npt.NDArray[Any]) -> float:
        return float((weights * values.astype(np.float64)).sum() / total)

    # the sentence whose tokens best cover the query's
    best = 0
    best_cover = best_match
    scores: list[float] = []
    if sims is not None:
        covers = []
        for s in range(int(passage.sentence_of.max()) + 1 if len(p.ids) else 0):
            cols = passage.sentence_of == s
            cover = sims[:, cols].max(axis=1) if cols.any() else np.zeros(len(q_ids))
            covers.append(cover)
            scores.append(weighted(cover))
        best = int(np.argmax(scores))
        best_cover = covers[best]
    in_best = passage.sentence_of == best
    best_ids = p.ids[in_best & passage.content] if len(p.ids) else p.ids
    best_text = passage.sentences[best] if passage.sentences else ""
    new_content = float(np.mean(~np.isin(best_ids, q.ids))) if len(best_ids) else 0.0

    asked, whole, said = _facts(query.text), _facts(passage.text), _facts(best_text)
    wh = asked.wh
    best_numbers = said.figures - asked.figures
    new_names = said.names - asked.names
    missing_numbers = len(
        asked.figures - whole.figures - _answered_by_rule(query.text, question, passage.text)
    )
    missing_names = sum(1 for n in asked.names if n not in whole.lower)

    ranked = sorted(scores, reverse=True)
    exact_best = np.isin(q_ids, best_ids)
    near_miss = ~in_passage & (best_match >= 0.5) & (best_match < 0.85)
    missing_modifiers = sum(1 for w in asked.words if w in _MODIFIERS and w not in said.word_set)
    rare = np.argsort(-weights)[: max(1, len(weights) // 2)]
    rare_cover = np.sort(best_cover[rare]) if len(weights) else np.zeros(0)
    missing_words = sum(1 for w in asked.word_set if not is_stopword(w) and w not in whole.word_set)
    values = {
        "align": weighted(best_match),
        "align_min": float(best_match.min()) if len(best_match) else 0.0,
        "unmatched_50": weighted(best_match < _MATCHED[0]),
        "unmatched_70": weighted(best_match < _MATCHED[1]),
        "exact": weighted(in_passage),
        "best_align": weighted(best_cover),
        "best_min": float(best_cover.min()) if len(best_cover) else 0.0,
        "best_unmatched_70": weighted(best_cover < _MATCHED[1]),
        "best_exact": weighted(exact_best),
        "best_new_content": new_content,
        "best_near_80": weighted(~exact_best & (best_cover >= 0.8)),
        "best_near_60": weighted(~exact_best & (best_cover >= 0.6) & (best_cover < 0.8)),
        "best_far_40": weighted(best_cover < 0.4),
        "near_miss": weighted(near_miss),
        "split_evidence": weighted(in_passage & ~exact_best),
        "second_align": ranked[1] if len(ranked) > 1 else 0.0,
        "best_gap": ranked[0] - ranked[1] if len(ranked) > 1 else (ranked[0] if ranked else 0.0),
        "missing_modifiers": math.log1p(missing_modifiers),
        "query_negation": float(asked.negated),
        "rare_min": float(rare_cover[0]) if len(rare_cover) else 0.0,
        "rare_second_min": float(rare_cover[min(1, len(rare_cover) - 1)])
        if len(rare_cover)
        else 0.0,
        "rare_best_exact": float(np.mean(exact_best[rare])) if len(weights) else 0.0,
        "log_missing_words": math.log1p(missing_words),
        "pooled_cosine": _pooled_cosine(q, p),
        "best_sentence_cosine": _sentence_cosine(q, p, in_best),
        "bm25": _bm25(q_ids, p.ids, idf),
        "missing_numbers": math.log1p(missing_numbers),
        "missing_names": math.log1p(missing_names),
        "negation_mismatch": float(asked.negated != said.negated),
        "log_query_tokens": math.log1p(len(q.ids)),
        "log_passage_tokens": math.log1p(len(p.ids)),
        **{f"wh_{t}": float(wh == t) for t in _WH_TYPES},
        "best_has_number": float(bool(best_numbers)),
        "best_has_year": float(said.has_year),
        "best_has_new_name": float(bool(new_names)),
        "when_x_time": float(asked.asks_time and said.has_year),
        "count_x_number": float(asked.asks_quantity and bool(best_numbers)),
        "who_where_x_name": float(wh in ("who", "where") and bool(new_names)),
    }
    return np.asarray([values[name] for name in FEATURE_NAMES], dtype=np.float64)


def _answered_by_rule(query: str, question: bool, passage: str) -> frozenset[str]:
    """The figures of ``query`` that a bound in ``passage`` answers (see
    :func:`pair_features`): none unless ``query`` is a question."""
    if not question or not BOUND.search(passage):
        return frozenset()
    return frozenset(measured_figures(query))


def _lexical(window: TokenWindow) -> bool:
    """Whether ``window`` comes from lexical mode (no token vectors)."""
    return bool(window.states.shape[1] == 0)


def _similarities(query: TextView, passage: TextView) -> Floats:
    """Cosine of each content piece of the query with each piece of the passage.

    In lexical mode the "cosine" is 1 for the same word piece and 0 otherwise.
    """
    q, p = query.window, passage.window
    if _lexical(q) or _lexical(p):
        same: Floats = (q.ids[query.content][:, None] == p.ids[None, :]).astype(np.float64)
        return same
    sims: Floats = (q.states[query.content] @ p.states.T).astype(np.float64)
    return sims


def _count_cosine(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> float:
    """Cosine of the word-piece count vectors of two id sequences."""
    if not len(a) or not len(b):
        return 0.0
    ids_a, counts_a = np.unique(a, return_counts=True)
    ids_b, counts_b = np.unique(b, return_counts=True)
    _, ia, ib = np.intersect1d(ids_a, ids_b, return_indices=True)
    dot = float((counts_a[ia] * counts_b[ib]).sum())
    return dot / float(np.linalg.norm(counts_a) * np.linalg.norm(counts_b))


def _pooled_cosine(q: TokenWindow, p: TokenWindow) -> float:
    if _lexical(q) or _lexical(p):
        return _count_cosine(q.ids, p.ids)
    return float(q.pooled @ p.pooled)


def _sentence_cosine(q: TokenWindow, p: TokenWindow, in_best: npt.NDArray[np.bool_]) -> float:
    """Cosine of the query with the mean token vector of the passage's best sentence."""
    if not in_best.any():
        return 0.0
    if _lexical(q) or _lexical(p):
        return _count_cosine(q.ids, p.ids[in_best])
    vector = p.states[in_best].mean(axis=0)
    return float(q.pooled @ vector) / (float(np.linalg.norm(vector)) or 1.0)


def _bm25(
    q_ids: Sequence[int] | npt.NDArray[np.int64],
    p_ids: npt.NDArray[np.int64],
    idf: Floats,
    k1: float = 1.2,
    b: float = 0.75,
    average_length: float = 120.0,
) -> float:
    """Okapi BM25 of the query's content pieces in the passage, over word-piece ids."""
    if not len(q_ids) or not len(p_ids):
        return 0.0
    ids, counts = np.unique(p_ids, return_counts=True)
    tf = dict(zip(ids.tolist(), counts.tolist(), strict=True))
    norm = k1 * (1 - b + b * len(p_ids) / average_length)
    score = sum(
        idf[i] * tf[i] * (k1 + 1) / (tf[i] + norm)
        for i in set(np.asarray(q_ids).tolist())
        if i in tf
    )
    return float(score)
