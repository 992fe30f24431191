"""Support models: does this evidence support, contradict or leave open this claim?

One method, ``score(pairs) -> list[SupportResult]`` for (claim, evidence) pairs, behind
a registry by name (``ASSAY_SUPPORT_MODEL``):

==============================  ====================================================
name                            model
==============================  ====================================================
``assay-support``               shipped softmax head (supported / contradicted /
                                unsupported) over MiniLM alignment + lexical features
``assay-support-lexical``       the same features without the network
``assay-support-ce``            assay's cross-encoder (fine-tuned MiniLM, int8 ONNX)
``assay-support-stack``         the cross-encoder weighed with what the claim states
(default)                       that the evidence does not (:mod:`.support_stack`)
``cross-encoder:PATH``          the user's ONNX NLI or grounding model; the label of
                                each logit column from ``ASSAY_SUPPORT_LABELS``
                                (default ``contradicted,supported,unsupported``;
                                a single logit means P(supported))
``llm``                         yes/no "is the claim supported?" from the endpoint
==============================  ====================================================

Fail closed: a claim too long for one window is never called supported (its score is
capped at 0 and its label is ``unsupported`` or ``contradicted``), because the part that
was cut might be the part that is false. Long evidence is scored window by window: the
best window gives P(supported), the most contradicting one P(contradicted).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from assay.errors import InvalidInputError
from assay.models.cross_encoder import CrossEncoder, softmax
from assay.models.embedder import MiniLMEmbedder, get_embedder
from assay.models.head import load_head, shipped_head_path
from assay.models.llm import ChatClient
from assay.models.pair_classifier import shipped_pair_classifier
from assay.models.pairs import PairScorer
from assay.models.registry import CROSS_ENCODER, ModelRegistry
from assay.models.support_stack import shipped_support_stack
from assay.settings import LLMSettings, load_settings

__all__ = [
    "DEFAULT_SUPPORT_MODEL",
    "CrossEncoderSupportModel",
    "HeadSupportModel",
    "LLMSupportModel",
    "PairClassifierSupportModel",
    "StackedSupportModel",
    "SupportLabel",
    "SupportModel",
    "SupportResult",
    "get_support_model",
    "register_support_model",
]

DEFAULT_SUPPORT_MODEL = "assay-support-stack"
SupportLabel = Literal["supported", "contradicted", "unsupported"]
LABELS: tuple[SupportLabel, ...] = ("supported", "contradicted", "unsupported")
_SYSTEM = "You are a careful fact checker. Answer only yes or no."
_PROMPT = (
    "Read the evidence and decide whether it shows that the claim is true. If the evidence "
    "says something different, or does not say enough to tell, the answer is no.\n\n"
    "Evidence: {evidence}\n\nClaim: {claim}\n\n"
    "Does the evidence show that this exact claim is true? Answer yes or no."
)


@dataclass(frozen=True, slots=True)
class SupportResult:
    """How well one piece of evidence backs one claim."""

    score: float  #: P(supported) in [0, 1]
    label: SupportLabel
    contradiction: float | None = None  #: P(contradicted) where the model can tell
    truncated: bool = False  #: the claim was cut, so it was not called supported

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "score": round(self.score, 6),
            "label": self.label,
            "contradiction": None if self.contradiction is None else round(self.contradiction, 6),
            "truncated": self.truncated,
        }


@runtime_checkable
class SupportModel(Protocol):
    """Scores how well each evidence text supports its claim."""

    name: str  #: model id with version, recorded in audit rows

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        """One result per (claim, evidence) pair, in order."""
        ...


def check_pairs(pairs: object) -> list[tuple[str, str]]:
    """``pairs`` validated: a list of (claim, evidence) pairs of non-empty strings."""
    if isinstance(pairs, str) or not isinstance(pairs, Sequence):
        raise InvalidInputError("pairs", pairs, "pass a list of (claim, evidence) pairs")
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InvalidInputError(f"pairs[{i}]", pair, "give a (claim, evidence) pair")
        for part, text in zip(("claim", "evidence"), pair, strict=True):
            if not isinstance(text, str) or not text.strip():
                raise InvalidInputError(f"pairs[{i}].{part}", text, f"give the {part} as text")
        out.append((pair[0], pair[1]))
    return out


def _label(supported: float, contradicted: float, unsupported: float, cut: float) -> SupportLabel:
    if supported >= cut:
        return "supported"
    return "contradicted" if contradicted > unsupported else "unsupported"


class HeadSupportModel:
    """The shipped support head; ``lexical`` runs no neural network."""

    def __init__(self, *, lexical: bool = False) -> None:
        """Load the shipped head, checking its sha256."""
        name = "assay-support-lexical" if lexical else "assay-support"
        head = load_head(*shipped_head_path(name))
        embedder = get_embedder("minilm")
        assert isinstance(embedder, MiniLMEmbedder)
        encoder = None if lexical else embedder
        self._scorer = PairScorer(head, encoder, positive="supported", tokenizer=embedder)
        #: P(supported) at or above this is labelled supported (best balanced accuracy
        #: on the validation split)
        self.threshold = float(head.info.get("supported_threshold", 0.5))
        self.name = head.model_id

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        """Probabilities of the best evidence window; truncated claims fail closed."""
        results = []
        for r in self._scorer.score(check_pairs(pairs)):
            p = r.probabilities
            supported = 0.0 if r.truncated else p["supported"]
            contradicted = r.highest["contradicted"]  # from whichever window contradicts
            label = _label(supported, contradicted, p["unsupported"], self.threshold)
            results.append(SupportResult(supported, label, contradicted, r.truncated))
        return results


class PairClassifierSupportModel:
    """The shipped cross-encoder's support distribution, window by window."""

    def __init__(self) -> None:
        """Load the shipped cross-encoder once per process (sha256 checked)."""
        self._model = shipped_pair_classifier()
        self.name = f"assay-support-ce@{self._model.version}"
        #: P(supported) at or above this is labelled supported
        self.threshold = 0.5

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        """Best window's P(supported); P(contradicted) from whichever window contradicts."""
        results = []
        for r in self._model.score(check_pairs(pairs)):
            supported = 0.0 if r.truncated else r.support[0]
            label = _label(supported, r.contradicted, r.support[2], self.threshold)
            results.append(SupportResult(supported, label, r.contradicted, r.truncated))
        return results


