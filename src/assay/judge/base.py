"""What every judge returns, and the one interface judges share.

A judge reads a query, an answer and the contexts the answer may rest on, and returns a
:class:`Judgment`: the J1 :class:`~assay.judge.schema.Assessment` plus what it is made of
(a grade per claim with the evidence behind it) and who made it (judge name and prompt
version, for the audit row, J8). Judges plug in by name; the offline default is
:class:`~assay.judge.model_judge.ModelJudge`, an LLM judge with fallback sits in
:mod:`assay.judge.llm_judge`.

An empty answer or a refusal is never graded: it scores 0.0 with ``suppress`` (J4),
whatever the judge (:func:`empty_or_refusal`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from assay.actions import ActionThresholds
from assay.answer.citations import CITATION
from assay.judge.schema import Assessment, Context, EvidenceSufficiency

__all__ = [
    "GRADES",
    "ClaimGrade",
    "Grade",
    "Judge",
    "Judgment",
    "empty_or_refusal",
    "is_refusal",
]

Grade = Literal["supported", "partially supported", "contradicted", "unsupported"]
GRADES: tuple[Grade, ...] = ("supported", "partially supported", "contradicted", "unsupported")

_REFUSAL = re.compile(
    r"^\W*(?:(?:sorry|unfortunately),?\s+)?(?:"
    r"i\s+(?:do\s+not|don't|cannot|can't|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:have\s+(?:enough|sufficient|the|any)\b|find\b|answer\b|provide\s+an?\s+answer|"
    r"determine\b|say\b|tell\b|help\b)"
    r"|(?:there\s+is|i\s+have|i\s+found)\s+no\s+(?:relevant\s+|sufficient\s+|enough\s+)?"
    r"(?:information|evidence|answer)"
    r"|the\s+(?:contexts?|knowledge\s+base|documents?|sources?|passages?)\s+"
    r"(?:does|do)\s+not\s+(?:contain|say|mention|provide|include|answer)\b)",
    re.IGNORECASE,
)


def is_refusal(answer: str) -> bool:
    """Whether ``answer`` declines to answer ("I don't have enough information ...").

    Only an answer that opens by declining and cites nothing: "Unfortunately, a full
    charge takes 3 hours [Source: sds]" answers, and so does "No."
    """
    return bool(_REFUSAL.match(answer)) and not CITATION.search(answer)


@dataclass(frozen=True, slots=True)
class ClaimGrade:
    """One claim of the answer, graded against its best evidence (J2)."""

    claim: str  #: exact excerpt of the answer
    grade: Grade
    evidence_id: str | None = None  #: the context that best supports (or contradicts) it
    quote: str | None = None  #: the sentence of that context, verbatim
    support: float = 0.0  #: P(supported) from the support model
    contradiction: float | None = None  #: P(contradicted) where the model tells
    #: P(supported) discounted for what the evidence lacks (figures, names, words)
    strength: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the audit row."""
        return {
            "claim": self.claim,
            "grade": self.grade,
            "evidence_id": self.evidence_id,
            "quote": self.quote,
            "support": round(self.support, 6),
            "contradiction": None if self.contradiction is None else round(self.contradiction, 6),
            "strength": round(self.strength, 6),
        }


@dataclass(frozen=True, slots=True)
class Judgment:
    """A judge's verdict on one answer: the J1 object and how it was reached."""

    assessment: Assessment
    judge: str  #: name and version of the judge that produced the assessment
    claims: tuple[ClaimGrade, ...] = ()
    prompt_version: str | None = None  #: for LLM judges (also when they fell back)
    attempts: int = 1  #: LLM calls made (1 + retries); 0 when no model was asked
    fallback_reason: str | None = None  #: why an LLM judge fell back to the model judge
    notes: tuple[str, ...] = field(default=())
    #: the stored map that calibrated the score, with the raw score (J7); None: raw
    calibration: Mapping[str, Any] | None = None
    no_answer: bool = False  #: the J4 verdict on an empty answer or a refusal: never mapped
    #: the answer-correctness rating that set the score: model, features, probability,
    #: the judge's support and the score (:mod:`assay.answer.correctness`); None: not rated
    correctness: Mapping[str, Any] | None = None

    @property
    def verdict(self) -> Literal["supported", "partial", "unsupported"]:
        """The answer as a whole (G3): every claim supported, some, or none usable.

        From the claims where the judge graded them; from the score otherwise (an LLM
        judge grades the answer as a whole; an empty answer has no claims).
        """
        grades = [c.grade for c in self.claims]
        score = self.assessment.confidence_score
        if not grades:
            if score >= 0.8 and not self.assessment.unsupported_claims:
                return "supported"
            return "unsupported" if score < 0.5 else "partial"
        if "contradicted" in grades or all(g == "unsupported" for g in grades):
            return "unsupported" if score < 0.5 else "partial"
        if all(g == "supported" for g in grades):
            return "supported"
        return "partial"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the audit row (J8)."""
        return {
            "judge": self.judge,
            "prompt_version": self.prompt_version,
            "attempts": self.attempts,
            "fallback_reason": self.fallback_reason,
            "notes": list(self.notes),
            "calibration": None if self.calibration is None else dict(self.calibration),
            "correctness": None if self.correctness is None else dict(self.correctness),
            "verdict": self.verdict,
            "claims": [c.to_dict() for c in self.claims],
            "assessment": self.assessment.to_dict(),
        }


@runtime_checkable
class Judge(Protocol):
    """Rates an answer against its contexts."""

    name: str  #: judge id with version, recorded in audit rows

    def judge(
        self,
        query: str,
        answer: str,
        contexts: Sequence[Context],
        thresholds: ActionThresholds,
    ) -> Judgment:
        """The judgment of ``answer``; ``contexts`` are validated and deduplicated."""
        ...


def empty_or_refusal(answer: str, judge: str) -> Judgment | None:
    """The J4 judgment when ``answer`` is empty or a refusal; ``None`` otherwise."""
    if answer.strip() and not is_refusal(answer):
        return None
    why = "the answer is empty" if not answer.strip() else "the answer is a refusal"
    return Judgment(
        Assessment(
            confidence_score=0.0,
            score_rationale=f"{why}, so there is nothing to publish",
            evidence_sufficiency=EvidenceSufficiency(
                is_sufficient=False, missing_information=["an answer to the query"]
            ),
            source_conflicts=[],
            unsupported_claims=[],
            speculation_flags=[],
            recommended_action="suppress",
        ),
        judge=judge,
        attempts=0,
        no_answer=True,
    )
