"""Reading the audit log for monitoring: one compact row per ``ask`` or ``score`` event.

The store pulls the numbers out of each payload and streams them
(:class:`~assay.store.repositories.MonitorRepository`), so a window over a log of 100k
events never builds the events' full payloads in Python. What an event counts as:

* **score**: for an ``ask``, the set confidence the router used, as
  ``Response.as_dict()["confidence"]["score"]`` reports it: the calibrated value when a
  set map applied (``calibration.set.value``), else ``signals.composite``. For a
  ``score`` event, the highest confidence among its admitted items (0.0 if none).
* **abstained**: an ``ask`` whose status is ``abstained_retrieval``,
  ``abstained_citation``, ``abstained_judge`` or ``refused``; an ``ask`` recorded by
  ``Assay.assess`` (no answer, so no status) that routed to ``refuse`` or admitted
  nothing; a ``score`` event that admitted nothing.
* **label**: the score's confidence label under the label bands of the policy stored
  in the payload (high / medium / low), as the response labels it.
* **strength**: the highest confidence among *all* the event's evidence items, admitted
  or not (0.0 if none). An item's confidence does not depend on any threshold, so this
  measures what retrieval found, whatever the gate, router and judge then did with it:
  drift detection uses it, so that a policy tightened by an alert cannot feed back into
  the statistic that decides when the alert closes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from assay.audit.log import iso_moment
from assay.errors import InvalidInputError
from assay.store.repositories import MonitorRepository

__all__ = [
    "ABSTAINED_STATUSES",
    "MAX_WINDOW",
    "EventRow",
    "Item",
    "check_window",
    "policies_with_events",
    "review_verdicts",
    "window_rows",
]

ABSTAINED_STATUSES = frozenset(
    {"abstained_retrieval", "abstained_citation", "abstained_judge", "refused"}
)
MAX_WINDOW = 1_000_000


class Item(NamedTuple):
    """One evidence item of an event: its source, confidence and gate verdict."""

    source: str
    confidence: float
    admitted: bool


class EventRow(NamedTuple):
    """What monitoring needs of one event (see the module docstring)."""

    seq: int
    event_id: str
    created_at: str
    kind: str
    policy_name: str
    policy_version: str
    score: float
    admitted: int
    status: str | None
    decision: str | None
    action: str | None
    fallback: bool
    abstained: bool
    label: str
    strength: float = 0.0
    items: tuple[Item, ...] = ()


def check_window(window: int | None, field: str = "window") -> int | None:
    """``window`` checked to be a number of events from 1 to :data:`MAX_WINDOW`."""
    if window is not None and (
        isinstance(window, bool) or not isinstance(window, int) or not 0 < window <= MAX_WINDOW
    ):
        raise InvalidInputError(field, window, f"give a number of events from 1 to {MAX_WINDOW}")
    return window


def window_rows(
    repo: MonitorRepository,
    *,
    policy: str | None = None,
    window: int | None = 1000,
    since: str | None = None,
    before_seq: int | None = None,
    items: bool = False,
    untightened: bool = False,
) -> Iterator[EventRow]:
    """The ``ask`` and ``score`` events of a window, oldest first.

    The window is the last ``window`` events (``None``: no count limit) of ``policy``
    (``None``: every policy) at or after ``since`` (an ISO time) and before sequence
    number ``before_seq``. ``items`` also reads each event's evidence items (for the
    per-source statistics); ``untightened`` leaves out the events served while a drift
    alert tightened the policy (:mod:`assay.monitor.tighten`).
    """
    check_window(window)
    rows = repo.window(
        policy=policy,
        window=window,
        since=None if since is None else iso_moment("since", since),
        before_seq=before_seq,
        items=items,
        untightened=untightened,
    )
    for row in rows:
        yield _row(row, items)


def policies_with_events(repo: MonitorRepository) -> list[str]:
    """Names of the policies that have ``ask`` or ``score`` events, sorted."""
    return repo.policies_with_events()


def review_verdicts(repo: MonitorRepository, after_seq: int) -> Iterator[tuple[str, str]]:
    """``(event_id, verdict)`` of every review verdict appended after ``after_seq``.

    A verdict is always appended after the event it judges, so the reviews of a window
    starting at ``after_seq`` are all among these. They come from the audit log's
    ``review`` events, written in one transaction with the ``review_queue`` row, so they
    are the same verdicts as the queue's, and covered by the hash chain.
    """
    for event_id, verdict in repo.review_verdicts(int(after_seq)):
        if isinstance(event_id, str) and verdict in ("correct", "incorrect"):
            yield event_id, str(verdict)


def _row(row: Mapping[str, Any], with_items: bool) -> EventRow:
    kind, status, decision = str(row["kind"]), _text(row["status"]), _text(row["decision"])
    score = _number(row["score"])
    admitted = int(_number(row["admitted"]))
    if kind == "ask" and status is not None:
        abstained = status in ABSTAINED_STATUSES
    elif kind == "ask":  # recorded by Assay.assess: routed, never answered
        abstained = decision == "refuse" or admitted == 0
    else:
        abstained = admitted == 0
    return EventRow(
        seq=int(row["seq"]),
        event_id=str(row["event_id"]),
        created_at=str(row["created_at"]),
        kind=kind,
        policy_name=str(row["policy_name"]),
        policy_version=str(row["policy_version"]),
        score=score,
        admitted=admitted,
        status=status,
        decision=decision,
        action=_text(row["action"]),
        fallback=bool(row["fallbacks"]),
        abstained=abstained,
        label=_label(score, row["high"], row["medium"]),
        strength=_number(row["strength"]),
        items=_items(row["items"]) if with_items else (),
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _label(score: float, high: Any, medium: Any) -> str:
    """The label :class:`assay.policy.LabelBands` gives ``score`` (low when unknown)."""
    if isinstance(high, int | float) and score >= high:
        return "high"
    if isinstance(medium, int | float) and score >= medium:
        return "medium"
    return "low"


def _items(text: Any) -> tuple[Item, ...]:
    if not isinstance(text, str):
        return ()
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return ()
    if not isinstance(parsed, list):
        return ()
    return tuple(
        Item(str(source if source is not None else "?"), _number(confidence), bool(admitted))
        for source, confidence, admitted in parsed
    )
