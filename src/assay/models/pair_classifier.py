"""assay's own cross-encoder: one int8 ONNX MiniLM that reads a text pair whole.

The model (trained by :mod:`assay.training.cross_train`) gives four logits per pair:
``relevant`` (sigmoid: the passage answers the question) and ``supported``,
``contradicted``, ``unsupported`` (softmax: what the evidence does to the claim). It
ships in ``shipped/assay-cross-encoder/`` with its tokenizer and ``model.json``, whose
sha256 values are checked at load: a corrupted or swapped file fails loudly.

Long second texts are read window by window: the first text (question or claim) plus
as much of the second as fits 256 tokens, the windows overlapping by 32 tokens. A
passage answers if any window does (the highest P(relevant)); evidence supports if its
best window does, and contradicts if any window does. A first text that does not fit
half the window is cut, and :attr:`PairLogits.truncated` says so (the support model
then fails closed).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from assay.errors import ModelUnavailableError
from assay.hashing import mismatched_file
from assay.models.onnx_sessions import open_session
from assay.models.recent import Recent

__all__ = ["SHIPPED_CROSS_ENCODER", "PairClassifier", "PairLogits", "shipped_pair_classifier"]

SHIPPED_CROSS_ENCODER = Path(__file__).resolve().parent / "shipped" / "assay-cross-encoder"
OUTPUTS = ("relevant", "supported", "contradicted", "unsupported")
_OVERLAP = 32
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class PairLogits:
    """The model's view of one pair, aggregated over the windows of its second text."""

    relevant: float  #: P(relevant) of the best window
    support: tuple[float, float, float]  #: P(supported, contradicted, unsupported), best window
    contradicted: float  #: the highest P(contradicted) of any window
    truncated: bool  #: the first text was cut to fit
    windows: int


