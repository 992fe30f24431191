"""The interface every answerer implements, and what it returns.

An answerer turns admitted evidence into text for each way the router may respond
(R8): a standard answer and a hedged one that states its confidence and uncertainty,
both citing every statement as ``[Source: <evidence id>]`` (G2); an answer marked as not
from the knowledge base (``llm_only``, only where the policy allows it and a model can
write one); a clarifying question; and alternative phrasings of the question for
broadening. The offline default is :class:`~assay.answer.extractive.ExtractiveAnswerer`;
:class:`~assay.answer.llm.LLMAnswerer` uses any OpenAI-compatible endpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from assay.judge.schema import Context, SourceConflict

__all__ = ["AnswerMode", "Answerer", "Draft", "Uncertainty"]

AnswerMode = Literal["standard", "hedged", "llm_only"]


@dataclass(frozen=True, slots=True)
class Uncertainty:
    """What a hedged answer must say about its own footing."""

    confidence: float  #: the set confidence in [0, 1]
    label: str  #: high / medium / low
    reasons: tuple[str, ...] = ()  #: why it is not higher (missing terms, weak sources, ...)


@dataclass(frozen=True, slots=True)
class Draft:
    """Text an answerer wrote, and who wrote it with which prompt (for the audit row)."""

    text: str
    answerer: str  #: name and version (model) of the answerer
    prompt_version: str | None = None  #: ``None`` for answerers without prompts
    mode: str = "standard"  #: standard, hedged, llm_only, clarify or expand
    #: the date, figure or name the question asks for, which the text states first;
    #: ``None`` when the question asks for no such type or the answerer gives none
    short: str | None = None
    #: why the answerer wrote no answer, when it declined (no passage states one)
    declined: str | None = None
    #: weaker admitted sources that answer otherwise, in words, for the notes
    disagreements: tuple[str, ...] = ()
    #: the same, as the assessment's source conflicts (what the weaker source states,
    #: its id, the lead's id), so the JSON says what the notes say
    conflicts: tuple[SourceConflict, ...] = ()

    @property
    def quoted(self) -> str:
        """The text without the short answer stated first: what the evidence says."""
        return self.text.removeprefix(f"{self.short}: ") if self.short else self.text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the audit row."""
        return (
            {
                "answerer": self.answerer,
                "prompt_version": self.prompt_version,
                "mode": self.mode,
                "short": self.short,
            }
            | ({"declined": self.declined} if self.declined else {})
            | ({"disagreements": list(self.disagreements)} if self.disagreements else {})
        )


@runtime_checkable
class Answerer(Protocol):
    """Writes answers, clarifying questions and query phrasings."""

    name: str
    #: whether :meth:`answer` can write an ``llm_only`` answer (needs a language model)
    can_answer_without_evidence: bool

    def answer(
        self,
        question: str,
        evidence: Sequence[Context],
        *,
        mode: AnswerMode = "standard",
        uncertainty: Uncertainty | None = None,
    ) -> Draft:
        """An answer citing ``evidence`` inline; ``hedged`` needs ``uncertainty``."""
        ...

    def clarify(self, question: str, evidence: Sequence[Context], missing: Sequence[str]) -> Draft:
        """One question back to the user that would let the knowledge base answer."""
        ...

    def expand(self, question: str, evidence: Sequence[Context], n: int = 3) -> list[str]:
        """Up to ``n`` alternative phrasings of ``question`` for another retrieval."""
        ...
