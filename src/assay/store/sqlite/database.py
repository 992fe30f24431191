"""``SQLiteDatabase``: every repository of one assay SQLite file, on one connection."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from assay.store.sqlite.audit import SQLiteAuditRepository
from assay.store.sqlite.calibration import SQLiteCalibrationRepository
from assay.store.sqlite.connection import connect, transaction
from assay.store.sqlite.keys import SQLiteKeyRepository
from assay.store.sqlite.knowledge import SQLiteStore
from assay.store.sqlite.monitor import SQLiteMonitorRepository
from assay.store.sqlite.review import SQLiteReviewRepository
from assay.store.sqlite.sources import SQLiteSourceRepository


class SQLiteDatabase:
    """:class:`~assay.store.repositories.Database` on an SQLite file (or ``":memory:"``).

    One connection: use one instance per thread (:meth:`assay.Assay.fork`).
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        """Open (and migrate) the database; ``create=False``: it must already exist."""
        self._conn = connect(path, create=create)
        self.knowledge = SQLiteStore(self._conn)
        self.sources = SQLiteSourceRepository(self._conn)
        self.audit = SQLiteAuditRepository(self._conn)
        self.review = SQLiteReviewRepository(self._conn)
        self.keys = SQLiteKeyRepository(self._conn)
        self.calibration = SQLiteCalibrationRepository(self._conn)
        self.monitor = SQLiteMonitorRepository(self._conn)

    def unit_of_work(self) -> AbstractContextManager[object]:
        """One write transaction; inside another it joins that one."""
        return transaction(self._conn)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
