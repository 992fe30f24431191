"""The server backend: every repository of assay on PostgreSQL with pgvector.

``connection`` (the pool, sessions, the unit of work, advisory locks), ``migrations``
(the numbered schema, applied by ``assay db migrate``), ``knowledge`` (HNSW and full-text
search), ``audit`` and ``monitor`` (what differs from the shared SQL of
:mod:`assay.store.sql`) and ``database`` (all of them on one session). Needs the
``postgres`` extra (psycopg 3 and its pool).
"""

from assay.store.postgres.connection import PostgresSession
from assay.store.postgres.database import PostgresDatabase
from assay.store.postgres.knowledge import PostgresStore
from assay.store.postgres.migrations import migrate

__all__ = ["PostgresDatabase", "PostgresSession", "PostgresStore", "migrate"]
