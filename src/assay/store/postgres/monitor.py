"""What monitoring reads from ``audit_events`` on PostgreSQL (the alerts are shared:
:mod:`assay.store.sql.alerts`).

The same fields as the SQLite backend's ``json_extract`` paths
(:mod:`assay.store.sqlite.monitor`), read with ``jsonb`` operators on the stored payload
text; ``assay_number`` and ``assay_array`` (migration m001) give NULL and ``[]`` where a
damaged payload holds something else, as SQLite's functions do.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from assay.store.postgres.connection import PostgresSession
from assay.store.sql.alerts import SQLAlerts

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


class PostgresMonitorRepository(SQLAlerts):
    """:class:`~assay.store.repositories.MonitorRepository` on one PostgreSQL session."""

    def __init__(self, session: PostgresSession) -> None:
        super().__init__(session)
        self._session = session

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
        where: list[str] = ["kind IN ('ask', 'score')"]
        args: list[str | int] = []
        if policy is not None:
            where.append("policy_name = ?")
            args.append(policy)
        if since is not None:
            where.append("created_at >= ?")
            args.append(since)
        if before_seq is not None:
            where.append("seq < ?")
            args.append(int(before_seq))
        if untightened:
            where.append("policy_version NOT LIKE '%+tightened%'")
        rows = f"SELECT * FROM audit_events WHERE {' AND '.join(where)} ORDER BY seq"
        if window is not None:
            rows += f" DESC LIMIT {int(window)}"
        sql = (
            f"SELECT {_FIELDS}{_ITEMS if items else ''}"
            f" FROM (SELECT *, payload::jsonb AS p FROM ({rows}) AS picked) AS w ORDER BY seq"
        )
        yield from self._session.execute(sql, args)

    def policies_with_events(self) -> list[str]:
        rows = self._session.execute(
            "SELECT DISTINCT policy_name FROM audit_events WHERE kind IN ('ask', 'score')"
            " ORDER BY policy_name"
        )
        return [str(r["policy_name"]) for r in rows]

    def review_verdicts(self, after_seq: int) -> Iterator[tuple[Any, Any]]:
        rows = self._session.execute(
            "SELECT payload::jsonb ->> 'event_id' AS event_id,"
            " payload::jsonb ->> 'verdict' AS verdict"
            " FROM audit_events WHERE kind = 'review' AND seq > ? ORDER BY seq",
            (int(after_seq),),
        )
        for row in rows:
            yield row["event_id"], row["verdict"]
