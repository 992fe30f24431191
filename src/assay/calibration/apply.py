"""Stored calibration maps, applied where scores are made (E11, R6, J7).

A map is fitted for one *target* and one *model key*, the models (and prompt) whose raw
scores it maps, so that a map fitted for one judge is never applied to another:

==========  ======================================================  ==========================
target      raw score                                               applied to
==========  ======================================================  ==========================
answer      the judge's ``confidence_score``                        the J1 score and its action
set         the set composite (R5)                                  the router's decision
evidence    an item's composite confidence                          shown beside it, not gated
==========  ======================================================  ==========================

:class:`Calibrator` applies the newest stored map of each (target, key) and returns a
:class:`Calibrated` that goes into the audit row: the map's id and version, its
parameters, the raw and the calibrated score, so a replay can recompute the decision
from the row alone. Evidence stays gated on the raw composite: the policy's thresholds
are written for it, and a calibrated probability of relevance is a different scale.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from assay.actions import ActionThresholds
from assay.calibration.store import CalibrationStore, StoredMap
from assay.hashing import canonical_json, sha256_hex
from assay.judge.base import Judgment
from assay.policy import Policy

__all__ = ["Calibrated", "Calibrator", "answer_key", "evidence_key", "set_key"]


def answer_key(judge: str, prompt_version: str | None) -> str:
    """The model key of a judge's scores: the judge and its prompt version."""
    return f"{judge}|prompt:{prompt_version or 'none'}"


def scoring_digest(policy: Policy) -> str:
    """A digest of what in ``policy`` shapes evidence and set scores: everything but its
    name, version, description, routing bands and judge thresholds. Calibrating those
    (``assay calibrate thresholds`` / ``risk``) writes a new version whose scores are
    the same, so the maps fitted on them keep applying.

    A policy tightened by an open drift alert (:mod:`assay.monitor.tighten`) has the
    digest of the policy it came from: its raised gate can only lower set confidences,
    and a monotone map then lowers the calibrated score too, so the map still errs on
    the side of caution."""
    if policy.tightened_from is not None:
        policy = policy.tightened_from
    shaping = {
        k: v
        for k, v in policy.as_dict().items()
        if k not in ("name", "version", "description", "routing", "judge")
    }
    return sha256_hex(canonical_json(shaping))[:12]


def set_key(
    policy: Policy,
    embedder: str,
    relevance: str | None,
    support: str | None,
    judgment: str | None = None,
) -> str:
    """The model key of set confidences: the policy's scoring and every model behind them;
    ``judgment`` names the chat model whose reading capped them (``[models]
    llm_judgment``), left out where the relevance model's did, as in keys stored before."""
    return (
        f"{policy.name}|scoring:{scoring_digest(policy)}|{embedder}"
        f"|relevance:{relevance or 'none'}|support:{support or 'none'}"
    ) + (f"|judgment:{judgment}" if judgment else "")


def evidence_key(policy: Policy, embedder: str, relevance: str | None) -> str:
    """The model key of evidence confidences: the policy's scoring and the similarity."""
    return (
        f"{policy.name}|scoring:{scoring_digest(policy)}|{embedder}|relevance:{relevance or 'none'}"
    )


@dataclass(frozen=True, slots=True)
class Calibrated:
    """One score before and after a stored map."""

    raw: float
    value: float
    stored: StoredMap

    def to_dict(self) -> dict[str, Any]:
        """What an audit row keeps: the map, its parameters, both scores."""
        return self.stored.ref() | {
            "params": self.stored.map.to_dict(),
            "raw": self.raw,
            "value": self.value,
        }


class Calibrator:
    """The newest stored map per (target, key), looked up once per process."""

    def __init__(self, store: CalibrationStore) -> None:
        """Read maps from ``store``; a map saved later is seen by the next :class:`Assay`."""
        self.store = store
        self._cache: dict[tuple[str, str], StoredMap | None] = {}

    def lookup(self, target: str, key: str) -> StoredMap | None:
        """The newest map for ``target`` and ``key``, or ``None``."""
        if (target, key) not in self._cache:
            self._cache[(target, key)] = self.store.latest(target, key)
        return self._cache[(target, key)]

    def calibrate(self, target: str, key: str, raw: float) -> Calibrated | None:
        """``raw`` through the newest map of ``target`` and ``key``; ``None`` without one."""
        stored = self.lookup(target, key)
        if stored is None:
            return None
        return Calibrated(raw, round(float(stored.apply(raw)), 6), stored)

    def judgment(self, judgment: Judgment, thresholds: ActionThresholds) -> Judgment:
        """``judgment`` with its score calibrated and its action taken from that (J7); an
        empty answer or a refusal keeps its 0.0 and ``suppress`` (J4)."""
        if judgment.no_answer:
            return judgment
        assessment = judgment.assessment
        key = answer_key(judgment.judge, judgment.prompt_version)
        calibrated = self.calibrate("answer", key, assessment.confidence_score)
        if calibrated is None:
            return judgment
        stored = calibrated.stored
        why = (
            f"{assessment.score_rationale}; calibrated from {calibrated.raw:.2f} by map "
            f"{stored.id} (version {stored.version}, {stored.method})"
        )
        assessment = assessment.model_copy(
            update={
                "confidence_score": calibrated.value,
                "recommended_action": thresholds.action(calibrated.value),
                "score_rationale": why,
            }
        )
        return replace(judgment, assessment=assessment, calibration=calibrated.to_dict())
