"""Run a user's own cross-encoder (ONNX) on text pairs: rerankers and NLI models.

A user with network access can export any Hugging Face cross-encoder (an ms-marco
reranker, an NLI or hallucination model) to ONNX and point assay at it; nothing is
downloaded at run time. The folder (or the ``.onnx`` file, with ``tokenizer.json``
beside it) needs:

* ``model.onnx`` taking ``input_ids`` and ``attention_mask`` (``token_type_ids`` if it
  declares it) and returning logits of shape ``(batch, classes)``;
* ``tokenizer.json`` (the ``tokenizers`` format, which encodes a pair as one input).

The model id recorded in audit rows is the folder name plus the first 12 hex digits of
the ONNX file's sha256, so two different files never share an id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError, ModelUnavailableError
from assay.models.onnx_sessions import open_session

__all__ = ["CrossEncoder"]


class CrossEncoder:
    """Logits of an ONNX pair classifier, batched; ``max_tokens`` truncates each pair."""

    def __init__(self, path: str | Path, *, max_tokens: int = 512, batch_size: int = 16) -> None:
        """Load ``path`` (a folder with ``model.onnx``, or the ``.onnx`` file itself)."""
        location = Path(path).expanduser()
        model = location / "model.onnx" if location.is_dir() else location
        tokenizer = model.parent / "tokenizer.json"
        for needed in (model, tokenizer):
            if not needed.is_file():
                raise InvalidInputError(
                    "cross_encoder",
                    str(path),
                    "give a folder holding model.onnx and tokenizer.json",
                    problem=f"has no {needed.name}",
                )
        try:
            from tokenizers import Tokenizer

            self._tokenizer = Tokenizer.from_file(str(tokenizer))
            self._session = open_session(model)
        except Exception as exc:
            raise ModelUnavailableError(f"cannot load the cross-encoder {model} ({exc})") from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_tokens)
        self._inputs = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise ModelUnavailableError(
                f"{model} takes {sorted(self._inputs)}; a cross-encoder needs input_ids and "
                "attention_mask"
            )
        self.batch_size = batch_size
        digest = hashlib.sha256(model.read_bytes()).hexdigest()[:12]
        label = model.parent.name if model.name == "model.onnx" else model.stem
        self.name = f"{label}@{digest}"

    def truncated(self, pairs: Sequence[tuple[str, str]]) -> list[bool]:
        """Whether each pair had to be cut to fit ``max_tokens`` (the model saw part of it)."""
        return [bool(e.overflowing) for e in self._tokenizer.encode_batch(list(pairs))]

    def logits(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float64]:
        """Logits of shape ``(len(pairs), classes)``."""
        rows: list[npt.NDArray[Any]] = []
        for start in range(0, len(pairs), self.batch_size):
            batch = list(pairs[start : start + self.batch_size])
            encodings = self._tokenizer.encode_batch(batch)
            width = max(len(e.ids) for e in encodings)
            feeds = {
                "input_ids": np.zeros((len(batch), width), dtype=np.int64),
                "attention_mask": np.zeros((len(batch), width), dtype=np.int64),
                "token_type_ids": np.zeros((len(batch), width), dtype=np.int64),
            }
            for row, e in enumerate(encodings):
                n = len(e.ids)
                feeds["input_ids"][row, :n] = e.ids
                feeds["attention_mask"][row, :n] = 1
                feeds["token_type_ids"][row, :n] = e.type_ids
            (out, *_) = self._session.run(
                None, {k: v for k, v in feeds.items() if k in self._inputs}
            )
            rows.append(np.asarray(out, dtype=np.float64).reshape(len(batch), -1))
        if not rows:
            return np.zeros((0, 1))
        return np.concatenate(rows)


def softmax(logits: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Row-wise softmax; a single logit column becomes [1 - sigmoid, sigmoid]."""
    if logits.shape[1] == 1:
        p = 1.0 / (1.0 + np.exp(-np.clip(logits[:, 0], -40, 40)))
        return np.stack([1.0 - p, p], axis=1)
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    result: npt.NDArray[np.float64] = z / z.sum(axis=1, keepdims=True)
    return result
