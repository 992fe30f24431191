"""The judge's verdict in words for the person who asked.

The J1 ``score_rationale`` is written for the audit row and for whoever tunes a policy:
"1 claim: 1 supported; 2 source conflict(s), 2 settled by evidence strength; 0.65
probability that the answer is right (assay-correctness@5.0.0)". The caveat appended
to a hedged answer and the note that stands in for a withheld one are read by the person
who asked, so they say what lowered the answer's confidence in plain words, built from
the structured parts of the judgment: the chance that the answer is right, the claims
the evidence contradicts or does not support, the sources that disagree, the
speculative wording. Whatever lowered the score most comes first.
"""

from __future__ import annotations

from collections import Counter

from assay.judge.base import Judgment

__all__ = ["caveat", "withheld"]


def caveat(judgment: Judgment) -> str:
    """The note appended to an answer the judge published with a caveat."""
    score = judgment.assessment.confidence_score
    return f"Caveat (answer confidence {score:.2f}): {'; '.join(_reasons(judgment))}"


def withheld(judgment: Judgment, *, queued: bool) -> str:
    """The text that stands in for a drafted answer the judge held back."""
    score = judgment.assessment.confidence_score
    held = "it is queued for human review" if queued else "it was not published"
    return (
        f"The drafted answer was withheld (answer confidence {score:.2f}, too low for "
        f"this policy): {'; '.join(_reasons(judgment))}; {held}."
    )


def _reasons(judgment: Judgment) -> list[str]:
    """What lowered the confidence. The chance that the answer is right is told when it
    set the score (it is below the evidence's support) or when nothing else is to tell;
    a score calibrated on labelled answers (J7) is that chance itself."""
    evidence = _evidence_reasons(judgment)
    rated = judgment.correctness
    if judgment.calibration is not None:
        chance = judgment.assessment.confidence_score
    elif rated is not None and (rated["probability"] <= rated["support"] or not evidence):
        chance = float(rated["probability"])
    else:
        return evidence or ["the evidence supports it only loosely"]
    return [f"an estimated {chance:.0%} chance that it is right", *evidence]


def _evidence_reasons(judgment: Judgment) -> list[str]:
    """The evidence's own limits: claims it contradicts or lacks, disagreeing sources,
    speculation (what the evidence is missing has a note of its own)."""
    assessment = judgment.assessment
    reasons = []
    if judgment.claims:
        grades = Counter(c.grade for c in judgment.claims)
        total = len(judgment.claims)
        if grades["contradicted"]:
            reasons.append(f"the evidence contradicts {_of(grades['contradicted'], total)}")
        if grades["unsupported"]:
            reasons.append(f"the evidence does not support {_of(grades['unsupported'], total)}")
    elif assessment.unsupported_claims:  # a judge that grades the answer as a whole
        count = len(assessment.unsupported_claims)
        reasons.append(f"the evidence does not support {count} of its statements")
    if assessment.source_conflicts:
        count = len(assessment.source_conflicts)
        plural = "s" if count != 1 else ""
        reasons.append(f"sources disagree on what it states ({count} conflict{plural})")
    if assessment.speculation_flags:
        reasons.append("some of its evidence is worded as speculation")
    return reasons


def _of(part: int, total: int) -> str:
    """How many of the answer's claims: "its claim", "both its claims", "2 of its 3"."""
    if total == 1:
        return "its claim"
    if part == total:
        return "both its claims" if total == 2 else f"all {total} of its claims"
    return f"{part} of its {total} claims"
