"""The scoring flow in one place: resolve sources, score, gate, corroborate (E1-E10).

:func:`score_candidates` is pure: the caller passes ``as_of`` and a function that
resolves each candidate's source, so the same inputs always give the same result.
:class:`assay.engine.Assay` wires it to the registry and the audit log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from assay.errors import InvalidInputError
from assay.events import ScoreRecord, build
from assay.policy import Policy
from assay.scoring.corroboration import TextSimilarity, corroborate, lexical_similarity
from assay.scoring.evidence import SourceFacts, score_candidate
from assay.scoring.gate import gate
from assay.types import Candidate, Evidence, Finding, check_texts, check_unique_ids
from assay.version import __version__

SourceResolver = Callable[[Candidate], SourceFacts]
"""Finds what the registry knows about a candidate's source (raises if unknown)."""


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """Everything one scoring request decided, in the order the candidates came."""

    query: str
    policy: Policy
    as_of: date
    jurisdiction: str | None
    evidence: list[Evidence]
    findings: list[Finding]
    event_id: str | None = None

    @property
    def admitted(self) -> list[Evidence]:
        """The evidence that may enter the context (E5)."""
        return [e for e in self.evidence if e.admitted]

    @property
    def excluded(self) -> list[Evidence]:
        """The evidence kept out, each with its reason; returned and logged, never used."""
        return [e for e in self.evidence if not e.admitted]

    def as_dict(self) -> dict[str, Any]:
        """The ``assay score --json`` contract."""
        return {
            "query": self.query,
            "as_of": self.as_of.isoformat(),
            "policy": {
                "name": self.policy.name,
                "version": self.policy.version,
                "threshold": self.policy.threshold,
                "similarity_floor": self.policy.similarity_floor,
                "weights": self.policy.weights.as_dict(),
                "digest": self.policy.digest,
            },
            "admitted": [e.as_dict() for e in self.admitted],
            "excluded": [e.as_dict() for e in self.excluded],
            "findings": [f.as_dict() for f in self.findings],
            "event_id": self.event_id,
        }


def score_candidates(
    query: str,
    candidates: Sequence[Candidate],
    policy: Policy,
    resolve: SourceResolver,
    *,
    as_of: date,
    jurisdiction: str | None = None,
    similarity: TextSimilarity = lexical_similarity,
) -> ScoreResult:
    """Score, gate and corroborate ``candidates`` for ``query`` under ``policy``."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError(
            "query", query, "give the question the candidates were retrieved for"
        )
    check_texts(query=query, jurisdiction=jurisdiction)
    candidates = list(candidates)
    for item in candidates:
        if not isinstance(item, Candidate):
            raise InvalidInputError(
                "candidates", item, "pass assay.Candidate objects (see assay.adapters for others)"
            )
    check_unique_ids(candidates)
    scored = [
        score_candidate(c, resolve(c), policy, as_of=as_of, jurisdiction=jurisdiction)
        for c in candidates
    ]
    judged = gate(scored, policy)
    return ScoreResult(
        query=query,
        policy=policy,
        as_of=as_of,
        jurisdiction=jurisdiction,
        evidence=judged,
        findings=corroborate([e for e in judged if e.admitted], policy, similarity),
    )


def score_record(
    result: ScoreResult,
    *,
    models: Mapping[str, str | None],
    prompts: Mapping[str, str | None] | None = None,
) -> ScoreRecord:
    """The audit record of a scoring event: enough to replay every score and verdict
    (E8, J8).

    ``models`` names each model (and its version) behind the scores, ``prompts`` the
    prompt versions of an answer's writer and judge; with ``assay_version`` they tell a
    replay mismatch caused by new code from a forged row.
    """
    return build(ScoreRecord, score_fields(result, models=models, prompts=prompts))


def score_fields(
    result: ScoreResult,
    *,
    models: Mapping[str, str | None],
    prompts: Mapping[str, str | None] | None = None,
) -> dict[str, object]:
    """The fields of :func:`score_record`, which a question's record extends."""
    return {
        "assay_version": __version__,
        "as_of": result.as_of.isoformat(),
        "jurisdiction": result.jurisdiction,
        "policy": result.policy.as_dict(),
        "policy_digest": result.policy.digest,
        "thresholds": {
            "threshold": result.policy.threshold,
            "similarity_floor": result.policy.similarity_floor,
        },
        "evidence": [e.as_dict() for e in result.evidence],
        "counts": {"admitted": len(result.admitted), "excluded": len(result.excluded)},
        "findings": [f.as_dict() for f in result.findings],
        "models": dict(models),
        "prompts": dict(prompts or {}),
    }
