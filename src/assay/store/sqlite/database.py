"""``SQLiteDatabase``: every repository of one assay SQLite file, on one connection."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from assay.store.sql.calibration import SQLCalibrationRepository
from assay.store.sql.keys import SQLKeyRepository
from assay.store.sql.review import SQLReviewRepository
from assay.store.sql.sources import SQLSourceRepository
from assay.store.sqlite.audit import SQLiteAuditRepository
from assay.store.sqlite.connection import after_commit, connect, transaction
from assay.store.sqlite.monitor import SQLiteMonitorRepository

if TYPE_CHECKING:
    from assay.store.sqlite.knowledge import SQLiteStore
    from assay.store.sqlite.tables import SQLiteTables


class SQLiteDatabase:
    """:class:`~assay.store.repositories.Database` on an SQLite file (or ``":memory:"``).

    One connection: use one instance per thread (:meth:`assay.Assay.fork`).
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        """Open (and migrate) the database; ``create=False``: it must already exist."""
        self._conn = connect(path, create=create)
        self.applied: list[str] = getattr(self._conn, "applied", [])  # migrations run just now
        self._file = None if str(path) == ":memory:" else Path(path).expanduser().resolve()
        self.sources = SQLSourceRepository(self._conn)
        self.audit = SQLiteAuditRepository(self._conn)
        self.review = SQLReviewRepository(self._conn)
        self.keys = SQLKeyRepository(self._conn)
        self.calibration = SQLCalibrationRepository(self._conn)
        self.monitor = SQLiteMonitorRepository(self._conn)

    @cached_property
    def knowledge(self) -> SQLiteStore:
        """The knowledge base, opened on first use (it loads numpy; scoring never reads it)."""
        from assay.store.sqlite.knowledge import SQLiteStore

        return SQLiteStore(self._conn, self._file)

    @cached_property
    def tables(self) -> SQLiteTables:
        """Whole-table reads and writes, for ``assay db copy``."""
        from assay.store.sqlite.tables import SQLiteTables

        return SQLiteTables(self._conn)

    def unit_of_work(self) -> AbstractContextManager[object]:
        """One write transaction; inside another it joins that one."""
        return transaction(self._conn)

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the open unit of work commits (now, when none is open)."""
        after_commit(self._conn, callback)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
