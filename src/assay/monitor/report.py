"""Rolling statistics of a window of the audit log (R10): what a dashboard shows.

:func:`build_report` streams the window's ``ask`` and ``score`` events once
(:func:`assay.monitor.events.window_rows`) and returns, overall and per policy, the
score distribution, the decision, status and judge-action mixes, the fallback and
abstention rates; per source, the confidences of its evidence items; the review
verdicts by confidence band; and a timeline for a chart. Every result is a frozen
dataclass with ``to_dict()``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.monitor.events import EventRow, review_verdicts, window_rows
from assay.monitor.stats import Distribution, Mix
from assay.monitor.timeline import Timeline, TimelineBuilder, resolve_window
from assay.store.repositories import MonitorRepository

__all__ = [
    "BandFeedback",
    "MonitorReport",
    "SourceStats",
    "WindowStats",
    "build_report",
    "summarize",
]

BANDS = ("high", "medium", "low")


@dataclass(frozen=True, slots=True)
class WindowStats:
    """The statistics of one set of events (a window, or one policy's part of it).

    ``fallback_rate`` is over ``ask`` events; ``abstention_rate`` over all events.
    """

    events: int
    asks: int
    scores: int
    first_seq: int | None
    last_seq: int | None
    first_at: str | None
    last_at: str | None
    policy_versions: tuple[str, ...]
    score: Distribution
    decisions: Mix
    statuses: Mix
    actions: Mix
    fallbacks: int
    abstentions: int

    @property
    def fallback_rate(self) -> float | None:
        """Share of ``ask`` events whose response took a fallback."""
        return self.fallbacks / self.asks if self.asks else None

    @property
    def abstention_rate(self) -> float | None:
        """Share of events that gave no answer (or admitted nothing)."""
        return self.abstentions / self.events if self.events else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "events": self.events,
            "asks": self.asks,
            "scores": self.scores,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "first_at": self.first_at,
            "last_at": self.last_at,
            "policy_versions": list(self.policy_versions),
            "score": self.score.to_dict(),
            "decisions": self.decisions.to_dict(),
            "statuses": self.statuses.to_dict(),
            "actions": self.actions.to_dict(),
            "fallbacks": self.fallbacks,
            "fallback_rate": _round(self.fallback_rate),
            "abstentions": self.abstentions,
            "abstention_rate": _round(self.abstention_rate),
        }


def summarize(rows: Iterable[EventRow]) -> WindowStats:
    """The :class:`WindowStats` of ``rows`` (oldest first)."""
    acc = _Accumulator()
    for row in rows:
        acc.add(row)
    return acc.stats()


@dataclass(frozen=True, slots=True)
class SourceStats:
    """The evidence items of one source (``source_id``, else ``source_kind``)."""

    source: str
    items: int
    admitted: int
    confidence: Distribution

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "source": self.source,
            "items": self.items,
            "admitted": self.admitted,
            "admitted_rate": _round(self.admitted / self.items if self.items else None),
            "confidence": self.confidence.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class BandFeedback:
    """Reviewers' verdicts on the events of one confidence band."""

    band: str
    reviewed: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        """Share judged correct; ``None`` when nothing in the band was reviewed."""
        return self.correct / self.reviewed if self.reviewed else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "band": self.band,
            "reviewed": self.reviewed,
            "correct": self.correct,
            "accuracy": _round(self.accuracy),
        }


