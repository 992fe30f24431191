"""The gate (E5, E6, E13): decide, from the evidence and the policy alone, what may
enter the context.

Each item first meets the policy's checks, in a fixed order; the first that fails is
the recorded reason:

1. ``source_overruled`` -- the registry marks the source overruled and the policy
   excludes overruled sources (legal authority that is no longer good law);
2. ``source_retired`` -- the source was retired in the registry;
3. ``dated_after_as_of`` -- the item is dated after the day the decision is made for
   (replaying an old decision must not use what was written later);
4. ``below_similarity_floor`` -- the passage is not about the query, however
   reliable or fresh its source (seed 000, test 8.6);
5. ``below_threshold`` -- the composite is under the policy's minimum.

Then, over the whole request, supersession:

6. ``source_superseded`` -- an item that passed 1-5 is excluded when a source that
   supersedes its source (directly or through others: ``SourceBasis.superseded_by``)
   has an item that also passed 1-5 in the same request. Its detail names those
   sources ("superseded by travel-policy-2026"), nearest first. The newer source
   counts only where its own item passed the policy's checks: a newer passage that is
   off the question, retired, dated after ``as_of`` or too weak does not speak to the
   question, and then the older item is still the best evidence there is. It stays
   admitted, its basis still naming the sources that supersede it, so the output can
   say so. Supersession is decided on the verdicts of 1-5 alone, never on other
   supersession verdicts, so it does not depend on the items' order: of a chain
   2024 <- 2025 <- 2026 all on the question, only 2026 remains.

Excluded items keep their scores; callers return and log them, never pass them on.
The audit row stores each item's basis (``superseded_by`` included), so
:mod:`assay.audit.replay` recomputes every verdict with :func:`verdicts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from assay.policy import Policy
from assay.scoring.evidence import composite_score
from assay.types import Evidence, ExclusionReason

Verdict = tuple[ExclusionReason, str] | None
"""An exclusion reason with its human-readable detail, or ``None``: admitted."""


def exclusion(evidence: Evidence, policy: Policy) -> Verdict:
    """The reason and detail if the policy's checks (1-5) exclude ``evidence``, else None."""
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
            f"confidence {evidence.confidence:.3f} < threshold {policy.threshold:.3f}"
            + _stale_hint(evidence, policy),
        )
    return None


#: the source score from which a kept-out passage is worth dating: an internal wiki (0.7)
#: and up, not a customer's message (0.4) or an unverified post (0.3)
IN_FORCE = 0.5


def _a_date_would_admit(evidence: Evidence, policy: Policy) -> bool:
    """Whether age, or having no date at all, weighs most against an item (freshness
    under one half and under its similarity), its source is one whose documents stay in
    force (a source score of :data:`IN_FORCE` or more: not a forum post or a customer's
    message), no newer source supersedes it, and with a fresh date its composite would
    clear the threshold: a forum post that is weak anyway is not worth a date."""
    scores, basis = evidence.scores, evidence.basis
    if scores.freshness >= min(0.5, scores.similarity) or scores.source < IN_FORCE:
        return False
    fresh = replace(scores, freshness=1.0)
    return not basis.superseded_by and composite_score(fresh, policy.weights) >= policy.threshold


def kept_out_as_stale(evidence: Evidence, policy: Policy) -> bool:
    """Whether the gate kept ``evidence`` out below the threshold where a verified date
    would have let it through."""
    return evidence.reason is ExclusionReason.BELOW_THRESHOLD and _a_date_would_admit(
        evidence, policy
    )


def _stale_hint(evidence: Evidence, policy: Policy) -> str:
    """Where age is what kept an item out, what fixes it: a document still in force
    needs a recent ``verified`` date, not a lower threshold."""
    if not _a_date_would_admit(evidence, policy):
        return ""
    scores, age = evidence.scores, evidence.basis.age_days
    if age is None:  # a file ingested without any date earns the policy's undated credit
        return (
            f"; it has no date, so it earns freshness {scores.freshness:.2f} (the policy's "
            "undated credit): if it is current, give it a date (front matter `published:` "
            "or `verified:`, or ingest --published, --verified or --file-dates)"
        )
    return (
        f"; freshness {scores.freshness:.2f} after {age} days (decay_rate "
        f"{policy.decay_rate_for(evidence.basis.source_kind):g} a day): if it is still in "
        "force, give it a verified date (front matter `verified:`, or ingest --verified), "
        "or lower the policy's decay_rate for this source kind"
    )


def supersession(evidence: Evidence, speaking: set[str]) -> Verdict:
    """Check 6: ``source_superseded`` when a source that supersedes the item's source is
    among ``speaking`` (the sources with an item that passed checks 1-5), else None."""
    newer = [s for s in evidence.basis.superseded_by if s in speaking]
    if not newer:
        return None
    return ExclusionReason.SOURCE_SUPERSEDED, f"superseded by {', '.join(newer)}"


def verdicts(evidence: Sequence[Evidence], policy: Policy) -> list[Verdict]:
    """The gate's verdict on each item of one request, in order (checks 1-6)."""
    first = [exclusion(item, policy) for item in evidence]
    speaking = {
        item.basis.source_id
        for item, verdict in zip(evidence, first, strict=True)
        if verdict is None and item.basis.source_id is not None
    }
    return [
        supersession(item, speaking) if verdict is None else verdict
        for item, verdict in zip(evidence, first, strict=True)
    ]


def gate(evidence: Iterable[Evidence], policy: Policy) -> list[Evidence]:
    """Give each scored item the gate's verdict under ``policy``, keeping the order."""
    items = list(evidence)
    out = []
    for item, verdict in zip(items, verdicts(items, policy), strict=True):
        if verdict is None:
            out.append(replace(item, admitted=True, reason=None, detail=None))
        else:
            reason, detail = verdict
            out.append(replace(item, admitted=False, reason=reason, detail=detail))
    return out


def current(evidence: Iterable[Evidence]) -> list[Evidence]:
    """The items a set signal reads: all but those excluded as superseded.

    An item left out because a newer source speaks to the question is not weak
    evidence; counted as excluded it would lower the share of the best items admitted
    (and, beside its successor's item, the margin of the best one) as if the set were
    doubtful. It counts as not retrieved instead.
    """
    return [e for e in evidence if e.reason is not ExclusionReason.SOURCE_SUPERSEDED]
