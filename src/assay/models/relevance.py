"""Relevance models: the probability that a passage answers a question.

One method, ``score(query, passages) -> list[float]`` in [0, 1], behind a registry by
name, so a user swaps the model by configuration (``ASSAY_RELEVANCE_MODEL``):

================================  ==================================================
name                              model
================================  ==================================================
``assay-relevance`` (default)     shipped head over MiniLM token alignment + lexical
                                  features (:mod:`assay.models.features`)
``assay-relevance-ce``            assay's cross-encoder (fine-tuned MiniLM, int8 ONNX,
                                  :mod:`assay.models.pair_classifier`)
``assay-relevance-lexical``       the same features without the network: cheapest
``cross-encoder:PATH``            the user's own ONNX reranker (last logit, or the
                                  single logit through a sigmoid)
``llm``                           yes/no P(yes) from the configured endpoint
``cascade``                       the default on every passage, the LLM on the best
                                  ``top`` few, their log-odds averaged
================================  ==================================================

The scores feed the similarity sub-score of each retrieved item and the model
judgment (R4) of the set; see :mod:`assay.flow.retrieval`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol, runtime_checkable

from assay.errors import InvalidInputError
from assay.models.cross_encoder import CrossEncoder, softmax
from assay.models.definitions import as_prose
from assay.models.embedder import MiniLMEmbedder, get_embedder
from assay.models.head import load_head, shipped_head_path
from assay.models.llm import ChatClient, RememberedAnswers
from assay.models.pair_classifier import shipped_pair_classifier
from assay.models.pairs import PairScorer
from assay.models.registry import ModelRegistry
from assay.settings import LLMSettings

__all__ = [
    "DEFAULT_RELEVANCE_MODEL",
    "CascadeRelevanceModel",
    "CrossEncoderRelevanceModel",
    "HeadRelevanceModel",
    "LLMRelevanceModel",
    "PairClassifierRelevanceModel",
    "RelevanceModel",
    "get_relevance_model",
    "register_relevance_model",
]

DEFAULT_RELEVANCE_MODEL = "assay-relevance"
_SYSTEM = "You are a careful reader. Answer only yes or no."
# passage first, then the question: on 60 SQuAD validation pairs the local
# Qwen2.5-Coder-1.5B reached AUROC 0.75 with it and 0.60 with a question-first prompt
_PROMPT = (
    "Read the passage and decide whether it states the answer to the question. Questions "
    "may mention details the passage does not contain, or change a detail of what it says; "
    "then the answer is no.\n\nPassage: {passage}\n\nQuestion: {query}\n\n"
    "Does the passage state the answer to this exact question? Answer yes or no."
)


@runtime_checkable
class RelevanceModel(Protocol):
    """Scores how likely each passage answers ``query``."""

    name: str  #: model id with version, recorded in audit rows

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One probability in [0, 1] per passage, in order."""
        ...


@runtime_checkable
class SpanRelevanceModel(RelevanceModel, Protocol):
    """A relevance model that also reads sentences inside a passage it has read."""

    def score_spans(
        self, query: str, passage: str, spans: Sequence[tuple[int, int]]
    ) -> list[float]:
        """One probability per character span of ``passage``, each read as a passage of its
        own but from the whole passage's encoding (no encoding of its own)."""
        ...


def check_query(query: object, passages: object) -> tuple[str, list[str]]:
    """``query`` and ``passages`` validated: non-empty strings, passages a list."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query", query, "give the question as non-empty text")
    if isinstance(passages, str) or not isinstance(passages, Sequence):
        raise InvalidInputError("passages", passages, "pass a list of passage strings")
    for i, passage in enumerate(passages):
        if not isinstance(passage, str) or not passage.strip():
            raise InvalidInputError(f"passages[{i}]", passage, "drop empty passages")
    return query, list(passages)


class HeadRelevanceModel:
    """A shipped (or retrained) head: ``lexical`` runs no neural network."""

    def __init__(self, *, lexical: bool = False) -> None:
        """Load the shipped head, checking its sha256."""
        name = "assay-relevance-lexical" if lexical else "assay-relevance"
        head = load_head(*shipped_head_path(name))
        embedder = get_embedder("minilm")
        assert isinstance(embedder, MiniLMEmbedder)
        encoder = None if lexical else embedder
        self._scorer = PairScorer(head, encoder, positive="relevant", tokenizer=embedder)
        self.name = head.model_id
        #: the embedder whose token states it reads (ingest keeps them); None: lexical
        self.encoder_name = None if encoder is None else encoder.name

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """P(relevant) per passage; the best window of a long passage counts. A glossary
        entry of the term a question asks the meaning of reads as a sentence
        (:func:`~assay.models.definitions.as_prose`)."""
        query, items = check_query(query, passages)
        results = self._scorer.score([(query, as_prose(query, p)) for p in items])
        return [r.probabilities["relevant"] for r in results]

    def score_spans(
        self, query: str, passage: str, spans: Sequence[tuple[int, int]]
    ) -> list[float]:
        """P(relevant) of each character span of ``passage`` (see :class:`SpanRelevanceModel`)."""
        query, _ = check_query(query, [passage])
        for start, end in spans:
            if not 0 <= start < end <= len(passage) or not passage[start:end].strip():
                raise InvalidInputError(
                    "spans",
                    (start, end),
                    f"give non-blank spans within the passage's {len(passage)} characters",
                )
        results = self._scorer.score_spans(query, passage, spans)
        return [r.probabilities["relevant"] for r in results]


class PairClassifierRelevanceModel:
    """The shipped cross-encoder's P(relevant): the best window of each passage."""

    def __init__(self) -> None:
        """Load the shipped cross-encoder once per process (sha256 checked)."""
        self._model = shipped_pair_classifier()
        self.name = f"assay-relevance-ce@{self._model.version}"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """P(relevant) per passage (a glossary entry read as for :class:`HeadRelevanceModel`)."""
        query, items = check_query(query, passages)
        pairs = [(query, as_prose(query, p)) for p in items]
        return [r.relevant for r in self._model.score(pairs)]


