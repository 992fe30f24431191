"""Recompute a scoring event from its audit row alone (E8, B2).

A ``score`` event stores the full policy definition and, per item, the similarity
and the :class:`~assay.types.SourceBasis` (reliability, adjustments, age, decay
rate, overruled/retired). That is enough to recompute every sub-score, the
composite, the label and the gate's verdict; any difference means the row, the
policy or the scoring code no longer agree with what was decided at the time.
Findings are not replayed: they depend on the injected text-similarity function.
"""

from __future__ import annotations

from typing import Any

from assay.errors import InvalidInputError
from assay.hashing import canonical_json, sha256_hex
from assay.policy import Policy, policy_from_mapping
from assay.scoring.evidence import composite_score, sub_scores
from assay.scoring.gate import exclusion
from assay.types import Candidate, Evidence, Label, SourceBasis


def replay_problems(kind: str, payload: Any) -> list[str]:
    """Describe every stored score of one event that does not recompute; [] if all do."""
    if kind != "score":
        return []
    if not isinstance(payload, dict):
        return ["payload is not a JSON object"]
    try:
        policy = policy_from_mapping(payload["policy"], origin="audit row")
        problems = []
        if payload.get("policy_digest") != sha256_hex(canonical_json(payload["policy"])):
            problems.append("stored policy does not match its digest")
        for item in payload["evidence"]:
            problems.extend(_item_problems(item, policy))
        return problems
    except (KeyError, TypeError, ValueError, InvalidInputError) as exc:
        return [f"payload cannot be replayed: {exc!r}"]


def _item_problems(item: dict[str, Any], policy: Policy) -> list[str]:
    basis = SourceBasis.from_dict(item["basis"])
    scores = sub_scores(item["scores"]["similarity"], basis, policy.undated_freshness)
    confidence = composite_score(scores, policy.weights)
    label = policy.labels.label(confidence)
    name = f"item {item['id']!r}"
    problems = []
    if scores.as_dict() != item["scores"]:
        problems.append(f"{name}: sub-scores {item['scores']} recompute as {scores.as_dict()}")
    if confidence != item["confidence"]:
        problems.append(f"{name}: confidence {item['confidence']} recomputes as {confidence}")
    if label != Label(item["label"]):
        problems.append(f"{name}: label {item['label']} recomputes as {label.value}")
    evidence = Evidence(
        candidate=Candidate(
            id=item["id"],
            text=item["text"],
            similarity=scores.similarity,
            source_id=item["source_id"],
            source_kind=basis.source_kind,
        ),
        scores=scores,
        weights=policy.weights,
        confidence=confidence,
        label=label,
        basis=basis,
        policy_name=policy.name,
        policy_version=policy.version,
    )
    verdict = exclusion(evidence, policy)
    reason = verdict[0].value if verdict else None
    if (verdict is None) != item["admitted"] or reason != item.get("reason"):
        problems.append(
            f"{name}: gate verdict {item.get('reason') or 'admitted'} "
            f"recomputes as {reason or 'admitted'}"
        )
    return problems