class StackedSupportModel:
    """The cross-encoder and the claim's lexical gaps, weighed by two boosted-tree heads."""

    def __init__(self) -> None:
        """Load the shipped stack and its cross-encoder once per process (sha256 checked)."""
        self._stack = shipped_support_stack()
        self.name = self._stack.name
        #: P(supported) at or above this is labelled supported (the heads were fitted
        #: with balanced classes)
        self.threshold = 0.5

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        """P(supported) and P(contradicted) per pair; truncated claims fail closed. A pair
        is labelled contradicted only where its text shows it (a figure, name or negation
        that differs, :class:`~assay.models.support_stack.StackScores`), else unsupported."""
        scores = self._stack.score(check_pairs(pairs))
        results = []
        for s, c, shown, view in zip(
            scores.supported, scores.contradicted, scores.shown, scores.views, strict=True
        ):
            score = 0.0 if view.truncated else float(s)
            # the contradiction head was fitted with balanced classes: 0.5 decides
            label = _label(score, float(c) if shown else 0.0, 0.5, self.threshold)
            results.append(SupportResult(score, label, float(c), view.truncated))
        return results


class CrossEncoderSupportModel:
    """The user's ONNX NLI / grounding model; ``labels`` names each logit column."""

    def __init__(self, path: str, *, labels: Sequence[str] | str | None = None) -> None:
        """Load the model; ``labels`` (a list, or comma-separated) defaults to the
        ``support_labels`` setting (``ASSAY_SUPPORT_LABELS``; see the module)."""
        self._model = CrossEncoder(path)
        raw = labels or load_settings().support_labels
        if isinstance(raw, str):
            raw = raw.split(",")
        self._labels = [label.strip() for label in raw]
        unknown = [label for label in self._labels if label not in LABELS]
        if unknown or "supported" not in self._labels:
            raise InvalidInputError(
                "support_labels",
                ",".join(self._labels),
                f"name each logit column with one of {', '.join(LABELS)}, including supported",
            )
        self.name = f"cross-encoder:{self._model.name}"

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        """Softmax over the columns (a single logit: sigmoid = P(supported))."""
        items = check_pairs(pairs)
        if not items:
            return []
        logits = self._model.logits(items)
        probabilities = softmax(logits)
        results = []
        for row, cut in zip(probabilities, self._model.truncated(items), strict=True):
            if cut:  # fail closed: the model did not see all of the pair
                results.append(SupportResult(0.0, "unsupported", None, truncated=True))
                continue
            if logits.shape[1] == 1:
                s = float(row[1])
                results.append(SupportResult(s, "supported" if s >= 0.5 else "unsupported"))
                continue
            if len(row) != len(self._labels):
                raise InvalidInputError(
                    "support_labels", ",".join(self._labels),
                    f"the model has {len(row)} logit columns; name each of them",
                )  # fmt: skip
            p = {label: float(v) for label, v in zip(self._labels, row, strict=True)}
            label = max(p, key=lambda k: p[k])
            results.append(SupportResult(p["supported"], label, p.get("contradicted")))  # type: ignore[arg-type]
        return results


