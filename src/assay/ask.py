"""The question flow: retrieved chunks -> scored evidence -> set signals -> a routing decision.

:func:`assess_retrieval` is pure, like :func:`assay.pipeline.score_candidates`, which it
builds on: retrieval has already happened and ``as_of`` is given, so the same inputs
always give the same decision. :meth:`assay.engine.Assay.ask` runs retrieval, calls it,
and writes the audit event. Answer text comes from a later layer; this result already
says which evidence an answer may use and whether it should be given at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from assay.pipeline import ScoreResult, SourceResolver, audit_payload, score_candidates
from assay.policy import Policy
from assay.retrieval import SIMILARITY_MAPPING, Retrieval
from assay.routing import Route, route
from assay.scoring.signals import SetSignals, compute_set_signals


@dataclass(frozen=True, slots=True)
class AskResult:
    """Everything one question decided: the scored evidence, the set signals, the route."""

    scored: ScoreResult
    retrieval: Retrieval
    signals: SetSignals
    route: Route
    category: str | None = None

    @property
    def event_id(self) -> str | None:
        """The audit event of this question."""
        return self.scored.event_id

    def as_dict(self) -> dict[str, Any]:
        """The ``assay ask --json`` output."""
        return self.scored.as_dict() | {
            "decision": self.route.decision.value,
            "reasons": list(self.route.reasons),
            "confidence": self.signals.composite,
            "signals": self.signals.as_dict(),
            "route": {"bands": self.route.bands.as_dict(), "category": self.route.category},
            "retrieval": {
                "mode": self.retrieval.mode,
                "embedder": self.retrieval.embedder,
                "hits": len(self.retrieval.hits),
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
) -> AskResult:
    """Score the retrieved chunks, compute the set signals and route the question."""
    rules = policy.routing
    rules.bands_for(category)  # an unknown category fails before any scoring
    scored = score_candidates(
        question,
        [hit.to_candidate() for hit in retrieval.hits],
        policy,
        resolve,
        as_of=as_of,
        jurisdiction=jurisdiction,
    )
    rows = {hit.chunk.id: i for i, hit in enumerate(retrieval.hits)}
    admitted = scored.admitted
    signals = compute_set_signals(
        question,
        scored.evidence,
        retrieval.vectors[[rows[e.id] for e in admitted]],
        settings=policy.signals,
    )
    return AskResult(
        scored, retrieval, signals, route(signals, len(admitted), rules, category), category
    )


def ask_payload(result: AskResult, *, models: Mapping[str, str]) -> dict[str, Any]:
    """The audit row of a question: the scoring row plus retrieval, signals and route."""
    return audit_payload(result.scored, models=models) | {
        "retrieval": {
            "mode": result.retrieval.mode,
            "embedder": result.retrieval.embedder,
            "similarity_mapping": SIMILARITY_MAPPING,
            "hits": [
                {
                    "id": h.chunk.id,
                    "cosine": round(h.cosine, 6),
                    "fused": round(h.fused, 6),
                    "dense_rank": h.dense_rank,
                    "lexical_rank": h.lexical_rank,
                }
                for h in result.retrieval.hits
            ],
        },
        "category": result.category,
        "signals": result.signals.as_dict(),
        "route": result.route.as_dict(),
    }
