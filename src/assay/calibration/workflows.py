"""Calibrate and publish: fit a score map and store it, or pick a threshold and write it
as a new policy version, from Python as from ``assay calibrate`` (which only parses
options and prints what these return).

Each workflow scores a labeled set (the file at ``labels``, or its ``examples`` when the
caller has read them already) with the engine it is given
(:func:`assay.calibration.scored.score_examples`). A map is fitted on raw scores, so
:func:`fit_and_store` wants an engine opened with ``calibrate=False``; thresholds are
chosen on the scores as served, so the other two want the default ``calibrate=True``.
A stored map and its ``calibration`` audit event land in one unit of work; a policy
version is a new TOML file beside the others (:func:`assay.policy_writer.write_policy_version`),
never an edit of an existing one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import numpy as np

from assay.actions import ActionThresholds
from assay.calibration.labels import LabeledExample, labels_sha256, read_labels
from assay.calibration.maps import fit_map, fit_metrics
from assay.calibration.scored import ScoredSet, score_examples
from assay.calibration.store import StoredMap
from assay.calibration.thresholds import (
    RiskThreshold,
    ThresholdChoice,
    best_threshold,
    risk_controlled_threshold,
)
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.events import CalibrationRecord, MapRecord
from assay.policy import Policy, Severity
from assay.policy_writer import write_policy_version
from assay.routing import Bands

__all__ = [
    "FittedMap",
    "PublishedThreshold",
    "SeverityThreshold",
    "fit_and_store",
    "policy_folder",
    "publish_risk_thresholds",
    "publish_threshold",
]

Progress = Callable[[int, int], None]
STEP = 0.01  #: the gap kept between a new threshold and the bands below it


@dataclass(frozen=True, slots=True)
class FittedMap:
    """A map fitted on a labeled set and stored as the next version of its key."""

    stored: StoredMap
    metrics: dict[str, Any]
    n_scores: int


@dataclass(frozen=True, slots=True)
class PublishedThreshold:
    """The threshold chosen for an objective and the policy version that carries it."""

    choice: ThresholdChoice
    threshold: float
    policy: Policy
    path: Path


@dataclass(frozen=True, slots=True)
class SeverityThreshold:
    """One severity's risk-controlled threshold; ``policy`` and ``path`` are set only when
    a threshold controls the risk (then a new policy version was written)."""

    severity: str
    policy_name: str
    found: RiskThreshold
    policy: Policy | None = None
    path: Path | None = field(default=None)


def fit_and_store(
    engine: Assay,
    labels: str | Path,
    target: str,
    *,
    method: str = "isotonic",
    policy: str | None = None,
    as_of: date | None = None,
    progress: Progress | None = None,
    examples: Sequence[LabeledExample] | None = None,
) -> FittedMap:
    """Fit a ``method`` map from ``target``'s raw scores on the labeled set at ``labels``
    to what was observed, and store it with its ``calibration`` audit event."""
    scored = _scored(engine, labels, examples, target, policy, as_of, progress)
    scores, outcomes = scored.fitting()
    fitted = fit_map(method, scores, outcomes)
    metrics = fit_metrics(fitted, scores, outcomes) | {"skipped": scored.skipped}
    chosen = engine.policies.resolve(name=policy or engine.settings.default_policy)

    def record(stored: StoredMap) -> None:  # in the map's unit of work: both or neither
        as_fitted = MapRecord.model_validate(stored.to_dict())
        event = CalibrationRecord(map=as_fitted, labels=str(labels))
        engine.audit.append(
            event, query=f"{target} map for {stored.model_key}",
            policy_name=chosen.name, policy_version=chosen.version,
        )  # fmt: skip

    stored = engine.calibration.save(
        target,
        scored.model_key,
        fitted,
        n_labels=len(scores),
        metrics=metrics,
        labels_sha256=labels_sha256(labels),
        on_saved=record,
    )
    return FittedMap(stored, metrics, len(scores))


def publish_threshold(
    engine: Assay,
    labels: str | Path,
    target: str,
    *,
    policy: str,
    folder: Path,
    objective: str = "f1",
    min_precision: float | None = None,
    category: str | None = None,
    as_of: date | None = None,
    progress: Progress | None = None,
    examples: Sequence[LabeledExample] | None = None,
) -> PublishedThreshold:
    """Pick the threshold that best meets ``objective`` on the labeled set (R6) and write
    it as a new version of ``policy`` into ``folder``: ``set``, the router's proceed band
    (of ``category`` when given); ``answer``, the judge's publish threshold."""
    if target not in ("set", "answer"):
        raise InvalidInputError("target", target, "use set or answer")
    if category is not None and target != "set":
        raise InvalidInputError(
            "--category", category, "use it with --target set: judge thresholds are per policy"
        )
    scored = _scored(engine, labels, examples, target, policy, as_of, progress)
    chosen = engine.policies.resolve(name=policy)
    mask = np.ones(len(scored.scores), dtype=bool)
    if category is not None:
        chosen.routing.bands_for(category)  # fails on a category the policy lacks
        mask = np.asarray([c == category for c in scored.categories])
    scores = scored.scores[mask]
    choice = best_threshold(
        scores,
        scored.labels[mask],
        objective=objective,
        min_precision=min_precision,
        candidates=np.unique(scores),  # every threshold that changes the decisions
    )
    if not choice.met_floor:
        raise InvalidInputError(
            "--min-precision", min_precision,
            f"no threshold reaches it on these {choice.n} labels (the most precise gives "
            f"{choice.precision:.3f}); lower it or label more data; no policy was written",
            problem="cannot be met",
        )  # fmt: skip
    t = round_up(choice.threshold)
    if target == "set":
        updated = with_proceed(chosen, t, category)
    else:
        updated = with_answer_floor(chosen, min(t, chosen.judge.thresholds.caveat), publish=t)
    header = (
        f"calibrated by `assay calibrate thresholds` on {datetime.now(UTC):%Y-%m-%d}: "
        f"{target} threshold {t} ({objective}, precision floor {min_precision}) from "
        f"{choice.n} labels, sha256 {labels_sha256(labels)[:16]}"
    )
    written, path = write_policy_version(updated, folder, header=header)
    return PublishedThreshold(choice, t, written, path)


