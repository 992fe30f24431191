"""``assay-reader``: the span of a passage that answers a question, or none.

A MiniLM cross-encoder with a span head (two logits per token: "the answer starts
here", "it ends here"), trained on extractive question answering
(:mod:`assay.training.reader_train`). It reads ``[CLS] question [SEP] passage [SEP]``;
the best span is the pair of passage tokens with the highest start + end logit (end
not before start, at most :data:`MAX_ANSWER_TOKENS`), and the ``[CLS]`` token's start +
end logit is the *null* score: the model's vote that the passage holds no answer.
``margin = score - null`` is how much more the passage looks like it answers than not;
across passages it tells an answering passage from on-topic ones without the answer,
which relevance alone does poorly.

Passages longer than the window are read in overlapping windows (:func:`windows`, also
used in training so that both cut text the same way): the best span of any window, the
lowest null of any. One window per ONNX run, as for the cross-encoder: int8 dynamic
quantisation scales activations per batch. ``model.json`` holds the sha256 of the model
and tokenizer, checked at load.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from assay.errors import InvalidInputError
from assay.hashing import mismatched_file
from assay.models.onnx_sessions import open_session
from assay.models.recent import Recent

__all__ = [
    "DEFAULT_READER_MODEL",
    "MAX_ANSWER_TOKENS",
    "MAX_TOKENS",
    "SHIPPED_READER",
    "Reader",
    "Reading",
    "SpanReader",
    "WindowTokenizer",
    "best_span",
    "best_spans",
    "load_reader",
    "reader_tokenizer",
    "windows",
]

DEFAULT_READER_MODEL = "assay-reader"
SHIPPED_READER = Path(__file__).resolve().parent / "shipped" / "assay-reader"
MAX_TOKENS = 256  #: tokens in one window, question included
STRIDE = 64  #: tokens two windows of a long passage share
QUESTION_TOKENS = 64  #: a longer question is cut to this many
MAX_ANSWER_TOKENS = 30  #: the longest span read as an answer
CANDIDATE_SPANS = 8  #: spans kept per passage, for an answerer that weighs more than the logit
CACHED_READINGS = 4096  #: readings kept per reader: a passage is cited and among the best hits


@dataclass(frozen=True, slots=True)
class WindowTokenizer:
    """The word-piece tokenizer twice: for (question, passage) windows, and for the
    question alone (a tokenizer's truncation setting is shared by every call)."""

    pair: Any
    single: Any


def reader_tokenizer(file: Path) -> WindowTokenizer:
    """The word-piece tokenizer at ``file``, set to cut passages into windows."""
    from tokenizers import Tokenizer

    pair, single = Tokenizer.from_file(str(file)), Tokenizer.from_file(str(file))
    for tok in (pair, single):
        tok.no_padding()
    pair.enable_truncation(MAX_TOKENS, stride=STRIDE, strategy="only_second")
    single.no_truncation()
    return WindowTokenizer(pair, single)


def windows(tok: WindowTokenizer, question: str, passage: str) -> list[Any]:
    """The encodings of ``question`` with each window of ``passage`` (offsets into it)."""
    asked = tok.single.encode(question, add_special_tokens=False)
    if len(asked.ids) > QUESTION_TOKENS:
        question = question[: asked.offsets[QUESTION_TOKENS - 1][1]]
    first = tok.pair.encode(question, passage)
    return [first, *first.overflowing]


def best_span(
    start: np.ndarray, end: np.ndarray, sequence_ids: Sequence[int | None]
) -> tuple[float, int, int] | None:
    """(start + end logit, first token, last token) of the best passage span, or None."""
    spans = best_spans(start, end, sequence_ids, 1)
    return spans[0] if spans else None


def best_spans(
    start: np.ndarray, end: np.ndarray, sequence_ids: Sequence[int | None], n: int
) -> list[tuple[float, int, int]]:
    """The ``n`` best passage spans as (start + end logit, first token, last token),
    best first; fewer when the passage has fewer."""
    passage = np.array([s == 1 for s in sequence_ids])
    if not passage.any():
        return []
    s = np.where(passage, start, -np.inf)
    e = np.where(passage, end, -np.inf)
    total = s[:, None] + e[None, :]
    size = len(s)
    rows, cols = np.indices((size, size))
    total[(cols < rows) | (cols - rows >= MAX_ANSWER_TOKENS)] = -np.inf
    flat = total.ravel()
    top = np.argsort(-flat, kind="stable")[:n]
    return [(float(flat[k]), int(k // size), int(k % size)) for k in top if np.isfinite(flat[k])]


@dataclass(frozen=True, slots=True)
class Reading:
    """What the reader found in one passage: ``answer`` is ``passage[start:end]``."""

    answer: str
    start: int
    end: int
    score: float  #: start + end logit of the answer span
    null: float  #: start + end logit of "no answer here"

    @property
    def margin(self) -> float:
        """How much more the passage looks like it answers than like it does not."""
        return self.score - self.null


@runtime_checkable
class SpanReader(Protocol):
    """What the answerer and the correctness rater need of a reader."""

    name: str  #: name@version, as drafts and audit rows name it

    def read(self, question: str, passage: str) -> Reading:
        """The best answer span of ``passage`` for ``question``."""
        ...


class Reader:
    """Reads passages for the span that answers a question; see the module docstring."""

    def __init__(self, folder: Path) -> None:
        info = _verified(folder)
        self.name = f"{info['name']}@{info['version']}"
        self.version = str(info["version"])
        self.sha256 = hashlib.sha256((folder / "model.json").read_bytes()).hexdigest()
        self._session = open_session(folder / "model.onnx", threads=1, memory_arena=False)
        self._tok = reader_tokenizer(folder / "tokenizer.json")
        self._cache: Recent[tuple[str, str], tuple[Reading, ...]] = Recent(CACHED_READINGS)

    def read(self, question: str, passage: str) -> Reading:
        """The best answer span of ``passage`` for ``question`` (empty if it has none)."""
        return self.spans(question, passage)[0]

    def spans(self, question: str, passage: str) -> tuple[Reading, ...]:
        """The :data:`CANDIDATE_SPANS` best answer spans of ``passage``, best first, all
        with the passage's null score; one empty reading when it has none."""
        if not isinstance(question, str) or not question.strip():
            raise InvalidInputError("question", question, "give a non-empty question")
        if not isinstance(passage, str):
            raise InvalidInputError("passage", passage, "give the passage as text")
        key = (question, passage)
        kept = self._cache.found([key])
        if key in kept:
            return kept[key]
        readings = self._read(question, passage)
        self._cache.keep({key: readings})
        return readings

    def _read(self, question: str, passage: str) -> tuple[Reading, ...]:
        found: dict[tuple[int, int], float] = {}  # character span -> its best score
        null = np.inf
        for window in windows(self._tok, question, passage):
            feed = {
                "input_ids": np.array([window.ids], dtype=np.int64),
                "attention_mask": np.array([window.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([window.type_ids], dtype=np.int64),
            }
            start, end = (x[0] for x in self._session.run(None, feed))
            null = min(null, float(start[0] + end[0]))
            for score, i, j in best_spans(start, end, window.sequence_ids, CANDIDATE_SPANS):
                where = (window.offsets[i][0], window.offsets[j][1])
                found[where] = max(score, found.get(where, -np.inf))
        null = null if np.isfinite(null) else 0.0
        if not found:
            return (Reading("", 0, 0, -np.inf, null),)
        best = sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:CANDIDATE_SPANS]
        return tuple(Reading(passage[a:b], a, b, score, null) for (a, b), score in best)


def _verified(folder: Path) -> dict[str, Any]:
    info_file = folder / "model.json"
    if not info_file.is_file():
        raise InvalidInputError(
            "reader", str(folder), "give a folder with model.json, model.onnx and "
            "tokenizer.json (or run make train-models)", problem="is not a reader folder",
        )  # fmt: skip
    info: dict[str, Any] = json.loads(info_file.read_text(encoding="utf-8"))
    mismatch = mismatched_file(folder, info["sha256"])
    if mismatch is not None:
        path, actual, digest = mismatch
        raise InvalidInputError(
            "reader file", str(path), "restore it or run make train-models",
            problem=f"has sha256 {actual[:12]}..., model.json expects {digest[:12]}...",
        )  # fmt: skip
    return info


_LOADED: dict[Path, Reader] = {}


def load_reader(folder: Path = SHIPPED_READER) -> Reader:
    """The reader in ``folder`` (default: the shipped one), loaded once per process."""
    key = folder.resolve()
    if key not in _LOADED:
        _LOADED[key] = Reader(key)
    return _LOADED[key]
