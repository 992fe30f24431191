"""The judge's verdict in words for the person who asked.

The J1 ``score_rationale`` is written for the audit row and for whoever tunes a policy:
"1 claim: 1 supported; 2 source conflict(s), 2 settled by evidence strength; 0.65
probability that the answer is right (assay-correctness@5.0.0)". The caveat appended
to a hedged answer and the note that stands in for a withheld one are read by the person
who asked, so they say what lowered the answer's confidence in plain words, built from
the structured parts of the judgment: the chance that the answer is right, the claims
the evidence contradicts or does not support, the sources that disagree, the
speculative wording. Whatever lowered the score most comes first. An answer that rests
on a clearly less reliable source alone, while a more reliable one was found too, says so
(:func:`standing`): a forum post's "the sauna is included with Silver too" read like the
price list's word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from assay.judge.base import Judgment
from assay.judge.schema import Context
from assay.judge.strength import more_reliable

__all__ = ["caveat", "passed_by", "standing", "withheld"]


def caveat(judgment: Judgment) -> str:
    """The note appended to an answer the judge published with a caveat."""
    score = judgment.assessment.confidence_score
    return f"Caveat (answer confidence {score:.2f}): {'; '.join(_reasons(judgment))}"


def withheld(judgment: Judgment, *, queued: bool, weaker: str | None = None) -> str:
    """The text that stands in for a drafted answer the judge held back; ``weaker``, the
    :func:`standing` of an answer held back for resting on a forum post or a chat message
    alone while a source in force was found too, says so first."""
    score = judgment.assessment.confidence_score
    held = "it is queued for human review" if queued else "it was not published"
    if weaker is not None:
        return f"The drafted answer was withheld: {weaker[0].lower()}{weaker[1:]}; {held}."
    return (
        f"The drafted answer was withheld (answer confidence {score:.2f}, too low for "
        f"this policy): {'; '.join(_reasons(judgment))}; {held}."
    )


def standing(contexts: Sequence[Context], cited: Sequence[str]) -> str | None:
    """The note for an answer whose cited sources are all clearly less reliable
    (:func:`~assay.judge.strength.more_reliable`) than another admitted one; ``None``
    otherwise."""
    used = [c for c in contexts if c.id in cited]
    stronger = [
        c for c in contexts if c.id not in cited and used and all(more_reliable(c, u) for u in used)
    ]
    if not stronger:
        return None
    return (
        f"It rests on {_sources(used)} alone, not on {_sources(stronger)}, which was found "
        "too and is more reliable"
    )


def passed_by(
    contexts: Sequence[Context], cited: Sequence[str], passed: Sequence[Context]
) -> str | None:
    """The note for an answer that rests on a forum post or a message alone while more
    reliable passages kept out for their similarity name the question's subject as fully
    (``passed``: :func:`~assay.judge.strength.passed_over`); ``None`` without them."""
    used = [c for c in contexts if c.id in cited]
    if not used or not passed:
        return None
    return (
        f"It rests on {_sources(used)} alone, while {_sources(passed)} also names what was "
        "asked but did not read as answering it"
    )


def _sources(contexts: Sequence[Context]) -> str:
    named = {
        f"{c.source_id or c.id}" + (f" ({c.source_kind})" if c.source_kind else "")
        for c in contexts
    }
    return ", ".join(sorted(named))


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