class PairClassifier:
    """Runs the cross-encoder in ``folder`` (``model.onnx``, ``tokenizer.json``, ``model.json``)."""

    def __init__(
        self, folder: Path = SHIPPED_CROSS_ENCODER, *, batch_size: int = 1, cache_size: int = 4096
    ) -> None:
        """Load and verify the model files (sha256 against ``model.json``).

        One input per run by default: int8 dynamic quantization scales activations per
        batch, so in a batch a pair's score would depend on the pairs beside it. The
        results of the last ``cache_size`` pairs are kept (a pair's score never depends
        on what else is scored, so a kept result is the result).
        """
        try:
            info = json.loads((folder / "model.json").read_text(encoding="utf-8"))
            mismatch = mismatched_file(folder, info["sha256"])
            if mismatch is not None:
                path, actual, digest = mismatch
                raise ModelUnavailableError(
                    f"{path} has sha256 {actual[:12]}..., expected {digest[:12]}...: "
                    "the file is corrupted or was replaced; reinstall assay"
                )
            from tokenizers import Tokenizer

            self._session = open_session(folder / "model.onnx")
            self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except (OSError, KeyError, ValueError) as exc:
            raise ModelUnavailableError(
                f"cannot load the cross-encoder in {folder} ({exc})"
            ) from exc
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.max_tokens = int(info["max_tokens"])
        self.version = str(info.get("version", "0"))
        self.name = f"{info.get('name', folder.name)}@{self.version}"
        self.sha256 = str(info["sha256"]["model.onnx"])
        self.batch_size = batch_size
        self._cache: Recent[tuple[str, str], PairLogits] = Recent(cache_size)

    def _windows(self, first: str, second: str) -> tuple[list[int], list[list[int]], bool]:
        """Token ids of ``first`` (cut to half the window) and of each window of ``second``."""
        head = self._tokenizer.encode(first, add_special_tokens=False).ids
        cut = len(head) > self.max_tokens // 2
        head = head[: self.max_tokens // 2]
        body = self._tokenizer.encode(second, add_special_tokens=False).ids
        room = self.max_tokens - len(head) - 3
        step = max(1, room - _OVERLAP)
        starts = range(0, max(1, len(body) - _OVERLAP), step) if len(body) > room else [0]
        return head, [body[s : s + room] for s in starts], cut

    @staticmethod
    def _row(head: list[int], window: list[int]) -> tuple[list[int], list[int]]:
        cls, sep = 101, 102  # the MiniLM (bert-base-uncased) vocabulary's [CLS] and [SEP]
        ids = [cls, *head, sep, *window, sep]
        return ids, [0] * (len(head) + 2) + [1] * (len(window) + 1)

    def _run(self, rows: list[tuple[list[int], list[int]]]) -> Floats:
        out: list[Floats] = []
        for start in range(0, len(rows), self.batch_size):
            batch = rows[start : start + self.batch_size]
            width = max(len(ids) for ids, _ in batch)
            feeds = {name: np.zeros((len(batch), width), dtype=np.int64) for name in
                     ("input_ids", "attention_mask", "token_type_ids")}  # fmt: skip
            for r, (ids, types) in enumerate(batch):
                feeds["input_ids"][r, : len(ids)] = ids
                feeds["attention_mask"][r, : len(ids)] = 1
                feeds["token_type_ids"][r, : len(ids)] = types
            (result, *_) = self._session.run(None, feeds)
            out.append(np.asarray(result, dtype=np.float64))
        return np.concatenate(out) if out else np.zeros((0, len(OUTPUTS)))

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[PairLogits]:
        """Aggregated probabilities per pair (see the module docstring); a pair scored
        recently (the last ``cache_size``) is not run again."""
        found = self._cache.found(pairs)
        missing = list(dict.fromkeys(p for p in pairs if p not in found))
        if missing:
            scored = dict(zip(missing, self._score(missing), strict=True))
            self._cache.keep(scored)
            found |= scored
        return [found[p] for p in pairs]

    def _score(self, pairs: Sequence[tuple[str, str]]) -> list[PairLogits]:
        windows, rows, cuts = self.windowed_rows(pairs)
        return self.aggregate(self._run(rows), windows, cuts)

    def windowed_rows(
        self, pairs: Sequence[tuple[str, str]]
    ) -> tuple[list[int], list[tuple[list[int], list[int]]], list[bool]]:
        """The model's input rows for ``pairs``: the number of windows of each pair, the
        rows (token ids and type ids, pair by pair) and whether each first text was cut."""
        plans = [self._windows(first, second) for first, second in pairs]
        rows = [self._row(head, w) for head, windows, _ in plans for w in windows]
        return [len(w) for _, w, _ in plans], rows, [cut for _, _, cut in plans]

    @staticmethod
    def aggregate(logits: Floats, windows: Sequence[int], cuts: Sequence[bool]) -> list[PairLogits]:
        """Each pair's view from the logits of its windows' rows (module docstring)."""
        relevant = 1.0 / (1.0 + np.exp(-np.clip(logits[:, 0], -40, 40)))
        z = logits[:, 1:] - logits[:, 1:].max(axis=1, keepdims=True)
        support = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        out, start = [], 0
        for count, cut in zip(windows, cuts, strict=True):
            stop = start + count
            best = start + int(np.argmax(support[start:stop, 0]))
            out.append(
                PairLogits(
                    relevant=float(relevant[start:stop].max()),
                    support=(
                        float(support[best, 0]),
                        float(support[best, 1]),
                        float(support[best, 2]),
                    ),
                    contradicted=float(support[start:stop, 1].max()),
                    truncated=cut,
                    windows=count,
                )
            )
            start = stop
        return out

    def run_rows(self, rows: list[tuple[list[int], list[int]]]) -> Floats:
        """The four logits of each prepared row (see :meth:`windowed_rows`)."""
        return self._run(rows)


@functools.cache
def shipped_pair_classifier() -> PairClassifier:
    """The shipped cross-encoder, loaded once per process."""
    return PairClassifier()