class LLMSupportModel:
    """Asks the configured chat endpoint whether the evidence shows the claim is true."""

    def __init__(self, client: ChatClient, *, max_chars: int = 6000) -> None:
        """Evidence longer than ``max_chars`` is cut."""
        self._client = client
        self._max_chars = max_chars
        self.name = f"llm-yes-no:{client.name}"

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        """P(yes) per pair; a small LLM cannot tell contradiction from silence reliably."""
        results = []
        for claim, evidence in check_pairs(pairs):
            p = self._client.yes_probability(
                _SYSTEM, _PROMPT.format(evidence=evidence[: self._max_chars], claim=claim)
            )
            results.append(SupportResult(p, "supported" if p >= 0.5 else "unsupported"))
        return results


_models: ModelRegistry[SupportModel] = ModelRegistry(
    "support_model",
    shipped=frozenset(
        {"assay-support", "assay-support-ce", "assay-support-stack", "assay-support-lexical"}
    ),
    cross_encoder=CrossEncoderSupportModel,
)


def register_support_model(name: str, factory: Callable[[], SupportModel]) -> None:
    """Make ``get_support_model(name)`` build the model with ``factory``."""
    _models.register(name, factory)


def get_support_model(
    spec: str | SupportModel = DEFAULT_SUPPORT_MODEL,
    *,
    llm: LLMSettings | None = None,
    labels: str | None = None,
) -> SupportModel:
    """The model registered as ``spec`` (shipped heads load once), or ``spec`` itself.

    ``llm`` is the endpoint of the ``llm`` model (default: the environment's), ``labels``
    the logit columns of a ``cross-encoder:PATH`` model (default: the setting).
    """
    if isinstance(spec, SupportModel) and not isinstance(spec, str):
        return spec
    if (
        labels is not None
        and isinstance(spec, str)
        and spec.strip().lower().startswith(CROSS_ENCODER)
    ):
        return CrossEncoderSupportModel(spec.strip()[len(CROSS_ENCODER) :], labels=labels)
    return _models.get(spec, llm=llm)


register_support_model("assay-support", HeadSupportModel)
register_support_model("assay-support-ce", PairClassifierSupportModel)
register_support_model("assay-support-stack", StackedSupportModel)
register_support_model("assay-support-lexical", lambda: HeadSupportModel(lexical=True))
_models.register_endpoint("llm", LLMSupportModel)
