"""Inline citations (G2): ``[Source: <evidence id>]``, found, checked and removed.

Every statement of an answer cites the evidence it rests on. :func:`validate_citations`
checks each cited identifier against the evidence that was admitted for this question:
an answer that cites nothing, or cites anything that was not admitted, fails
(``abstained_citation``), and the report lists which citations were valid and which not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CITATION",
    "CitationCheck",
    "cite",
    "cited_ids",
    "defuse_citations",
    "split_ids",
    "strip_citations",
    "validate_citations",
]

#: one citation; several ids may share the brackets: ``[Source: a, b]`` or ``[Source: a; b]``
CITATION = re.compile(r"\[\s*Sources?\s*:\s*([^\[\]]*)\]", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*[,;]\s*")


def split_ids(inside: str) -> list[str]:
    """The identifiers between a citation's brackets: ``"a, b"`` -> ``["a", "b"]``."""
    return [part.strip() for part in _SEPARATOR.split(inside.strip()) if part.strip()]


def cite(evidence_id: str) -> str:
    """The inline citation of one evidence item."""
    return f"[Source: {evidence_id}]"


def cited_ids(answer: str) -> list[str]:
    """Every identifier cited in ``answer``, in order of first appearance."""
    seen: dict[str, None] = {}
    for match in CITATION.finditer(answer):
        for part in split_ids(match.group(1)):
            seen.setdefault(part, None)
    return list(seen)


def defuse_citations(text: str) -> str:
    """``text`` with citation-like brackets of its own turned into parentheses: a passage
    quoting "[source: data sheet, rev. 2]" must not pass for a citation when quoted."""
    return CITATION.sub(lambda m: f"({m.group(0)[1:-1]})", text)


def strip_citations(text: str) -> str:
    """``text`` without its citations (for judging claims and comparing with gold)."""
    return re.sub(r"\s+([.,;:!?])", r"\1", CITATION.sub("", text)).strip()


@dataclass(frozen=True, slots=True)
class CitationCheck:
    """Which citations name admitted evidence and which do not."""

    valid: tuple[str, ...]
    invalid: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """At least one citation, and every one names admitted evidence."""
        return bool(self.valid) and not self.invalid

    @property
    def problem(self) -> str | None:
        """Why the check failed, in words; ``None`` when it passed."""
        if self.invalid:
            return f"the answer cites evidence that was not admitted: {', '.join(self.invalid)}"
        if not self.valid:
            return "the answer cites no evidence"
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"ok": self.ok, "valid": list(self.valid), "invalid": list(self.invalid)}


def validate_citations(answer: str, admitted_ids: Iterable[str]) -> CitationCheck:
    """Check every citation of ``answer`` against the admitted evidence ids."""
    admitted = set(admitted_ids)
    ids = cited_ids(answer)
    return CitationCheck(
        valid=tuple(i for i in ids if i in admitted),
        invalid=tuple(i for i in ids if i not in admitted),
    )