class CrossEncoderRelevanceModel:
    """The user's ONNX reranker at ``path``; ``positive`` is the logit column of "relevant"."""

    def __init__(self, path: str, *, positive: int = -1) -> None:
        """Load the model (see :class:`~assay.models.cross_encoder.CrossEncoder`)."""
        self._model = CrossEncoder(path)
        self._positive = positive
        self.name = f"cross-encoder:{self._model.name}"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """P(relevant) per passage from the model's logits."""
        query, items = check_query(query, passages)
        if not items:
            return []
        probabilities = softmax(self._model.logits([(query, p) for p in items]))
        return [float(p) for p in probabilities[:, self._positive]]


class LLMRelevanceModel:
    """Asks the configured chat endpoint, passage by passage, "does this answer it?"."""

    def __init__(self, client: ChatClient, *, max_chars: int = 4000) -> None:
        """Passages longer than ``max_chars`` are cut (the endpoint's context is finite)."""
        self._client = client
        self._max_chars = max_chars
        self._remembered = RememberedAnswers()
        self.name = f"llm-yes-no:{client.name}"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """P(yes) per passage: one request each, none for a pair asked before."""
        query, items = check_query(query, passages)
        prompts = [_PROMPT.format(passage=p[: self._max_chars], query=query) for p in items]
        return [
            self._remembered.get(user, partial(self._client.yes_probability, _SYSTEM, user))
            for user in prompts
        ]


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


class CascadeRelevanceModel:
    """``fast`` on every passage; ``slow`` on the ``top`` best of them.

    For those few the score is ``sigmoid(w * logit(fast) + (1 - w) * (logit(slow) -
    slow_bias))``: averaging log-odds lets two models that rank differently correct
    each other; ``slow_bias`` recentres an LLM that says "yes" too readily.
    """

    def __init__(
        self,
        fast: RelevanceModel,
        slow: RelevanceModel,
        *,
        top: int = 3,
        fast_weight: float = 0.5,
        slow_bias: float = 0.0,
    ) -> None:
        """Combine ``fast`` and ``slow``; see the class docstring."""
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise InvalidInputError("top", top, "use a positive integer such as 3")
        if not 0.0 <= fast_weight <= 1.0:
            raise InvalidInputError("fast_weight", fast_weight, "use a number in [0, 1]")
        self.fast, self.slow, self.top = fast, slow, top
        self.fast_weight, self.slow_bias = fast_weight, slow_bias
        self.name = f"cascade({fast.name}+{slow.name},top={top})"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Fast scores everywhere, combined scores for the ``top`` fast-best passages."""
        query, items = check_query(query, passages)
        scores = self.fast.score(query, items)
        best = sorted(range(len(items)), key=lambda i: -scores[i])[: self.top]
        slow = self.slow.score(query, [items[i] for i in best]) if best else []
        w = self.fast_weight
        for i, s in zip(best, slow, strict=True):
            z = w * _logit(scores[i]) + (1 - w) * (_logit(s) - self.slow_bias)
            scores[i] = 1.0 / (1.0 + math.exp(-z))
        return scores


_models: ModelRegistry[RelevanceModel] = ModelRegistry(
    "relevance_model",
    shipped=frozenset({"assay-relevance", "assay-relevance-ce", "assay-relevance-lexical"}),
    cross_encoder=CrossEncoderRelevanceModel,
)


def register_relevance_model(name: str, factory: Callable[[], RelevanceModel]) -> None:
    """Make ``get_relevance_model(name)`` build the model with ``factory``."""
    _models.register(name, factory)


def get_relevance_model(
    spec: str | RelevanceModel = DEFAULT_RELEVANCE_MODEL, *, llm: LLMSettings | None = None
) -> RelevanceModel:
    """The model registered as ``spec`` (shipped heads load once), or ``spec`` itself;
    ``llm`` is the endpoint of the ``llm`` and ``cascade`` models (default: the
    environment's)."""
    if isinstance(spec, RelevanceModel) and not isinstance(spec, str):
        return spec
    return _models.get(spec, llm=llm)


register_relevance_model("assay-relevance", HeadRelevanceModel)
register_relevance_model("assay-relevance-ce", PairClassifierRelevanceModel)
register_relevance_model("assay-relevance-lexical", lambda: HeadRelevanceModel(lexical=True))
_models.register_endpoint("llm", LLMRelevanceModel)
_models.register_endpoint(
    "cascade",
    lambda client: CascadeRelevanceModel(
        get_relevance_model(DEFAULT_RELEVANCE_MODEL), LLMRelevanceModel(client)
    ),
)
