"""Recompute a scoring or question event from its audit row alone (E8, B2).

A ``score`` event stores the full policy definition and, per item, the similarity
and the :class:`~assay.types.SourceBasis` (reliability, adjustments, age, decay
rate, overruled/retired). That is enough to recompute every sub-score, the
composite, the label and the gate's verdict; any difference means the row, the
policy or the scoring code no longer agree with what was decided at the time.
For a question (``ask``) the set signals are recomputed from the evidence and the query
(all but coherence, which needs the embeddings), the composite from the signals, and
the routing decision from the composite (after the stored calibration map, when one
decided the route; its parameters are in the row), and the answer's correctness
probability from its stored features. Findings are not replayed: they
depend on the injected text-similarity function.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from assay.actions import stricter_action
from assay.answer.correctness import load_correctness_model
from assay.calibration.maps import map_from_dict
from assay.errors import InvalidInputError
from assay.hashing import canonical_json, sha256_hex
from assay.policy import Policy, policy_from_mapping
from assay.routing import route
from assay.scoring.evidence import composite_score, sub_scores
from assay.scoring.gate import exclusion
from assay.scoring.signals import (
    SIGNAL_NAMES,
    SetSignals,
    concentration_score,
    coverage_score,
    set_confidence,
    top_gap,
)
from assay.types import Candidate, Evidence, Label, SourceBasis, round_score


class Replay:
    """The row check of ``audit verify`` (:class:`assay.audit.verify.RowCheck`): every
    scoring event recomputed from its row, and every applied calibration map compared
    with the map its fitting event recorded earlier in the chain."""

    def __init__(self) -> None:
        self.maps: dict[int, Any] = {}  # calibration maps as their fitting events recorded

    def __call__(self, kind: str, payload: Any, query: str) -> list[str]:
        return replay_problems(kind, payload, query) + map_problems(kind, payload, self.maps)


def replay_problems(kind: str, payload: Any, query: str = "") -> list[str]:
    """Describe every stored score of one event that does not recompute; [] if all do."""
    if kind not in ("score", "ask"):
        return []
    if not isinstance(payload, dict):
        return ["payload is not a JSON object"]
    try:
        policy = policy_from_mapping(payload["policy"], origin="audit row")
        problems = []
        if payload.get("policy_digest") != sha256_hex(canonical_json(payload["policy"])):
            problems.append("stored policy does not match its digest")
        evidence = []
        for item in payload["evidence"]:
            recomputed, item_problems = _replay_item(item, policy)
            evidence.append(recomputed)
            problems.extend(item_problems)
        if kind == "ask":
            problems.extend(_route_problems(payload, policy, query, evidence))
        return problems
    except (KeyError, TypeError, ValueError, InvalidInputError) as exc:
        return [f"payload cannot be replayed: {exc!r}"]


def _route_problems(
    payload: dict[str, Any], policy: Policy, query: str, evidence: list[Evidence]
) -> list[str]:
    """Recompute the set signals (all but coherence, which needs the embeddings), their
    composite, and the decision."""
    stored = payload["signals"]
    settings = policy.signals
    top, gap = top_gap(evidence)
    admitted = [e for e in evidence if e.admitted]
    recomputed = {
        "top": top,
        "gap": min(1.0, gap * settings.gap_scale),
        "concentration": concentration_score(
            [e.confidence for e in evidence], [e.admitted for e in evidence], settings.top_n
        ),
        "coverage": coverage_score(query, [e.candidate.text for e in admitted])[0],
    }
    problems = [
        f"signal {name} {stored[name]} recomputes as {round_score(value)}"
        for name, value in recomputed.items()
        if round_score(value) != stored[name]
    ]
    composite = set_confidence(
        {name: stored[name] for name in SIGNAL_NAMES},
        settings.weights,
        stored["judgment"],
        mode=settings.judgment_mode,
        judgment_weight=settings.judgment_weight,
    )
    if composite != stored["composite"]:
        problems.append(f"set confidence {stored['composite']} recomputes as {composite}")
    signals = SetSignals(
        **(
            stored
            | {
                "composite": composite,
                "covered_terms": tuple(stored["covered_terms"]),
                "missing_terms": tuple(stored["missing_terms"]),
            }
        )
    )
    problems.extend(_correctness_problems(payload, policy))
    problems.extend(_answer_calibration_problems(payload, policy))
    calibrated = (payload.get("calibration") or {}).get("set")
    if calibrated:  # the router decided on the set confidence after the stored map
        value = round(float(map_from_dict(calibrated["params"])(composite)), 6)
        if value != calibrated["value"] or calibrated["raw"] != composite:
            problems.append(
                f"calibrated set confidence {calibrated['value']} recomputes as {value}"
            )
        signals = replace(signals, composite=value)
    decision = route(signals, len(admitted), policy.routing, payload.get("category")).decision
    if decision.value != payload["route"]["decision"]:
        problems.append(f"decision {payload['route']['decision']} recomputes as {decision.value}")
    return problems


_shipped_correctness = cache(load_correctness_model)


def _correctness_problems(payload: dict[str, Any], policy: Policy) -> list[str]:
    """The answer-correctness probability from its stored features, the score as the
    lower of it and the judge's support, and (when no map calibrated it) the action: the
    stricter of the policy's two threshold sets.
    Rows rated by a model other than the shipped one are not rechecked here."""
    rated = (payload.get("judgment") or {}).get("correctness")
    if not rated:
        return []
    model = _shipped_correctness()
    if rated["model"] != model.ref:
        return []
    problems = []
    probability = model.probability(rated["features"])
    if probability != rated["probability"]:
        problems.append(
            f"answer correctness {rated['probability']} recomputes as {probability} ({model.ref})"
        )
    score = min(probability, float(rated["support"]))
    if score != rated["score"]:
        problems.append(f"answer score {rated['score']} recomputes as {score}")
    if not (payload.get("judgment") or {}).get("calibration"):
        assessment = payload.get("assessment") or {}
        if assessment.get("confidence_score") != score:
            problems.append(f"answer score {assessment.get('confidence_score')} is not {score}")
        rules = policy.judge
        action = stricter_action(
            rules.thresholds.action(float(rated["support"])), rules.correctness.action(probability)
        )
        if assessment.get("recommended_action") != action:
            problems.append(f"action {assessment.get('recommended_action')} recomputes as {action}")
    return problems


def _answer_calibration_problems(payload: dict[str, Any], policy: Policy) -> list[str]:
    """The judge's calibrated score and its action, recomputed from the stored map."""
    calibrated = (payload.get("judgment") or {}).get("calibration")
    if not calibrated:
        return []
    value = round(float(map_from_dict(calibrated["params"])(calibrated["raw"])), 6)
    assessment = payload.get("assessment") or {}
    problems = []
    if value != calibrated["value"] or assessment.get("confidence_score") != value:
        problems.append(f"calibrated answer score {assessment.get('confidence_score')} "
                        f"recomputes as {value}")  # fmt: skip
    action = policy.judge.thresholds.action(value)
    if assessment.get("recommended_action") != action:
        problems.append(f"action {assessment.get('recommended_action')} recomputes as {action}")
    return problems


