"""``PostgresDatabase``: every repository of one assay database on a PostgreSQL server."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from assay.store.base import VectorIndexOptions
from assay.store.postgres.audit import PostgresAuditRepository
from assay.store.postgres.connection import PostgresSession
from assay.store.postgres.knowledge import PostgresStore
from assay.store.postgres.migrations import check_current
from assay.store.postgres.monitor import PostgresMonitorRepository
from assay.store.postgres.sources import PostgresSourceRepository
from assay.store.postgres.tables import PostgresTables
from assay.store.sql.calibration import SQLCalibrationRepository
from assay.store.sql.keys import SQLKeyRepository
from assay.store.sql.review import SQLReviewRepository


class PostgresDatabase:
    """:class:`~assay.store.repositories.Database` on a PostgreSQL database (by URL).

    One pooled connection: use one instance per thread (:meth:`assay.Assay.fork`), as on
    SQLite. The schema must be current (``assay db migrate``); it is checked here.
    """

    def __init__(
        self,
        url: str,
        *,
        index: VectorIndexOptions | None = None,
        pool_size: int = 10,
    ) -> None:
        """Connect, and refuse a database whose schema is behind (``assay db migrate``)."""
        self.session = PostgresSession(url, pool_size=pool_size)
        check_current(self.session)
        self.knowledge = PostgresStore(self.session, index or VectorIndexOptions())
        self.sources = PostgresSourceRepository(self.session)
        self.audit = PostgresAuditRepository(self.session)
        self.review = SQLReviewRepository(self.session)
        self.keys = SQLKeyRepository(self.session)
        self.calibration = SQLCalibrationRepository(self.session)
        self.monitor = PostgresMonitorRepository(self.session)
        self.tables = PostgresTables(self.session, self.knowledge)

    def unit_of_work(self) -> AbstractContextManager[object]:
        """One transaction; inside another it is a savepoint of that one."""
        return self.session.unit_of_work()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the open unit of work commits (now, when none is open)."""
        self.session.after_commit(callback)

    def close(self) -> None:
        """Give the connection back to the pool."""
        self.session.close()
