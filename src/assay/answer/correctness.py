"""Answer correctness: the probability that a drafted answer is right.

The judge grades *support*: an extractive answer copied from an admitted passage is
always supported, whether or not it answers the question. Whether it answers depends on
other things: that some passage answers the question at all (answerability: the best
relevance, its margin over the rest, the set confidence), that the answer comes from
that passage (the relevance of the cited passages and of the answer's own sentences to
the question), that it has the type of answer the question asks for, that the question's
terms are found, that the sources agree, and what the reader
(:mod:`assay.models.reader`) finds: whether the cited passage holds an answer span at
all, and whether any of the best retrieved passages does. :class:`CorrectnessModel`
combines these :data:`FEATURES` with a logistic regression fitted on labeled answers
(:mod:`assay.training.correctness_train`): answers drafted from knowledge bases that
hold the gold passage and from the same knowledge bases without it, so that on-topic
passages without the answer are its negatives.

With a chat endpoint configured, a second model reads more features: the chat model's
belief that the most relevant cited passage states the answer (:data:`LLM_FEATURE`,
:mod:`assay.models.answerability`), which tells SQuAD 2.0's unanswerable questions
(written to look answerable from their paragraph) from answerable ones better than the
reader does; and its belief that the answer's first statement, read alone, states it
(:data:`LLM_STATEMENT`): a passage that answers is no answer when the sentence quoted
from it is another one.

A model is fitted with one relevance model's and one reader's scores (and one chat
model's beliefs) and applies only with those (:meth:`CorrectnessModel.applies_to`). The
shipped ones sit in ``models/shipped/assay-correctness/`` and
``models/shipped/assay-correctness-llm/`` with their cards.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.actions import stricter_action
from assay.answer.citations import CITATION, defuse_citations, strip_citations
from assay.answer.expected import expected_kind
from assay.errors import InvalidInputError
from assay.judge.base import Judgment
from assay.judge.strength import CLEARLY_MORE_RELIABLE
from assay.models.answerability import LLMAnswerability
from assay.models.definitions import as_prose
from assay.models.reader import SpanReader
from assay.models.relevance import RelevanceModel
from assay.text import content_terms, stem, stemmed_terms, titled
from assay.types import ExclusionReason

if TYPE_CHECKING:
    from assay.flow.assess import AskResult
    from assay.flow.retrieval import Retrieved
    from assay.policy import JudgeRules

__all__ = [
    "CLIP",
    "DEFAULT_CORRECTNESS_MODEL",
    "FEATURES",
    "LLM_FEATURE",
    "LLM_FEATURES",
    "LLM_STATEMENT",
    "SHIPPED_CORRECTNESS",
    "SHIPPED_CORRECTNESS_LLM",
    "CorrectnessModel",
    "CorrectnessRater",
    "answer_features",
    "features_of",
    "first_statement",
    "load_correctness_model",
    "peer_ids",
    "rated_by",
    "reader_belief",
    "statement_belief",
]

DEFAULT_CORRECTNESS_MODEL = "assay-correctness"
SHIPPED_CORRECTNESS = Path(__file__).resolve().parents[1] / "models/shipped/assay-correctness"
SHIPPED_CORRECTNESS_LLM = SHIPPED_CORRECTNESS.with_name("assay-correctness-llm")

CLIP = 3.0  #: standardised features beyond +-3 (outside what was fitted) count as 3
READ_HITS = 3  #: the best retrieved passages the reader reads for ``reader_best``
READER_SCALE = 4.0  #: reader margins (sums of two logits) are read as sigmoid(margin / 4)

#: what the model reads, each in [0, 1]
FEATURES = (
    "best_relevance",  # the most relevant retrieved passage: does any passage answer?
    "relevance_margin",  # its lead over the second: one clear answer, or several guesses
    "cited_relevance",  # the most relevant passage the answer cites
    "answer_relevance",  # the answer's own text against the question
    "set_confidence",  # the set confidence the router used (raw composite)
    "coverage",  # share of the question's terms found in the admitted evidence
    "support",  # the judge's support score of the answer's claims
    "kind_missing",  # 1 when the question asks for a type of answer the answer lacks
    "question_overlap",  # share of the answer's terms that the question already uses
    "conflicts",  # conflicts among the admitted evidence (0, 1, 2, 3 or more) / 3
    "reader_cited",  # the reader's belief that a cited passage holds an answer
    "reader_best",  # the same for the best retrieved passages: is the answer anywhere?
    "reader_statement",  # the same for the answer's first statement read alone
    "statement_coverage",  # share of the question's terms its first statement holds
)
#: the chat model's belief that the most relevant cited passage states the answer
LLM_FEATURE = "llm_cited"
#: its belief that the answer's first statement, read alone, states the answer: on the
#: fitting suite's informational drafts (122) it tells right from wrong at AUROC 0.877,
#: the passage's belief at 0.843
LLM_STATEMENT = "llm_statement"
#: what a model fitted with a chat endpoint reads (a model of an earlier release may
#: read all but :data:`LLM_STATEMENT`)
LLM_FEATURES = (*FEATURES, LLM_FEATURE, LLM_STATEMENT)


def reader_belief(margin: float) -> float:
    """A reader margin as a number in [0, 1]: 0.5 where answer and no answer tie."""
    return round(1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, margin / READER_SCALE)))), 6)


def answer_features(
    question: str,
    answer: str,
    *,
    relevances: Sequence[float],
    cited_relevances: Sequence[float],
    answer_relevance: float,
    set_confidence: float,
    coverage: float,
    support: float,
    conflicts: int,
    reader_cited: float,
    reader_best: float,
    reader_statement: float,
    statement: str,
) -> dict[str, float]:
    """The :data:`FEATURES` of one answer (its text without citations).

    ``relevances`` are the relevance model's scores of every retrieved passage,
    ``cited_relevances`` those of the passages the answer cites; the reader's beliefs
    are :func:`reader_belief` of its margins. ``statement`` is the answer's first
    statement under its passage's title path: a row of another item ("How much is the
    rabies vaccine for a cat?" answered from the FeLV row) lacks a term the question
    names.
    """
    ranked = [*sorted(relevances, reverse=True), 0.0, 0.0]
    kind = expected_kind(question)
    asked = stemmed_terms(question)
    said = [stem(t) for t in content_terms(answer)]
    values = {
        "best_relevance": ranked[0],
        "relevance_margin": ranked[0] - ranked[1],
        "cited_relevance": max(cited_relevances, default=0.0),
        "answer_relevance": answer_relevance,
        "set_confidence": set_confidence,
        "coverage": coverage,
        "support": support,
        "kind_missing": float(kind is not None and not kind.found_in(answer)),
        "question_overlap": sum(t in asked for t in said) / len(said) if said else 0.0,
        "conflicts": min(conflicts, 3) / 3,
        "reader_cited": reader_cited,
        "reader_best": reader_best,
        "reader_statement": reader_statement,
        "statement_coverage": len(asked & stemmed_terms(statement)) / len(asked) if asked else 1.0,
    }
    return {name: round(float(values[name]), 6) for name in FEATURES}


def features_of(
    relevance: RelevanceModel,
    reader: SpanReader,
    question: str,
    result: AskResult,
    answer: str,
    cited: Sequence[str],
    support: float,
    answerability: LLMAnswerability | None = None,
    *,
    read_statement: bool = True,
) -> dict[str, float]:
    """The :data:`FEATURES` of ``answer`` (with its citations; without a short answer
    stated first, :attr:`assay.answer.base.Draft.quoted`) drafted for ``result``, whose
    hits ``relevance`` scored and ``reader`` reads; ``support`` is the judge's score.
    With ``answerability``, :data:`LLM_FEATURES`: its belief about the most relevant cited
    passage (0.0 when the answer cites none) and, unless ``read_statement`` is false (a
    model that does not read it: one request less), about the first statement."""
    wanted = set(cited)
    peers = peer_ids(result, wanted)
    hits = [h for h in result.retrieval.hits if h.chunk.id in peers]
    relevances = [float(h.relevance or 0.0) for h in hits]
    plain = strip_citations(answer)

    # passages are read under their title paths, as the answerer read them ("The pump
    # draws 4.2 A" answers about the HP-300 because it sits under "HP-300 > Electrical"),
    # and a cited passage is often among the best hits too: the reader's cache reads
    # each one once. A glossary entry of the term asked about reads as the sentence it
    # stands for, as the relevance model reads it (:mod:`assay.models.definitions`)
    def read(text: str) -> float:
        return reader.read(question, as_prose(question, text)).margin

    def margin(h: Retrieved) -> float:
        return read(titled(h.chunk.title, defuse_citations(h.chunk.text)))

    cited_margins = [margin(h) for h in hits if h.chunk.id in wanted]
    best_hits = sorted(hits, key=lambda h: -float(h.relevance or 0.0))[:READ_HITS]
    margins = [margin(h) for h in best_hits]
    cited_margin = max(cited_margins, default=-math.inf)
    # the answer is read under its passage's title too: "A full charge takes 3 hours"
    # answers about the HX-40 because it sits under "HX-40 > Charging"
    title = next((h.chunk.title for h in hits if h.chunk.id in wanted and h.chunk.title), "")
    statement = first_statement(answer)
    statement_margin = read(titled(title, statement)) if statement else -math.inf
    alone = relevance.score(question, [titled(title, plain)])[0] if plain.strip() else 0.0
    features = answer_features(
        question,
        plain,
        relevances=relevances,
        cited_relevances=[r for h, r in zip(hits, relevances, strict=True) if h.chunk.id in wanted],
        answer_relevance=alone,
        set_confidence=result.signals.composite,
        coverage=result.signals.coverage,
        support=support,
        conflicts=sum(c.first in peers and c.second in peers for c in result.conflicts),
        reader_cited=reader_belief(cited_margin),
        reader_best=reader_belief(max(margins, default=-math.inf)),
        reader_statement=reader_belief(statement_margin),
        statement=as_prose(question, titled(title, statement)),
    )
    if answerability is not None:
        cited_hits = [h for h in hits if h.chunk.id in wanted]
        best = max(cited_hits, key=lambda h: float(h.relevance or 0.0), default=None)
        features[LLM_FEATURE] = 0.0
        if best is not None:
            passage = defuse_citations(best.chunk.text)
            features[LLM_FEATURE] = answerability.belief(question, passage, best.chunk.title or "")
        if read_statement:
            features[LLM_STATEMENT] = statement_belief(answerability, question, answer)
    return features


def statement_belief(answerability: LLMAnswerability, question: str, answer: str) -> float:
    """The chat model's belief that ``answer``'s first statement, read alone (without
    its passage or title: the words quoted must answer), states the answer; 0.0 for an
    answer that states nothing."""
    statement = first_statement(answer)
    return answerability.belief(question, statement) if statement else 0.0


def peer_ids(result: AskResult, cited: set[str]) -> set[str]:
    """The retrieved passages an answer citing ``cited`` is measured against: all but
    superseded ones and those of a source clearly less reliable than the most reliable
    cited one (:data:`assay.judge.strength.CLEARLY_MORE_RELIABLE`), whose conflicts too
    are left out.

    The answerer lets the official guide lead over a forum post that echoes the question
    ("Mine went amber all evening"), and names the post's disagreement; measured against
    that post (a higher relevance than the cited passage's, an answer span of its own, a
    conflict), right answers from the stronger source were rated 0.03-0.16."""
    evidence = {e.id: e for e in result.scored.evidence}
    trusted = [e.basis.reliability for i in cited if (e := evidence.get(i)) is not None]
    floor = max(trusted, default=None)

    def peer(chunk_id: str) -> bool:
        e = evidence.get(chunk_id)
        if e is None or chunk_id in cited:
            return True
        if e.reason is ExclusionReason.SOURCE_SUPERSEDED:
            return False
        return floor is None or round(floor - e.basis.reliability, 6) < CLEARLY_MORE_RELIABLE

    return {h.chunk.id for h in result.retrieval.hits if peer(h.chunk.id)}


def first_statement(answer: str) -> str:
    """What ``answer`` says before its first citation (all of it if it cites nothing):
    the statement the answer leads with, as the extractive answerer quoted it from its
    passage (whose own citation-like brackets it had already defused)."""
    return CITATION.split(answer, maxsplit=1)[0].strip()


@dataclass(frozen=True, slots=True)
class CorrectnessModel:
    """A logistic regression over standardised :data:`FEATURES` (or :data:`LLM_FEATURES`,
    fitted with the chat model whose beliefs ``answerability`` names), each clipped to
    three standard deviations: one value far outside the fitting data must not decide
    alone."""

    name: str
    version: str
    relevance_model: str  #: the relevance model whose scores it was fitted on
    reader_model: str  #: the reader whose spans it was fitted on
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    features: tuple[str, ...] = FEATURES
    #: :attr:`assay.models.answerability.LLMAnswerability.name` of the beliefs it was
    #: fitted on; ``None`` for a model of :data:`FEATURES`
    answerability: str | None = None

    def __post_init__(self) -> None:
        # a model may read fewer features than this assay computes (one fitted before
        # a feature was added), never one it does not know
        if not set(self.features) <= set(LLM_FEATURES) or len(set(self.features)) != len(
            self.features
        ):
            raise InvalidInputError(
                "correctness model features", list(self.features),
                f"refit the model (`make train-models`): this assay reads {list(FEATURES)}, "
                f"or those and {LLM_FEATURE!r} with a chat endpoint",
            )  # fmt: skip
        if (LLM_FEATURE in self.features) != bool(self.answerability):
            raise InvalidInputError(
                "correctness model answerability", self.answerability,
                f"name the chat model's beliefs exactly when the features hold {LLM_FEATURE!r}",
            )  # fmt: skip
        for field_name in ("mean", "scale", "coef"):
            if len(getattr(self, field_name)) != len(self.features):
                raise InvalidInputError(
                    f"correctness model {field_name}", len(getattr(self, field_name)),
                    f"give one value per feature ({len(self.features)}: "
                    f"{', '.join(self.features)})",
                )  # fmt: skip
        if any(s <= 0 for s in self.scale):
            raise InvalidInputError("correctness model scale", self.scale, "give positive scales")

    @property
    def ref(self) -> str:
        """``name@version``, as audit rows name it."""
        return f"{self.name}@{self.version}"

    def applies_to(
        self,
        relevance_model: str | None,
        reader_model: str | None,
        answerability: str | None = None,
    ) -> bool:
        """Whether this model's features mean what they did at fitting time: the same
        relevance model and reader and, for a model of :data:`LLM_FEATURES`, the same
        chat model asked the same way (``answerability``)."""
        same_llm = self.answerability is None or answerability == self.answerability
        return (
            relevance_model == self.relevance_model
            and reader_model == self.reader_model
            and same_llm
        )

    def probability(self, features: Mapping[str, float]) -> float:
        """P(the answer is right) for one answer's features."""
        missing = [f for f in self.features if f not in features]
        if missing:
            raise InvalidInputError("features", sorted(features), f"give {', '.join(missing)}")
        z = self.intercept + sum(
            c * min(CLIP, max(-CLIP, (float(features[f]) - m) / s))
            for f, m, s, c in zip(self.features, self.mean, self.scale, self.coef, strict=True)
        )
        return round(1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z)))), 6)

    def to_dict(self) -> dict[str, Any]:
        """The ``model.json`` form."""
        return {
            "name": self.name,
            "version": self.version,
            "relevance_model": self.relevance_model,
            "reader_model": self.reader_model,
            **({"answerability": self.answerability} if self.answerability else {}),
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: str = "model.json") -> CorrectnessModel:
        """Read the ``model.json`` form; a model over other features is refused."""
        try:  # a model over other features is refused by __post_init__
            return cls(
                str(data["name"]),
                str(data["version"]),
                str(data["relevance_model"]),
                str(data["reader_model"]),
                tuple(float(v) for v in data["mean"]),
                tuple(float(v) for v in data["scale"]),
                tuple(float(v) for v in data["coef"]),
                float(data["intercept"]),
                tuple(str(f) for f in data["features"]),
                str(data["answerability"]) if data.get("answerability") else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(
                origin, type(exc).__name__, "write it with `make train-models`",
                problem=f"is not a correctness model ({exc})",
            ) from exc  # fmt: skip


def load_correctness_model(path: str | Path = SHIPPED_CORRECTNESS) -> CorrectnessModel:
    """The model in ``path`` (a folder holding ``model.json``, or the file itself)."""
    file = Path(path)
    if file.is_dir():
        file = file / "model.json"
    if not file.is_file():
        raise InvalidInputError(
            "correctness model", str(path), "give a folder with model.json", problem="not found"
        )
    return CorrectnessModel.from_dict(json.loads(file.read_text()), origin=str(file))


@dataclass(frozen=True, slots=True)
class CorrectnessRater:
    """Rates a judged answer with a :class:`CorrectnessModel` and the relevance model,
    reader (and, for a model of :data:`LLM_FEATURES`, chat model) it was fitted with."""

    model: CorrectnessModel
    relevance: RelevanceModel
    reader: SpanReader
    answerability: LLMAnswerability | None = None

    def __post_init__(self) -> None:
        if self.model.answerability is not None and self.answerability is None:
            raise InvalidInputError(
                "answerability", None,
                f"{self.model.ref} reads a chat model's beliefs: give an LLMAnswerability "
                "of the configured endpoint, or rate with assay-correctness",
            )  # fmt: skip

    def rate(
        self,
        question: str,
        result: AskResult,
        answer: str,
        cited: Sequence[str],
        judgment: Judgment,
        rules: JudgeRules,
    ) -> Judgment:
        """``judgment`` rated: the score is the weaker of P(right) and the judge's support,
        the action the stricter of what each one's thresholds in ``rules`` say.

        An answer is only as strong as its weaker half: it must answer the question
        (this model) and the evidence must back it (the judge). ``correctness`` keeps the
        features, so the audit row replays it.
        """
        if judgment.no_answer:
            return judgment
        support = judgment.assessment.confidence_score
        asked = self.answerability if self.model.answerability is not None else None
        features = features_of(
            self.relevance, self.reader, question, result, answer, cited, support, asked,
            read_statement=LLM_STATEMENT in self.model.features,
        )  # fmt: skip
        probability = self.model.probability(features)
        action = stricter_action(
            rules.thresholds.action(support), rules.correctness.action(probability)
        )
        bands = rules.correctness  # the score shown is min(P, support): say which band P met
        why = (
            f"{judgment.assessment.score_rationale}; {probability:.2f} probability that the "
            f"answer is right ({self.model.ref}; this policy publishes from {bands.publish:.2f}, "
            f"adds a caveat from {bands.caveat:.2f})"
        )
        score = min(probability, support)
        assessment = judgment.assessment.model_copy(
            update={"confidence_score": score, "recommended_action": action, "score_rationale": why}
        )
        rated = {
            "model": self.model.ref,
            "features": features,
            "probability": probability,
            "support": support,
            "score": score,
        }
        return replace(
            judgment, assessment=assessment, judge=rated_by(judgment.judge, self),
            correctness=rated,
        )  # fmt: skip


def rated_by(judge: str, rater: CorrectnessRater) -> str:
    """The name of a judge whose scores ``rater`` rated: a score of another kind, so
    calibration maps keyed by it never mix with the judge's own scores."""
    return f"{judge}+{rater.model.ref}"
