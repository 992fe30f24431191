"""The timeline of a window (R10): events per hour, or per day, for a dashboard chart."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from assay.monitor.events import EventRow, window_rows
from assay.store.repositories import MonitorRepository

__all__ = [
    "DEFAULT_WINDOW",
    "Timeline",
    "TimelineBucket",
    "TimelineBuilder",
    "build_timeline",
    "resolve_window",
]

DEFAULT_WINDOW = 1000
_DAY_SPAN = timedelta(days=3)  # a window longer than this is charted by day, not hour


def resolve_window(window: int | None, since: str | None) -> int | None:
    """The event limit in force: ``window`` if given, else 1000 without ``since`` and
    no limit with it (every event since that time)."""
    if window is not None:
        return window
    return None if since is not None else DEFAULT_WINDOW


@dataclass(frozen=True, slots=True)
class TimelineBucket:
    """One hour or day of events: how many, their mean score, how many abstained."""

    start: str
    count: int
    mean_score: float | None
    abstentions: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "start": self.start,
            "count": self.count,
            "mean_score": _round(self.mean_score),
            "abstentions": self.abstentions,
        }


@dataclass(frozen=True, slots=True)
class Timeline:
    """Consecutive buckets (empty ones included) from the window's first event to its last;
    by ``hour``, or by ``day`` when the window spans more than three days."""

    granularity: str
    buckets: tuple[TimelineBucket, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"granularity": self.granularity, "buckets": [b.to_dict() for b in self.buckets]}


def build_timeline(
    repo: MonitorRepository,
    *,
    policy: str | None = None,
    window: int | None = None,
    since: str | None = None,
) -> Timeline:
    """Only the timeline of :func:`assay.monitor.report.build_report`'s window (cheaper:
    no evidence items are read)."""
    hours = TimelineBuilder()
    for row in window_rows(repo, policy=policy, window=resolve_window(window, since), since=since):
        hours.add(row)
    return hours.timeline()


class TimelineBuilder:
    """Counts events per UTC hour as they stream past; :meth:`timeline` merges the hours
    into days when the window spans more than three days."""

    def __init__(self) -> None:
        self.buckets: dict[datetime, list[float]] = {}  # start -> [count, score sum, abstained]

    def add(self, row: EventRow) -> None:
        """Count one event."""
        start = _parse(row.created_at).replace(minute=0, second=0, microsecond=0)
        bucket = self.buckets.setdefault(start, [0, 0.0, 0])
        bucket[0] += 1
        bucket[1] += row.score
        bucket[2] += row.abstained

    def timeline(self) -> Timeline:
        """The buckets from the first event's to the last's, empty ones included."""
        if not self.buckets:
            return Timeline("hour")
        first, last = min(self.buckets), max(self.buckets)
        by_day = last - first > _DAY_SPAN
        step = timedelta(days=1) if by_day else timedelta(hours=1)
        merged: dict[datetime, list[float]] = {}
        for start, (count, total, abstained) in self.buckets.items():
            key = start.replace(hour=0) if by_day else start
            into = merged.setdefault(key, [0, 0.0, 0])
            into[0], into[1], into[2] = into[0] + count, into[1] + total, into[2] + abstained
        out, moment = [], first.replace(hour=0) if by_day else first
        while moment <= last:
            count, total, abstained = merged.get(moment, (0, 0.0, 0))
            mean = total / count if count else None
            out.append(TimelineBucket(moment.isoformat(), int(count), mean, int(abstained)))
            moment += step
        return Timeline("day" if by_day else "hour", tuple(out))


def _parse(created_at: str) -> datetime:
    moment = datetime.fromisoformat(created_at)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
