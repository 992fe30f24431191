"""The gate (E5, E6, E13): decide, from the evidence and the policy alone, what may
enter the context.

Checks run in a fixed order and the first that fails is the recorded reason:

1. ``source_overruled`` -- the registry marks the source overruled and the policy
   excludes overruled sources (legal authority that is no longer good law);
2. ``source_retired`` -- the source was retired in the registry;
3. ``dated_after_as_of`` -- the item is dated after the day the decision is made for
   (replaying an old decision must not use what was written later);
4. ``below_similarity_floor`` -- the passage is not about the query, however
   reliable or fresh its source (seed 000, test 8.6);
5. ``below_threshold`` -- the composite is under the policy's minimum.

Excluded items keep their scores; callers return and log them, never pass them on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from assay.policy import Policy
from assay.types import Evidence, ExclusionReason


def exclusion(evidence: Evidence, policy: Policy) -> tuple[ExclusionReason, str] | None:
    """The reason and a human-readable detail if ``evidence`` must be excluded, else None."""
    basis = evidence.basis
    if basis.overruled and policy.exclude_overruled:
        return ExclusionReason.SOURCE_OVERRULED, f"source {basis.source_id} is marked overruled"
    if basis.retired:
        return ExclusionReason.SOURCE_RETIRED, f"source {basis.source_id} is retired"
    if basis.age_days is not None and basis.age_days < 0 and basis.effective_date:
        return (
            ExclusionReason.DATED_AFTER_AS_OF,
            f"dated {basis.effective_date.isoformat()}, {-basis.age_days} days after as_of",
        )
    if evidence.scores.similarity < policy.similarity_floor:
        return (
            ExclusionReason.BELOW_SIMILARITY_FLOOR,
            f"similarity {evidence.scores.similarity:.3f} < floor {policy.similarity_floor:.3f}",
        )
    if evidence.confidence < policy.threshold:
        return (
            ExclusionReason.BELOW_THRESHOLD,
            f"confidence {evidence.confidence:.3f} < threshold {policy.threshold:.3f}",
        )
    return None


def gate(evidence: Iterable[Evidence], policy: Policy) -> list[Evidence]:
    """Give each scored item the gate's verdict under ``policy``, keeping the order."""
    out = []
    for item in evidence:
        verdict = exclusion(item, policy)
        if verdict is None:
            out.append(replace(item, admitted=True, reason=None, detail=None))
        else:
            reason, detail = verdict
            out.append(replace(item, admitted=False, reason=reason, detail=detail))
    return out
