"""The audit log's rows on PostgreSQL: the shared SQL, one appender at a time, raw rows."""

from __future__ import annotations

from collections.abc import Iterator

from assay.errors import StorageError
from assay.store.postgres.connection import AUDIT_APPEND_LOCK, PostgresSession
from assay.store.records import AuditRow
from assay.store.sql.audit import COLUMNS, SQLAuditRepository


class PostgresAuditRepository(SQLAuditRepository):
    """:class:`~assay.store.repositories.AuditRepository` on one PostgreSQL session.

    Any number of processes, on any number of machines, append to one chain: reading the
    head to append after it takes an advisory lock held until the appending transaction
    ends, so the next appender reads the row this one wrote (no fork, no gap).
    """

    def __init__(self, session: PostgresSession) -> None:
        super().__init__(session)
        self._session = session

    def head(self, *, for_append: bool = False) -> tuple[int, str] | None:
        if for_append:
            self._session.lock(AUDIT_APPEND_LOCK)
        return super().head()

    def raw_rows(self) -> Iterator[AuditRow]:
        """Every row oldest first, text columns as their UTF-8 bytes (as SQLite's reader
        gives them), read in pages so a long log is never held whole."""
        after = 0
        while True:
            try:
                page = self._conn.execute(
                    f"SELECT {COLUMNS} FROM audit_events WHERE seq > ? ORDER BY seq LIMIT 1000",
                    (after,),
                ).fetchall()
            except StorageError as exc:  # a dropped or damaged table
                raise StorageError(f"audit table cannot be read ({exc})") from exc
            if not page:
                return
            for row in page:
                yield {k: v.encode() if isinstance(v, str) else v for k, v in row.items()}
            after = int(page[-1]["seq"])
