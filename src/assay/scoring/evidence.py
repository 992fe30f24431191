"""Per-item confidence (E1, E2, E4, E7, E9): pure functions, no I/O, no wall clock.

For an item with similarity ``S_sim``, source reliability ``r`` and age ``a`` days::

    S_src   = clamp(r + adjustment(kind) - jurisdiction_penalty, 0, 1)
    S_fresh = exp(-rate(kind) * a)                     (undated: policy.undated_freshness)
    C       = w_sim * S_sim + w_src * S_src + w_fresh * S_fresh

Each sub-score is rounded to 6 decimals first and ``C`` is computed from the rounded
values and rounded again, so the audit row alone reproduces ``C`` exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from assay.errors import InvalidInputError
from assay.policy import Policy
from assay.types import (
    Candidate,
    Evidence,
    SourceBasis,
    SubScores,
    Weights,
    round_score,
)


@dataclass(frozen=True, slots=True)
class SourceFacts:
    """What the registry knows about an item's source, resolved before scoring
    (``superseded_by``: the sources that supersede it, nearest first)."""

    kind: str
    reliability: float
    source_id: str | None = None
    owner: str | None = None
    jurisdiction: str | None = None
    overruled: bool = False
    retired: bool = False
    review_overdue: bool = False
    superseded_by: tuple[str, ...] = ()


def freshness_score(age_days: float, decay_rate: float) -> float:
    """Exponential freshness ``exp(-decay_rate * age_days)`` in (0, 1].

    With the default rate 0.005 a day the score halves every ln 2 / 0.005 ~ 139 days.
    """
    if age_days < 0 or decay_rate < 0:
        raise InvalidInputError(
            "age_days/decay_rate", (age_days, decay_rate), "both must be non-negative"
        )
    return math.exp(-decay_rate * age_days)


def source_score(reliability: float, adjustment: float = 0.0, penalty: float = 0.0) -> float:
    """Source sub-score: registry reliability plus the policy's kind boost or penalty,
    minus a jurisdiction penalty, clamped to [0, 1] (E3, E9)."""
    return min(1.0, max(0.0, reliability + adjustment - penalty))


def composite_score(scores: SubScores, weights: Weights) -> float:
    """The weighted composite ``C`` (E2), rounded to the stored precision."""
    return round_score(
        weights.similarity * scores.similarity
        + weights.source * scores.source
        + weights.freshness * scores.freshness
    )


def age_in_days(effective: date, as_of: date) -> int:
    """Whole days from ``effective`` to ``as_of``; negative for a date after ``as_of``
    (such an item is scored as brand new and then excluded by the gate)."""
    return (as_of - effective).days


def source_basis(
    candidate: Candidate, facts: SourceFacts, policy: Policy, as_of: date, jurisdiction: str | None
) -> SourceBasis:
    """Collect every input of the source and freshness sub-scores for one item."""
    mismatch = (
        jurisdiction is not None
        and facts.jurisdiction is not None
        and facts.jurisdiction.casefold() != jurisdiction.casefold()
    )
    effective = candidate.effective_date
    return SourceBasis(
        source_id=facts.source_id,
        source_kind=facts.kind,
        owner=facts.owner,
        reliability=facts.reliability,
        kind_adjustment=policy.adjustment_for(facts.kind),
        jurisdiction_penalty=policy.jurisdiction_penalty if mismatch else 0.0,
        effective_date=effective,
        age_days=age_in_days(effective, as_of) if effective else None,
        decay_rate=policy.decay_rate_for(facts.kind),
        overruled=facts.overruled,
        retired=facts.retired,
        review_overdue=facts.review_overdue,
        superseded_by=facts.superseded_by,
    )


def sub_scores(similarity: float, basis: SourceBasis, undated_freshness: float) -> SubScores:
    """The three rounded sub-scores from the similarity and the recorded basis."""
    fresh = (
        undated_freshness
        if basis.age_days is None
        else freshness_score(max(0, basis.age_days), basis.decay_rate)
    )
    return SubScores(
        similarity=round_score(similarity),
        source=round_score(
            source_score(basis.reliability, basis.kind_adjustment, basis.jurisdiction_penalty)
        ),
        freshness=round_score(fresh),
    )


def score_candidate(
    candidate: Candidate,
    facts: SourceFacts,
    policy: Policy,
    *,
    as_of: date,
    jurisdiction: str | None = None,
) -> Evidence:
    """Score one candidate under ``policy`` as of ``as_of`` (not yet gated)."""
    basis = source_basis(candidate, facts, policy, as_of, jurisdiction)
    scores = sub_scores(candidate.similarity, basis, policy.undated_freshness)
    confidence = composite_score(scores, policy.weights)
    return Evidence(
        candidate=candidate,
        scores=scores,
        weights=policy.weights,
        confidence=confidence,
        label=policy.labels.label(confidence),
        basis=basis,
        policy_name=policy.name,
        policy_version=policy.version,
    )