def publish_risk_thresholds(
    engine: Assay,
    labels: str | Path,
    *,
    alpha: float,
    folder: Path,
    delta: float = 0.1,
    severities: Sequence[str] = (),
    as_of: date | None = None,
    progress: Callable[[str], Progress | None] = lambda severity: None,
    examples: Sequence[LabeledExample] | None = None,
) -> list[SeverityThreshold]:
    """Per severity (default: all), the lowest answering threshold whose
    answered-and-wrong rate stays at or below ``alpha`` with probability at least
    ``1 - delta`` (B3, Learn-then-Test), written as the judge's caveat threshold of a new
    version of the severity's policy; a severity no threshold controls is left as it is."""
    examples = read_labels(labels) if examples is None else examples
    results = []
    for severity in severities or [s.value for s in Severity]:
        policy = engine.policies.for_severity(severity)
        scored = score_examples(
            engine, examples, "answer", policy=policy.name, as_of=as_of,
            progress=progress(severity),
        )  # fmt: skip
        scores = np.where(scored.judged, scored.scores, 0.0)
        found = risk_controlled_threshold(scores, scored.labels, alpha=alpha, delta=delta)
        result = SeverityThreshold(severity, policy.name, found)
        if found.controlled and found.threshold is not None:
            header = (
                f"calibrated by `assay calibrate risk` on {datetime.now(UTC):%Y-%m-%d}: "
                f"answered-and-wrong <= {alpha} with probability >= {1 - delta} "
                f"({found.method}) from {found.n} labels, sha256 {labels_sha256(labels)[:16]}"
            )
            updated = with_answer_floor(policy, round_up(found.threshold))
            written, path = write_policy_version(updated, folder, header=header)
            result = replace(result, policy=written, path=path)
        results.append(result)
    return results


def policy_folder(given: Path | None, engine: Assay) -> Path:
    """Where new policy versions go: ``given``, else the first ``ASSAY_POLICY_DIRS``."""
    if given is not None:
        return given
    if engine.settings.policy_dirs:
        return engine.settings.policy_dirs[0]
    raise InvalidInputError(
        "--policy-dir", None, "name the folder for new policy versions, or set ASSAY_POLICY_DIRS"
    )


def round_up(threshold: float) -> float:
    """``threshold`` rounded up to the 6 decimals scores are stored with: rounding down
    would answer items the threshold was chosen to keep out."""
    return math.ceil(threshold * 1e6 - 1e-9) / 1e6


def with_proceed(policy: Policy, t: float, category: str | None) -> Policy:
    """``policy`` proceeding from ``t``, the lower bands pushed under it."""
    t = max(t, 2 * STEP)
    bands = policy.routing.bands_for(category)
    hedge, broaden = _lower_bands(t, [bands.hedge, bands.broaden])
    new = Bands(t, hedge, broaden)
    if category is None:
        return replace(policy, routing=replace(policy.routing, bands=new))
    categories = dict(policy.routing.categories) | {category: new}
    return replace(policy, routing=replace(policy.routing, categories=categories))


def with_answer_floor(policy: Policy, t: float, *, publish: float | None = None) -> Policy:
    """``policy`` answering from exactly ``t`` (its caveat threshold; publish at ``publish``
    when given, never below ``t``), human review pushed under it."""
    old = policy.judge.thresholds
    t = max(t, STEP)  # room for human review under it; a higher floor only answers less
    top = max(publish if publish is not None else old.publish, t)
    (review,) = _lower_bands(t, [old.human_review])
    thresholds = ActionThresholds(round(top, 6), round(t, 6), review)
    return replace(policy, judge=replace(policy.judge, thresholds=thresholds))


def _lower_bands(top: float, below: Sequence[float]) -> list[float]:
    """``below`` pushed under ``top``, each at least ``STEP`` under the one above."""
    out, ceiling = [], top
    for value in below:
        ceiling = round(max(0.0, min(value, ceiling - STEP)), 6)
        out.append(ceiling)
    return out


def _scored(
    engine: Assay,
    labels: str | Path,
    examples: Sequence[LabeledExample] | None,
    target: str,
    policy: str | None,
    as_of: date | None,
    progress: Progress | None,
) -> ScoredSet:
    given = read_labels(labels) if examples is None else examples
    return score_examples(engine, given, target, policy=policy, as_of=as_of, progress=progress)
