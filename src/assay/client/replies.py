"""The JSON replies of the main routes, as typed dictionaries (what a type checker sees;
at run time they are the plain dicts the service sent)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["AskReply", "Assessment", "Confidence", "EvidenceItem", "ScoreReply"]


class Confidence(TypedDict):
    """The set confidence of an answer and its label."""

    score: float
    label: str
    raw: float
    calibrated: bool


class Assessment(TypedDict):
    """The J1 assessment: exactly these seven keys."""

    confidence_score: float
    score_rationale: str
    evidence_sufficiency: dict[str, Any]
    source_conflicts: list[dict[str, Any]]
    unsupported_claims: list[str]
    speculation_flags: list[str]
    recommended_action: str


class EvidenceItem(TypedDict, total=False):
    """One scored item (``reason`` and ``detail`` only when it was excluded)."""

    id: str
    confidence: float
    label: str
    scores: dict[str, float]
    weights: dict[str, float]
    policy: dict[str, str]
    admitted: bool
    source_id: str | None
    source_kind: str
    title: str | None
    uri: str | None
    text: str
    basis: dict[str, Any]
    reason: str | None
    detail: str | None


class ScoreReply(TypedDict):
    """``POST /v1/score``: the ``assay score --json`` object."""

    query: str
    as_of: str
    policy: dict[str, Any]
    admitted: list[EvidenceItem]
    excluded: list[EvidenceItem]
    findings: list[dict[str, Any]]
    event_id: str | None


class AskReply(ScoreReply):
    """``POST /v1/ask``: the ``assay ask --json`` object (the scoring fields, then these)."""

    answer: str
    status: str
    decision: str
    confidence: Confidence
    sources: list[dict[str, Any]]
    fallback_activated: bool
    fallback_type: str | None
    fallbacks: list[str]
    assessment: Assessment
    citations: dict[str, Any] | None
    notes: list[str]
    problems: list[str]
    review_id: int | None
    broadening: dict[str, Any] | None
    judge: dict[str, Any] | None
    answerer: dict[str, Any] | None
    reasons: list[str]
    calibration: dict[str, Any]
    signals: dict[str, Any]
    route: dict[str, Any]
    conflicts: list[dict[str, Any]]
    retrieval: dict[str, Any]
