"""The audit log's rows in SQLite: the shared SQL, plus reading rows as the bytes stored."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from assay.errors import StorageError
from assay.store.records import AuditRow
from assay.store.sql.audit import COLUMNS, SQLAuditRepository


class SQLiteAuditRepository(SQLAuditRepository):
    """:class:`~assay.store.repositories.AuditRepository` on one SQLite connection.

    Appends need no lock of their own: the unit of work holds SQLite's write lock.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._raw = conn

    def raw_rows(self) -> Iterator[AuditRow]:
        factory = self._raw.text_factory
        self._raw.text_factory = bytes
        try:
            rows = self._raw.execute(f"SELECT {COLUMNS} FROM audit_events ORDER BY seq")
            yield from (dict(row) for row in rows)
        except sqlite3.DatabaseError as exc:  # a dropped or damaged table
            raise StorageError(f"audit table cannot be read ({exc})") from exc
        finally:
            self._raw.text_factory = factory