@dataclass(frozen=True, slots=True)
class MonitorReport:
    """Everything :func:`build_report` found in one window."""

    policy: str | None
    window: int | None
    since: str | None
    overall: WindowStats
    by_policy: Mapping[str, WindowStats] = field(default_factory=dict)
    by_source: tuple[SourceStats, ...] = ()
    feedback: tuple[BandFeedback, ...] = ()
    timeline: Timeline = field(default_factory=lambda: Timeline("hour"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the ``assay monitor report --json`` output)."""
        return {
            "policy": self.policy,
            "window": self.window,
            "since": self.since,
            "overall": self.overall.to_dict(),
            "by_policy": {name: s.to_dict() for name, s in sorted(self.by_policy.items())},
            "by_source": [s.to_dict() for s in self.by_source],
            "feedback": [f.to_dict() for f in self.feedback],
            "timeline": self.timeline.to_dict(),
        }


def build_report(
    repo: MonitorRepository,
    *,
    policy: str | None = None,
    window: int | None = None,
    since: str | None = None,
) -> MonitorReport:
    """The statistics of the last ``window`` events of ``policy`` since ``since``.

    ``window`` defaults to 1000 events, or to every event since ``since`` when that is
    given (:func:`resolve_window`); ``policy`` ``None`` covers every policy.
    """
    limit = resolve_window(window, since)
    overall, per_policy = _Accumulator(), defaultdict[str, _Accumulator](_Accumulator)
    sources: dict[str, list[float]] = defaultdict(list)
    admitted: Counter[str] = Counter()
    labels: dict[str, str] = {}
    hours = TimelineBuilder()
    for row in window_rows(repo, policy=policy, window=limit, since=since, items=True):
        overall.add(row)
        per_policy[row.policy_name].add(row)
        labels[row.event_id] = row.label
        hours.add(row)
        for item in row.items:
            sources[item.source].append(item.confidence)
            admitted[item.source] += item.admitted
    stats = overall.stats()
    by_source = sorted(
        (SourceStats(s, len(v), admitted[s], Distribution.of(v)) for s, v in sources.items()),
        key=lambda s: (-s.items, s.source),
    )
    return MonitorReport(
        policy=policy,
        window=limit,
        since=since,
        overall=stats,
        by_policy={name: acc.stats() for name, acc in per_policy.items()},
        by_source=tuple(by_source),
        feedback=_feedback(repo, labels, stats.first_seq),
        timeline=hours.timeline(),
    )


class _Accumulator:
    """Adds up :class:`EventRow`s into a :class:`WindowStats` in one pass."""

    def __init__(self) -> None:
        self.rows = self.asks = self.fallbacks = self.abstentions = 0
        self.first: EventRow | None = None
        self.last: EventRow | None = None
        self.scores: list[float] = []
        self.versions: dict[str, None] = {}
        self.decisions: Counter[str] = Counter()
        self.statuses: Counter[str] = Counter()
        self.actions: Counter[str] = Counter()

    def add(self, row: EventRow) -> None:
        self.rows += 1
        self.first = self.first or row
        self.last = row
        self.scores.append(row.score)
        self.versions[row.policy_version] = None
        self.abstentions += row.abstained
        if row.kind == "ask":
            self.asks += 1
            self.fallbacks += row.fallback
            for counter, value in (
                (self.decisions, row.decision),
                (self.statuses, row.status),
                (self.actions, row.action),
            ):
                if value is not None:
                    counter[value] += 1

    def stats(self) -> WindowStats:
        first, last = self.first, self.last
        return WindowStats(
            events=self.rows,
            asks=self.asks,
            scores=self.rows - self.asks,
            first_seq=first.seq if first else None,
            last_seq=last.seq if last else None,
            first_at=first.created_at if first else None,
            last_at=last.created_at if last else None,
            policy_versions=tuple(self.versions),
            score=Distribution.of(self.scores),
            decisions=Mix(dict(self.decisions)),
            statuses=Mix(dict(self.statuses)),
            actions=Mix(dict(self.actions)),
            fallbacks=self.fallbacks,
            abstentions=self.abstentions,
        )


def _feedback(
    repo: MonitorRepository, labels: Mapping[str, str], first_seq: int | None
) -> tuple[BandFeedback, ...]:
    """Verdicts on the window's events, by the confidence label each event had."""
    reviewed: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    if first_seq is not None:
        for event_id, verdict in review_verdicts(repo, first_seq - 1):
            band = labels.get(event_id)
            if band is not None:
                reviewed[band] += 1
                correct[band] += verdict == "correct"
    return tuple(BandFeedback(b, reviewed[b], correct[b]) for b in BANDS)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
