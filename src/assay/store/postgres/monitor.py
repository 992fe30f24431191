"""What monitoring reads from ``audit_events`` on PostgreSQL (the alerts are shared:
:mod:`assay.store.sql.monitor`).

The same fields as the SQLite backend's ``json_extract`` paths
(:mod:`assay.store.sqlite.monitor`), read with ``jsonb`` operators on the stored payload
text; ``assay_number`` and ``assay_array`` (migration m001) give NULL and ``[]`` where a
damaged payload holds something else, as SQLite's functions do.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from assay.store.sql.monitor import SQLMonitor, window_filter

_EVIDENCE = "jsonb_array_elements(assay_array(p -> 'evidence')) AS e"
_FIELDS = (
    "seq, event_id, created_at, kind, policy_name, policy_version,"
    " CASE kind WHEN 'ask' THEN COALESCE(assay_number(p #> '{calibration,set,value}'),"
    "  assay_number(p #> '{signals,composite}'))"
    f" ELSE (SELECT MAX(assay_number(e -> 'confidence')) FROM {_EVIDENCE}"
    "  WHERE e -> 'admitted' = 'true'::jsonb)"
    " END AS score,"
    f" (SELECT MAX(assay_number(e -> 'confidence')) FROM {_EVIDENCE}) AS strength,"
    " assay_number(p #> '{counts,admitted}') AS admitted,"
    " p #>> '{status}' AS status,"
    " p #>> '{route,decision}' AS decision,"
    " p #>> '{assessment,recommended_action}' AS action,"
    " jsonb_array_length(assay_array(p -> 'fallbacks')) AS fallbacks,"
    " assay_number(p #> '{policy,labels,high}') AS high,"
    " assay_number(p #> '{policy,labels,medium}') AS medium"
)
_ITEMS = (
    ", (SELECT jsonb_agg(jsonb_build_array("
    "  COALESCE(NULLIF(e -> 'source_id', 'null'), e -> 'source_kind'), e -> 'confidence',"
    "  e -> 'admitted'))"
    f"  FROM {_EVIDENCE})::text AS items"
)


class PostgresMonitorRepository(SQLMonitor):
    """:class:`~assay.store.repositories.MonitorRepository` on one PostgreSQL session."""

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
        rows = f"SELECT * FROM audit_events WHERE {where} ORDER BY seq"
        if window is not None:
            rows += f" DESC LIMIT {int(window)}"
        sql = (
            f"SELECT {_FIELDS}{_ITEMS if items else ''}"
            f" FROM (SELECT *, payload::jsonb AS p FROM ({rows}) AS picked) AS w ORDER BY seq"
        )
        yield from self._conn.execute(sql, args)

    def review_verdicts(self, after_seq: int) -> Iterator[tuple[Any, Any]]:
        rows = self._conn.execute(
            "SELECT payload::jsonb ->> 'event_id' AS event_id,"
            " payload::jsonb ->> 'verdict' AS verdict"
            " FROM audit_events WHERE kind = 'review' AND seq > ? ORDER BY seq",
            (int(after_seq),),
        )
        for row in rows:
            yield row["event_id"], row["verdict"]
