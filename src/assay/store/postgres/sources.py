"""The source registry on PostgreSQL: the shared SQL, one writer of supersession links
at a time."""

from __future__ import annotations

from assay.store.postgres.connection import SUPERSESSION_LOCK, PostgresSession
from assay.store.sql.sources import SQLSourceRepository


class PostgresSourceRepository(SQLSourceRepository):
    """:class:`~assay.store.repositories.SourceRepository` on one PostgreSQL session.

    Two curators linking A to B and B to A at once would each check the links without
    the other's and close a cycle between them; reading the links to add one takes an
    advisory lock held until the writing transaction ends, so the second reads the first's
    link (SQLite's write transaction holds the whole database already).
    """

    def __init__(self, session: PostgresSession) -> None:
        super().__init__(session)
        self._session = session

    def supersessions(self, *, for_update: bool = False) -> dict[str, str]:
        if for_update:
            self._session.lock(SUPERSESSION_LOCK)
        return super().supersessions()
