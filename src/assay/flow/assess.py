"""The question flow: retrieved chunks -> scored evidence -> set signals -> a routing decision.

:func:`assess_retrieval` is pure, like :func:`assay.flow.score.score_candidates`, which it
builds on: retrieval has already happened and ``as_of`` is given, so the same inputs
always give the same decision. :meth:`assay.engine.Assay.ask` runs retrieval, calls it,
and writes the audit event. Answer text comes from a later layer; this result already
says which evidence an answer may use and whether it should be given at all.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from assay.errors import EndpointError
from assay.events import AskRecord, build
from assay.flow.retrieval import Retrieval
from assay.flow.score import ScoreResult, SourceResolver, score_candidates, score_fields
from assay.judge.strength import document_key
from assay.models.support import SupportModel
from assay.policy import Policy
from assay.routing import Route, route_question
from assay.scoring.agreement import CachedSupport, Conflict, find_conflicts, support_similarity
from assay.scoring.corroboration import lexical_similarity
from assay.scoring.gate import current
from assay.scoring.signals import SetSignals, compute_set_signals
from assay.types import Evidence

if TYPE_CHECKING:
    from assay.models.answerability import LLMAnswerability

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AskResult:
    """Everything one question decided: the scored evidence, the set signals, the route."""

    scored: ScoreResult
    retrieval: Retrieval
    signals: SetSignals
    route: Route
    category: str | None = None
    conflicts: tuple[Conflict, ...] = ()  #: admitted items whose statements disagree
    #: stored maps applied to this question's scores, by target ("set", "evidence")
    calibration: Mapping[str, Any] = field(default_factory=dict)
    #: the chat model whose reading is the set's judgment (``None``: the relevance model's)
    judged_by: str | None = None
    #: its belief that each passage it read states the answer, by evidence id
    readings: Mapping[str, float] = field(default_factory=dict)

    @property
    def confidence(self) -> float:
        """The set confidence the router used: calibrated when a set map applied."""
        calibrated = self.calibration.get("set")
        return float(calibrated["value"]) if calibrated else self.signals.composite

    @property
    def event_id(self) -> str | None:
        """The audit event of this question."""
        return self.scored.event_id

    def as_dict(self) -> dict[str, Any]:
        """The ``assay ask --json`` output."""
        return self.scored.as_dict() | {
            "decision": self.route.decision.value,
            "reasons": list(self.route.reasons),
            "confidence": self.confidence,
            "calibration": dict(self.calibration),
            "signals": self.signals.as_dict(),
            "route": {"bands": self.route.bands.as_dict(), "category": self.route.category},
            "conflicts": [c.to_dict() for c in self.conflicts],
            "retrieval": {
                "mode": self.retrieval.mode,
                "embedder": self.retrieval.embedder,
                "hits": len(self.retrieval.hits),
                "access": None
                if self.retrieval.access is None
                else self.retrieval.access.to_dict(),
            },
        }


def assess_retrieval(
    question: str,
    retrieval: Retrieval,
    policy: Policy,
    resolve: SourceResolver,
    *,
    as_of: date,
    category: str | None = None,
    jurisdiction: str | None = None,
    support: SupportModel | None = None,
    answerability: LLMAnswerability | None = None,
) -> AskResult:
    """Score the retrieved chunks, compute the set signals and route the question.

    With a ``support`` model, admitted items corroborate each other only when the model
    finds that they back each other's statements, and disagreeing items are listed as
    conflicts; without one, corroboration is lexical. With ``answerability`` (a chat
    model), the set's model judgment is its reading (:func:`llm_readings`), not the
    relevance model's (:func:`model_judgment`); where the endpoint fails or answers
    neither yes nor no, the relevance model's stands, and a warning is logged.
    """
    rules = policy.routing
    rules.bands_for(category)  # an unknown category fails before any scoring
    if support is not None:  # corroboration and conflicts share verdicts
        support = CachedSupport(support)
    scored = score_candidates(
        question,
        [hit.to_candidate() for hit in retrieval.hits],
        policy,
        resolve,
        as_of=as_of,
        jurisdiction=jurisdiction,
        similarity=lexical_similarity if support is None else support_similarity(support),
    )
    rows = {hit.chunk.id: i for i, hit in enumerate(retrieval.hits)}
    admitted = scored.admitted
    judgment = model_judgment(retrieval, [rows[e.id] for e in admitted])
    judged_by, readings = None, {}
    if answerability is not None:
        try:
            readings = llm_readings(question, retrieval, admitted, answerability)
            judgment = max(readings.values(), default=0.0)
            judged_by = answerability.name
        except EndpointError as exc:  # the relevance model's judgment stands
            log.warning("the LLM did not judge the evidence, so relevance does: %s", exc)
    signals = compute_set_signals(
        question,
        current(scored.evidence),  # a superseded item counts as not retrieved
        retrieval.vectors[[rows[e.id] for e in admitted]],
        settings=policy.signals,
        judgment=judgment,
    )
    document = {e.id: document_key(e.basis.source_id, e.candidate.title) for e in admitted}
    conflicts = [  # one document does not conflict with itself (assay.judge.strength)
        c
        for c in find_conflicts([(e.id, e.candidate.text) for e in admitted], support)
        if document[c.first] is None or document[c.first] != document[c.second]
    ]
    read = judged_by is not None
    decision = route_question(question, signals, len(admitted), rules, category, read=read)
    return AskResult(
        scored, retrieval, signals, decision, category, tuple(conflicts),
        judged_by=judged_by, readings=readings,
    )  # fmt: skip


def model_judgment(retrieval: Retrieval, admitted_rows: list[int]) -> float | None:
    """R4: the relevance model's belief that the admitted evidence answers the question.

    The best relevance among admitted hits (one answering passage suffices); 0.0 when
    nothing was admitted; ``None`` when no relevance model ran.
    """
    scores = [h.relevance for h in retrieval.hits]
    if any(s is None for s in scores):
        return None
    return max((float(scores[i] or 0.0) for i in admitted_rows), default=0.0)


#: admitted passages the chat model reads for the set's judgment: the relevance model
#: ranks the answering passage among its best three for most answerable questions, and
#: each further one costs a request
JUDGED_PASSAGES = 3


def llm_readings(
    question: str,
    retrieval: Retrieval,
    admitted: list[Evidence],
    answerability: LLMAnswerability,
) -> dict[str, float]:
    """R4 read by a chat model: its belief that each of the :data:`JUDGED_PASSAGES`
    admitted passages the relevance model rates best (under their titles) states the
    answer, by evidence id; the set's judgment is the highest (0.0 when nothing was
    admitted), and the answerer quotes from the passage read as answering.

    The relevance models rate a passage that answers in other words than the question's
    low, and the judgment caps the set confidence, so a paraphrased question was refused
    before any draft; the chat model reads the passage (docs/benchmarks.md).
    """
    relevance = {h.chunk.id: h.relevance for h in retrieval.hits}

    def rank(e: Evidence) -> float:
        score = relevance.get(e.id)
        return e.confidence if score is None else score

    best = sorted(admitted, key=rank, reverse=True)[:JUDGED_PASSAGES]
    return {
        e.id: answerability.belief(question, e.candidate.text, e.candidate.title or "")
        for e in best
    }


def ask_record(
    result: AskResult,
    *,
    models: Mapping[str, str | None],
    prompts: Mapping[str, str | None] | None = None,
) -> AskRecord:
    """The audit record of a question: the scoring record plus retrieval, signals and
    route (an answered question adds its answer: :meth:`AskRecord.answered`)."""
    fields = score_fields(result.scored, models=models, prompts=prompts)
    return build(
        AskRecord,
        fields
        | {
            "retrieval": {
                "mode": result.retrieval.mode,
                "embedder": result.retrieval.embedder,
                "similarity_mapping": result.retrieval.similarity_from,
                **(
                    {}
                    if result.retrieval.access is None
                    else {"access": result.retrieval.access.to_dict()}
                ),
                "hits": [
                    {
                        "id": h.chunk.id,
                        "cosine": round(h.cosine, 6),
                        "relevance": None if h.relevance is None else round(h.relevance, 6),
                        "fused": round(h.fused, 6),
                        "dense_rank": h.dense_rank,
                        "lexical_rank": h.lexical_rank,
                    }
                    | (
                        {"read": round(result.readings[h.chunk.id], 6)}
                        if h.chunk.id in result.readings
                        else {}
                    )
                    for h in result.retrieval.hits
                ],
            },
            "category": result.category,
            "calibration": dict(result.calibration),
            "conflicts": [c.to_dict() for c in result.conflicts],
            "signals": result.signals.as_dict(),
            "route": result.route.as_dict(),
        },
    )
