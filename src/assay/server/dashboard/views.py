"""What the dashboard's pages show, shaped from stored records into plain values.

Audit events are read as their typed records (:mod:`assay.events`); an event whose
payload does not match its record (damaged, or written by hand) is shown with its raw
payload rather than refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.audit import AuditEvent
from assay.calibration.store import StoredMap
from assay.events import (
    AlertRecord,
    AskRecord,
    CalibrationRecord,
    EvidenceRecord,
    KeyRecord,
    PolicyChangeRecord,
    ReviewRecord,
    ScoreRecord,
    SignalsRecord,
)

__all__ = [
    "EvidenceRow",
    "MetricRow",
    "band_label",
    "calibration_curve",
    "evidence_rows",
    "metric_rows",
    "outcome",
    "set_confidence",
    "signal_rows",
]


@dataclass(frozen=True, slots=True)
class EvidenceRow:
    """One evidence item of an event as the evidence table shows it."""

    id: str
    source: str
    title: str
    text: str
    similarity: float | None
    reliability: float | None
    registry_reliability: float | None
    freshness: float | None
    confidence: float | None
    label: str
    admitted: bool
    reason: str


@dataclass(frozen=True, slots=True)
class MetricRow:
    """One fit metric of a calibration map: before and after (or a single value)."""

    name: str
    before: float | None
    after: float | None
    value: Any = None

    @property
    def improved(self) -> bool | None:
        """Whether the map lowered the metric (lower is better for Brier and ECE)."""
        if self.before is None or self.after is None or self.name.lower().startswith("auroc"):
            return None
        return self.after < self.before


def number(value: Any) -> float | None:
    """``value`` as a finite float, or ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def band_label(score: float | None, labels: Any) -> str | None:
    """The high / medium / low label of ``score`` under a policy's label bands (as a
    payload stores them: ``{"high": .., "medium": ..}``); ``None`` when unknown."""
    if score is None or not isinstance(labels, Mapping):
        return None
    high, medium = number(labels.get("high")), number(labels.get("medium"))
    if high is None or medium is None:
        return None
    return "high" if score >= high else "medium" if score >= medium else "low"


def set_confidence(record: AskRecord) -> tuple[float | None, str | None, bool]:
    """The set confidence an ``ask`` routed on (calibrated when a set map applied), its
    label under the event's policy, and whether it was calibrated."""
    score = number(record.set_confidence)
    labels = record.policy.labels
    return score, band_label(score, labels.model_dump()), record.calibration.set is not None


def signal_rows(signals: SignalsRecord) -> list[tuple[str, str]]:
    """The set signals of an ``ask`` (numbers to 3 places, term lists joined)."""
    rows = []
    for name, value in signals.model_dump().items():
        if isinstance(value, list):
            rows.append((name, ", ".join(str(v) for v in value) or "none"))
        elif isinstance(value, dict):
            rows.append((name, ", ".join(f"{k} {_fmt(v)}" for k, v in value.items()) or "none"))
        else:
            rows.append((name, _fmt(value)))
    return rows


def _fmt(value: Any) -> str:
    n = number(value)
    return f"{n:.3f}" if n is not None else str(value)


def evidence_rows(evidence: Sequence[EvidenceRecord]) -> list[EvidenceRow]:
    """Every evidence item of an ``ask`` or ``score`` event, in stored order."""
    return [
        EvidenceRow(
            id=item.id,
            source=item.source,
            title=item.title or "",
            text=item.text,
            similarity=number(item.scores.get("similarity")),
            reliability=number(item.scores.get("source")),
            registry_reliability=number(item.basis.reliability),
            freshness=number(item.scores.get("freshness")),
            confidence=number(item.confidence),
            label=item.label,
            admitted=item.admitted,
            reason="" if item.admitted else item.reason or "excluded",
        )
        for item in evidence
    ]


def outcome(event: AuditEvent) -> str:
    """A short summary of what an event did, for the audit trail's list ("" when its
    payload does not match its record)."""
    try:
        record = event.record()
    except ValueError:
        return ""
    if isinstance(record, AskRecord):
        return " · ".join(v for v in (record.route.decision, record.status) if v) or "assessed"
    if isinstance(record, ScoreRecord):
        return f"{record.counts.admitted} admitted, {record.counts.excluded} excluded"
    if isinstance(record, ReviewRecord):
        return f"review item {record.review_item}: {record.verdict}"
    if isinstance(record, KeyRecord):
        return f"{record.action} {record.key.name}".replace("_", " ").strip()
    if isinstance(record, AlertRecord | PolicyChangeRecord):
        metric = record.alert.get("metric") if isinstance(record, AlertRecord) else record.metric
        return f"{record.action} {metric or ''}".replace("_", " ").strip()
    if isinstance(record, CalibrationRecord):
        return f"{record.map.target} map v{record.map.version}"
    return ""


def metric_rows(metrics: Mapping[str, Any]) -> list[MetricRow]:
    """A map's stored metrics: ``X_before``/``X_after`` pairs side by side, then the rest."""
    rows: list[MetricRow] = []
    seen: set[str] = set()
    for key in metrics:
        for suffix in ("_before", "_after"):
            if key.endswith(suffix):
                base = key[: -len(suffix)]
                if base not in seen:
                    seen.add(base)
                    rows.append(
                        MetricRow(
                            _metric_name(base),
                            number(metrics.get(f"{base}_before")),
                            number(metrics.get(f"{base}_after")),
                        )
                    )
    paired = {f"{b}{s}" for b in seen for s in ("_before", "_after")}
    for key, value in metrics.items():
        if key not in paired:
            rows.append(MetricRow(_metric_name(key), None, None, value))
    return rows


_NAMES = {
    "brier": "Brier",
    "ece": "ECE",
    "auroc": "AUROC",
    "aurc": "AURC",
    "skipped": "labels skipped",
}


def _metric_name(key: str) -> str:
    head, _, rest = key.partition("_")
    return " ".join(x for x in (_NAMES.get(head, head), rest.replace("_", " ")) if x)


def calibration_curve(stored: StoredMap, steps: int = 50) -> Sequence[tuple[float, float]]:
    """The map sampled over [0, 1]: ``(raw score, calibrated probability)`` pairs."""
    return [(i / steps, float(stored.apply(i / steps))) for i in range(steps + 1)]


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """Reviewed answers whose confidence fell in one tenth of [0, 1]."""

    mean_score: float  #: their mean confidence score
    correct: float  #: the share reviewers marked correct
    count: int


def review_reliability(
    labels: Sequence[tuple[float, bool]], bins: int = 10
) -> list[ReliabilityBin]:
    """Reviewers' verdicts against the confidence each answer was given, in equal-width
    bins (the empty ones left out): a reliability diagram of the live judge."""
    grouped: dict[int, list[tuple[float, bool]]] = {}
    for score, correct in labels:
        grouped.setdefault(min(int(score * bins), bins - 1), []).append((score, correct))
    return [
        ReliabilityBin(
            sum(s for s, _ in group) / len(group),
            sum(1 for _, c in group if c) / len(group),
            len(group),
        )
        for _, group in sorted(grouped.items())
    ]


def expected_calibration_error(binned: Sequence[ReliabilityBin]) -> float | None:
    """The count-weighted mean gap between confidence and the share correct."""
    total = sum(b.count for b in binned)
    if not total:
        return None
    return sum(b.count * abs(b.correct - b.mean_score) for b in binned) / total
