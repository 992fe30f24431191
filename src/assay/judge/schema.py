"""The J1 assessment: one strict JSON object that says how well an answer is grounded.

:class:`Assessment` is the contract (J1) and the schema an LLM judge's reply must pass
(J5): exactly these seven keys, no others, the score in [0, 1], ``nature`` and
``recommended_action`` from closed lists, and ``missing_information`` empty whenever
the evidence is sufficient. :func:`grounding_problems` adds the checks a schema cannot
express: quotes are exact excerpts and source identifiers are never invented.
The actions themselves, and the thresholds that pick one, are :mod:`assay.actions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.actions import ACTIONS, Action
from assay.text import squash_spaces

__all__ = [
    "ACTIONS",
    "NATURES",
    "Action",
    "Assessment",
    "Context",
    "EvidenceSufficiency",
    "Nature",
    "SourceConflict",
    "grounding_problems",
    "is_excerpt",
]

Nature = Literal["direct contradiction", "temporal inconsistency", "definitional conflict"]
NATURES: tuple[Nature, ...] = (
    "direct contradiction",
    "temporal inconsistency",
    "definitional conflict",
)
_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


class EvidenceSufficiency(BaseModel):
    """Whether the contexts hold enough to answer the query fully, and what is missing."""

    model_config = _STRICT

    is_sufficient: bool
    missing_information: list[str]

    @model_validator(mode="after")
    def _empty_when_sufficient(self) -> EvidenceSufficiency:
        if self.is_sufficient and self.missing_information:
            raise ValueError("missing_information must be empty when is_sufficient is true")
        return self


class SourceConflict(BaseModel):
    """Two contexts that disagree about one statement."""

    model_config = _STRICT

    claim: str = Field(min_length=1)
    source_a: str = Field(min_length=1)
    source_b: str = Field(min_length=1)
    nature: Nature


class Assessment(BaseModel):
    """The J1 object, exactly: seven keys, validated strictly."""

    model_config = _STRICT

    confidence_score: float = Field(ge=0.0, le=1.0)
    score_rationale: str
    evidence_sufficiency: EvidenceSufficiency
    source_conflicts: list[SourceConflict]
    unsupported_claims: list[str]
    speculation_flags: list[str]
    recommended_action: Action

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, keys in the order of the contract."""
        return self.model_dump(mode="json")


@dataclass(frozen=True, slots=True)
class Context:
    """One retrieved context the answer may rest on: its identifier and its text.

    ``confidence`` is the evidence confidence assay gave it, when known: a judge may
    use it to tell a conflict the evidence resolves (an official source against a forum
    post) from one it does not. The evaluate contract carries no confidence.
    ``title`` is the title path the passage was embedded under, when it has one: a model
    that kept the passage's encoding finds it by ``titled(title, text)``.
    ``source_id``, ``source_kind`` and ``published`` say who stated the passage and when,
    when known: an official text outweighs a chat post that contradicts it.
    ``reliability`` is the reliability of its registered source or of ``source_kind``
    (filled in by :func:`~assay.judge.contexts.check_contexts`): what the context weighs
    when it has no confidence (:mod:`assay.judge.strength`).
    ``read`` is a chat model's belief that the passage states the answer to the question,
    where one read it for the set's judgment (:func:`assay.flow.assess.llm_readings`):
    the answerer quotes from the passage it reads as answering.
    """

    id: str
    text: str
    confidence: float | None = None
    title: str | None = None
    source_id: str | None = None
    source_kind: str | None = None
    published: date | None = None
    reliability: float | None = None
    read: float | None = None

    def to_dict(self) -> dict[str, str]:
        """The ``{"id", "text"}`` form (as labeled sets keep contexts)."""
        return {"id": self.id, "text": self.text}


_MIN_QUOTE_WORDS = 3  # a shorter "excerpt" ("e", "the") could stand for any context


def is_excerpt(quote: str, texts: Sequence[str]) -> bool:
    """Whether ``quote`` appears word for word in one of ``texts`` (runs of spaces aside)."""
    needle = squash_spaces(quote)
    return bool(needle) and any(needle in squash_spaces(text) for text in texts)


def grounding_problems(
    assessment: Assessment, answer: str, contexts: Sequence[Context]
) -> list[str]:
    """What in ``assessment`` is not taken from its inputs; [] when everything is.

    Source identifiers must name a context (or quote three or more of its words exactly),
    the two sides of a conflict must differ, a conflict's claim
    must quote a context or the answer, and unsupported claims and speculation flags
    must quote the answer.
    """
    ids = {c.id for c in contexts}
    texts = [c.text for c in contexts]
    problems = []
    for i, conflict in enumerate(assessment.source_conflicts):
        for key in ("source_a", "source_b"):
            value = getattr(conflict, key)
            quoted = len(value.split()) >= _MIN_QUOTE_WORDS and is_excerpt(value, texts)
            if value not in ids and not quoted:
                problems.append(
                    f"source_conflicts[{i}].{key} {value!r} is neither a context id "
                    f"({', '.join(sorted(ids))}) nor an exact excerpt of a context of at "
                    f"least {_MIN_QUOTE_WORDS} words"
                )
        if conflict.source_a == conflict.source_b:
            problems.append(f"source_conflicts[{i}] names the same source twice")
        if not is_excerpt(conflict.claim, [*texts, answer]):
            problems.append(
                f"source_conflicts[{i}].claim {conflict.claim!r} is not an exact excerpt "
                "of a context or of the answer"
            )
    for key in ("unsupported_claims", "speculation_flags"):
        for i, quote in enumerate(getattr(assessment, key)):
            if not is_excerpt(quote, [answer]):
                problems.append(f"{key}[{i}] {quote!r} is not an exact excerpt of the answer")
    return problems
