"""What monitoring reads from ``audit_events`` (the alerts are :mod:`assay.store.sql.monitor`).

The numbers of each ``ask``/``score`` event are pulled out of its payload by SQLite
(``json_extract``) and streamed, so a window over a log of 100k events never builds the
events' full payloads in Python; :mod:`assay.monitor.events` turns each row into an
``EventRow``. The JSON paths below are the audit payload's fields as the engine writes them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from assay.store.sql.monitor import SQLMonitor, window_filter

_FIELDS = (
    "seq, event_id, created_at, kind, policy_name, policy_version,"
    " CASE kind WHEN 'ask' THEN COALESCE(json_extract(payload, '$.calibration.set.value'),"
    "  json_extract(payload, '$.signals.composite'))"
    " ELSE (SELECT MAX(json_extract(e.value, '$.confidence'))"
    "  FROM json_each(payload, '$.evidence') AS e WHERE json_extract(e.value, '$.admitted'))"
    " END AS score,"
    " (SELECT MAX(json_extract(e.value, '$.confidence'))"
    "  FROM json_each(payload, '$.evidence') AS e) AS strength,"
    " json_extract(payload, '$.counts.admitted') AS admitted,"
    " json_extract(payload, '$.status') AS status,"
    " json_extract(payload, '$.route.decision') AS decision,"
    " json_extract(payload, '$.assessment.recommended_action') AS action,"
    " json_array_length(payload, '$.fallbacks') AS fallbacks,"
    " json_extract(payload, '$.policy.labels.high') AS high,"
    " json_extract(payload, '$.policy.labels.medium') AS medium"
)
_ITEMS = (
    ", (SELECT json_group_array(json_array("
    "  COALESCE(json_extract(e.value, '$.source_id'), json_extract(e.value, '$.source_kind')),"
    "  json_extract(e.value, '$.confidence'), json_extract(e.value, '$.admitted')))"
    "  FROM json_each(payload, '$.evidence') AS e) AS items"
)
_VERDICTS = "json_extract(payload, '$.event_id'), json_extract(payload, '$.verdict')"


class SQLiteMonitorRepository(SQLMonitor):
    """:class:`~assay.store.repositories.MonitorRepository` on one SQLite connection."""

    # -- the audit log, read for monitoring -----------------------------------
    def window(
        self,
        *,
        policy: str | None,
        window: int | None,
        since: str | None,
        before_seq: int | None,
        items: bool,
        untightened: bool,
    ) -> Iterator[Mapping[str, Any]]:
        where, args = window_filter(
            policy=policy, since=since, before_seq=before_seq, untightened=untightened
        )
        sql = f"SELECT {_FIELDS}{_ITEMS if items else ''} FROM audit_events WHERE "
        sql += where
        if window is None:
            sql += " ORDER BY seq"
        else:
            sql = f"SELECT * FROM ({sql} ORDER BY seq DESC LIMIT {int(window)}) ORDER BY seq"
        for row in self._conn.execute(sql, args):
            yield dict(row)

    def review_verdicts(self, after_seq: int) -> Iterator[tuple[Any, Any]]:
        rows = self._conn.execute(
            f"SELECT {_VERDICTS} FROM audit_events WHERE kind = 'review' AND seq > ? ORDER BY seq",
            (int(after_seq),),
        )
        yield from rows