def map_problems(kind: str, payload: Any, maps: dict[int, Any]) -> list[str]:
    """Check that every map an ``ask`` row applied is the one its ``calibration`` event
    recorded when it was fitted (``maps``, filled as the chain is walked), so a map
    edited in its table after the fact cannot pass unseen."""
    try:
        return _map_problems(kind, payload, maps)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a forged entry
        return [f"calibration entry cannot be checked: {exc!r}"]


def _map_problems(kind: str, payload: Any, maps: dict[int, Any]) -> list[str]:
    if not isinstance(payload, dict):
        return []
    if kind == "calibration":
        maps[int(payload["map"]["id"])] = payload["map"]["params"]
        return []
    if kind != "ask":
        return []
    applied = dict(payload.get("calibration") or {})
    judged = (payload.get("judgment") or {}).get("calibration")
    if judged:
        applied["answer"] = judged
    problems = []
    for target, used in applied.items():
        recorded = maps.get(int(used["id"]))
        if recorded is None:
            problems.append(f"{target} map {used['id']} has no calibration event before it")
        elif "params" in used and used["params"] != recorded:
            problems.append(f"{target} map {used['id']} differs from the one its fit recorded")
    return problems


def _replay_item(item: dict[str, Any], policy: Policy) -> tuple[Evidence, list[str]]:
    """The item rescored from its row, and how the stored values differ from that."""
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
    return replace(evidence, admitted=verdict is None), problems
