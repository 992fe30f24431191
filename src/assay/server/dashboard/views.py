"""What the dashboard's pages show, shaped from stored records into plain values.

Audit payloads are read defensively: an event written by an older version, or a
damaged one, is shown with what it has rather than refused. The field names follow
``assay audit show`` (:mod:`assay.cli.audit`) and :func:`assay.ask.ask_payload`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.audit import AuditEvent
from assay.calibration.store import StoredMap

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


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def set_confidence(payload: Mapping[str, Any]) -> tuple[float | None, str | None, bool]:
    """The set confidence an ``ask`` routed on (calibrated when a set map applied), its
    label under the event's policy, and whether it was calibrated."""
    calibrated = number(_dict(_dict(payload.get("calibration")).get("set")).get("value"))
    score = (
        calibrated
        if calibrated is not None
        else number(_dict(payload.get("signals")).get("composite"))
    )
    labels = _dict(payload.get("policy")).get("labels")
    return score, band_label(score, labels), calibrated is not None


def signal_rows(payload: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The set signals of an ``ask`` (numbers to 3 places, term lists joined)."""
    rows = []
    for name, value in _dict(payload.get("signals")).items():
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


def evidence_rows(payload: Mapping[str, Any]) -> list[EvidenceRow]:
    """Every evidence item of an ``ask`` or ``score`` event, in stored order."""
    rows = []
    for raw in payload.get("evidence") or []:
        if not isinstance(raw, dict):
            continue
        scores, basis = _dict(raw.get("scores")), _dict(raw.get("basis"))
        source = basis.get("source_id") or basis.get("source_kind") or raw.get("source_id")
        admitted = bool(raw.get("admitted"))
        rows.append(
            EvidenceRow(
                id=str(raw.get("id", "?")),
                source=str(source or raw.get("source_kind") or "?"),
                title=str(raw.get("title") or ""),
                text=str(raw.get("text") or ""),
                similarity=number(scores.get("similarity")),
                reliability=number(scores.get("source")),
                registry_reliability=number(basis.get("reliability")),
                freshness=number(scores.get("freshness")),
                confidence=number(raw.get("confidence")),
                label=str(raw.get("label") or ""),
                admitted=admitted,
                reason="" if admitted else str(raw.get("reason") or "excluded"),
            )
        )
    return rows


def outcome(event: AuditEvent) -> str:
    """A short summary of what an event did, for the audit trail's list."""
    p = event.payload
    if event.kind == "ask":
        decision = _dict(p.get("route")).get("decision")
        return " · ".join(str(v) for v in (decision, p.get("status")) if v) or "assessed"
    if event.kind == "score":
        counts = _dict(p.get("counts"))
        return f"{counts.get('admitted', '?')} admitted, {counts.get('excluded', '?')} excluded"
    if event.kind == "review":
        return f"review item {p.get('review_item')}: {p.get('verdict')}"
    if event.kind in ("key", "alert", "policy"):
        target = _dict(p.get("key")).get("name") or _dict(p.get("alert")).get("metric") or ""
        return f"{p.get('action', '')} {target}".replace("_", " ").strip()
    if event.kind == "calibration":
        stored = _dict(p.get("map"))
        return f"{stored.get('target', '?')} map v{stored.get('version', '?')}"
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
