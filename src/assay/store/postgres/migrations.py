"""Numbered schema migrations of an assay database on PostgreSQL.

The same rules as the SQLite backend's (:mod:`assay.store.sqlite.migrations`): each
migration runs in one transaction with the row that records it, a released migration is
never edited, and a database holding other tables but no record of assay's is refused.
Unlike the embedded file, a shared server is never migrated behind its operators' backs:
``assay db migrate`` applies what is pending (under an advisory lock, so two at once are
safe), and opening a database whose schema is behind fails with a message naming it.

The schema starts where SQLite's stands after its m011: the same tables and columns,
``TEXT`` for dates and JSON (the audit chain hashes the exact stored bytes), chunk
vectors in a pgvector column with an HNSW index (created when the first document fixes
the dimension), and the append-only tables guarded by triggers and revoked privileges.
m002 replaced m001's ``tsvector`` (ranked by ``ts_rank``) with the BM25 postings both
backends share (:mod:`assay.store.sql.lexicon`); m003 is SQLite's m014 (the source a
source supersedes).
"""

from __future__ import annotations

from collections.abc import Callable

from assay.errors import StorageError
from assay.store.postgres.connection import MIGRATION_LOCK, PostgresSession, redacted

Migration = Callable[[PostgresSession], None]
MIGRATIONS: list[tuple[str, Migration]] = []

APPEND_ONLY = ("source_history", "audit_events", "calibration_maps")


def migration(fn: Migration) -> Migration:
    """Register ``fn`` as the next migration; its name is its identity."""
    MIGRATIONS.append((fn.__name__, fn))
    return fn


def pending(session: PostgresSession) -> list[str]:
    """The names of the migrations not yet applied (all of them on an empty database).

    Raises :class:`StorageError` when the database holds other tables and no assay ones.
    """
    tables = {
        r["tablename"]
        for r in session.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        )
    }
    if tables and "_assay_migrations" not in tables:
        raise StorageError(
            f"cannot open assay database {redacted(session.url)}: it holds other tables "
            f"({', '.join(sorted(tables)[:3])}) and is not an assay database; "
            "give --db / ASSAY_DB an empty database or one made by `assay db migrate`"
        )
    done = set()
    if tables:
        done = {r["name"] for r in session.execute("SELECT name FROM _assay_migrations")}
    return [name for name, _ in MIGRATIONS if name not in done]


def migrate(session: PostgresSession) -> list[str]:
    """Apply every pending migration, each in its own transaction; the names applied."""
    applied = []
    for name, fn in MIGRATIONS:
        with session.unit_of_work():
            session.lock(MIGRATION_LOCK)  # another `assay db migrate` waits here
            session.execute(
                "CREATE TABLE IF NOT EXISTS _assay_migrations ("
                " name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            if session.execute(
                "SELECT 1 FROM _assay_migrations WHERE name = ?", (name,)
            ).fetchone():
                continue
            fn(session)
            session.execute("INSERT INTO _assay_migrations (name) VALUES (?)", (name,))
            applied.append(name)
    return applied


def check_current(session: PostgresSession) -> None:
    """Refuse a database whose schema is behind this version of assay."""
    missing = pending(session)
    if missing:
        raise StorageError(
            f"the assay database at {redacted(session.url)} needs {len(missing)} schema "
            f"migration(s) ({missing[0]}{', ...' if len(missing) > 1 else ''}); run "
            "`assay db migrate --db URL` once (as the role that owns the tables), then start again"
        )


BUILTIN_KINDS = (  # as SQLite's m001: name, default reliability (E3), review interval
    ("official", 1.0, 365),
    ("verified_kb", 0.9, 180),
    ("internal_wiki", 0.7, 90),
    ("customer", 0.4, 90),
    ("unverified", 0.3, 30),
)

_NOW = "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')"

_TABLES = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS unaccent;
-- English stemming without diacritics, as SQLite's FTS5 index (porter, remove_diacritics)
CREATE TEXT SEARCH CONFIGURATION assay_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION assay_english
    ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;

CREATE TABLE source_kinds (
    name TEXT PRIMARY KEY,
    reliability DOUBLE PRECISION NOT NULL CHECK (reliability BETWEEN 0 AND 1),
    review_interval_days INTEGER NOT NULL CHECK (review_interval_days > 0),
    builtin INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL REFERENCES source_kinds(name),
    reliability DOUBLE PRECISION NOT NULL CHECK (reliability BETWEEN 0 AND 1),
    name TEXT, owner TEXT, jurisdiction TEXT, court_level TEXT,
    overruled INTEGER NOT NULL DEFAULT 0,
    retired INTEGER NOT NULL DEFAULT 0,
    review_interval_days INTEGER NOT NULL CHECK (review_interval_days > 0),
    reviewed_at TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE source_history (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    source_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    action TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    actor TEXT, note TEXT,
    snapshot TEXT NOT NULL,
    UNIQUE (source_id, version)
);

CREATE TABLE audit_events (
    seq BIGINT PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    query TEXT NOT NULL,
    query_hash TEXT NOT NULL,
    policy_name TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    payload TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    row_hash TEXT NOT NULL UNIQUE,
    actor TEXT,
    seal TEXT,
    schema_version INTEGER
);
CREATE INDEX audit_events_created ON audit_events(created_at);
CREATE INDEX audit_events_policy ON audit_events(policy_name);
CREATE INDEX audit_events_actor ON audit_events(actor);
CREATE INDEX audit_events_kind ON audit_events(kind, seq);

CREATE TABLE kb_documents (
    id TEXT PRIMARY KEY,
    source_id TEXT NOT NULL REFERENCES sources(id),
    file TEXT NOT NULL,
    uri TEXT NOT NULL,
    title TEXT,
    content_hash TEXT NOT NULL,
    published TEXT,
    verified TEXT,
    chunk_count INTEGER NOT NULL,
    embedder TEXT NOT NULL,
    ingested_at TEXT NOT NULL
);
CREATE INDEX kb_documents_file ON kb_documents(file);
CREATE TABLE kb_chunks (
    seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
    source_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    title TEXT,
    location TEXT NOT NULL,
    uri TEXT NOT NULL,
    published TEXT,
    verified TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    embedding vector NOT NULL,
    lexemes tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('assay_english', text), 'A')
        || setweight(to_tsvector('assay_english', coalesce(title, '')), 'B')
    ) STORED
);
CREATE INDEX kb_chunks_document ON kb_chunks(document_id);
CREATE INDEX kb_chunks_lexemes ON kb_chunks USING gin (lexemes);
CREATE TABLE kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO kb_meta VALUES ('generation', '0');

CREATE TABLE review_queue (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    event_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    query TEXT NOT NULL,
    answer TEXT NOT NULL,
    reason TEXT NOT NULL,
    confidence_score DOUBLE PRECISION NOT NULL CHECK (confidence_score BETWEEN 0 AND 1),
    assessment TEXT NOT NULL,
    policy_name TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'resolved')),
    verdict TEXT CHECK (verdict IS NULL OR verdict IN ('correct', 'incorrect')),
    note TEXT,
    resolved_at TEXT,
    resolution_event_id TEXT
);
CREATE INDEX review_queue_status ON review_queue(status);

CREATE TABLE calibration_maps (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    target TEXT NOT NULL CHECK (target IN ('evidence', 'set', 'answer')),
    model_key TEXT NOT NULL,
    version INTEGER NOT NULL CHECK (version > 0),
    method TEXT NOT NULL,
    params TEXT NOT NULL,
    n_labels INTEGER NOT NULL CHECK (n_labels > 0),
    metrics TEXT NOT NULL,
    labels_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (target, model_key, version)
);

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    roles TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE TABLE dashboard_sessions (
    id_sha256 TEXT PRIMARY KEY,
    key_id TEXT NOT NULL REFERENCES api_keys(id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    closed_at TEXT
);
CREATE INDEX dashboard_sessions_key ON dashboard_sessions(key_id);

CREATE TABLE monitor_alerts (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    policy_name TEXT NOT NULL,
    metric TEXT NOT NULL,
    opened_at TEXT NOT NULL,
    closed_at TEXT,
    baseline DOUBLE PRECISION NOT NULL,
    current DOUBLE PRECISION NOT NULL,
    statistic DOUBLE PRECISION NOT NULL,
    p_value DOUBLE PRECISION,
    detail TEXT NOT NULL DEFAULT '{}',
    tightened_by DOUBLE PRECISION
);
CREATE INDEX monitor_alerts_open ON monitor_alerts(closed_at, policy_name);

-- monitoring reads numbers out of audit payloads: a JSON number or NULL, an array or []
CREATE FUNCTION assay_number(value jsonb) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(value) = 'number' THEN value::text::float8 END $$;
CREATE FUNCTION assay_array(value jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(value) = 'array' THEN value ELSE '[]'::jsonb END $$;

CREATE FUNCTION assay_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;
"""


@migration
def m001_assay_schema(session: PostgresSession) -> None:
    session.execute(_TABLES)
    for name, reliability, interval in BUILTIN_KINDS:
        session.execute(
            f"INSERT INTO source_kinds VALUES (?, ?, ?, 1, {_NOW})", (name, reliability, interval)
        )
    for table in APPEND_ONLY:
        # Someone with the owner's rights can still drop the triggers and rewrite rows;
        # `assay audit verify` then finds it through the hash chain (and the seals).
        session.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}"
            f" FOR EACH ROW EXECUTE FUNCTION assay_append_only();"
            f" CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}"
            f" FOR EACH STATEMENT EXECUTE FUNCTION assay_append_only();"
            f" REVOKE UPDATE, DELETE, TRUNCATE ON {table} FROM PUBLIC"
        )


@migration
def m002_lexicon(session: PostgresSession) -> None:
    """Lexical search moves from ``ts_rank`` over a ``tsvector`` to the BM25 postings of
    ``assay.store.sql.lexicon``: the same ranking as SQLite's, in bounded work."""
    from assay.store.sql.lexicon import Lexicon

    session.execute(
        "CREATE TABLE kb_lexicon_blocks ("
        " block BIGINT PRIMARY KEY, chunks INTEGER NOT NULL, terms BIGINT NOT NULL);"
        " CREATE TABLE kb_postings ("
        " term TEXT NOT NULL, block BIGINT NOT NULL, postings BYTEA NOT NULL,"
        " PRIMARY KEY (term, block));"
        " CREATE INDEX kb_postings_block ON kb_postings(block)"
    )
    Lexicon(session).index_all()
    session.execute(
        "ALTER TABLE kb_chunks DROP COLUMN lexemes; DROP TEXT SEARCH CONFIGURATION assay_english"
    )


@migration
def m003_source_supersedes(session: PostgresSession) -> None:
    """SQLite's m014: a source may name the source it supersedes (checked by the registry,
    not by a foreign key, so that ``assay db copy`` may write the rows in any order)."""
    session.execute(
        "ALTER TABLE sources ADD COLUMN supersedes TEXT;"
        " CREATE INDEX sources_supersedes ON sources(supersedes)"
    )


@migration
def m004_audit_sealed_index(session: PostgresSession) -> None:
    """SQLite's m015: the sealed rows, indexed, so that an append without the audit key
    finds out whether the log is sealed without scanning it."""
    session.execute("CREATE INDEX audit_events_sealed ON audit_events(seq) WHERE seal IS NOT NULL")


@migration
def m005_key_min_severity(session: PostgresSession) -> None:
    """SQLite's m016: a key may carry the mildest severity it may ask under."""
    session.execute("ALTER TABLE api_keys ADD COLUMN min_severity TEXT")


@migration
def m006_review_correction(session: PostgresSession) -> None:
    """SQLite's m017: a reviewer who marks an answer incorrect may write the right one."""
    session.execute("ALTER TABLE review_queue ADD COLUMN correction TEXT")


@migration
def m007_document_content_index(session: PostgresSession) -> None:
    """SQLite's m018: documents by source and content hash, for ingestion's check that
    a source does not hold the same text twice."""
    session.execute("CREATE INDEX kb_documents_content ON kb_documents(source_id, content_hash)")


@migration
def m008_access_labels(session: PostgresSession) -> None:
    """SQLite's m019: access labels on documents (a JSON list) and chunks (the id of
    their label set), and the labels each API key is granted."""
    session.execute(
        "ALTER TABLE kb_documents ADD COLUMN access TEXT NOT NULL DEFAULT '[]';"
        " ALTER TABLE kb_chunks ADD COLUMN access_set BIGINT NOT NULL DEFAULT 0;"
        " CREATE TABLE kb_access_sets ("
        " id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, labels TEXT NOT NULL UNIQUE);"
        " CREATE INDEX kb_chunks_access ON kb_chunks(access_set);"
        " ALTER TABLE api_keys ADD COLUMN grants TEXT NOT NULL DEFAULT '[]'"
    )


@migration
def m009_access_counts(session: PostgresSession) -> None:
    """How many chunks each label set holds (0: unlabelled), kept exact by statement
    triggers in the transaction that writes the chunks, so that a filtered search learns
    a grant's size from a few rows instead of counting the grant's chunks each time (at
    100,000 chunks that count cost 4-8 ms twice a hybrid search). The counts choose how a
    search runs, never which chunks it may return. Two indexes let lexical search check
    labels without reading the table: the label index takes the seq along (a small
    grant's chunks, listed), and the seqs carry their label set (a page of candidates,
    checked; at 1M chunks 1,024 of them took 22 ms through the table, 10 without it)."""
    session.execute(
        "DROP INDEX kb_chunks_access;"
        " CREATE INDEX kb_chunks_access ON kb_chunks(access_set, seq);"
        " CREATE INDEX kb_chunks_seq_access ON kb_chunks(seq) INCLUDE (access_set);"
        " CREATE TABLE kb_access_counts ("
        " access_set BIGINT PRIMARY KEY, chunks BIGINT NOT NULL CHECK (chunks >= 0));"
        " INSERT INTO kb_access_counts"
        " SELECT access_set, COUNT(*) FROM kb_chunks GROUP BY access_set;"
        " CREATE FUNCTION assay_access_counts() RETURNS trigger LANGUAGE plpgsql AS $$"
        " BEGIN"
        "   IF TG_OP IN ('UPDATE', 'DELETE') THEN"
        "     UPDATE kb_access_counts c SET chunks = c.chunks - o.n"
        "     FROM (SELECT access_set, COUNT(*) AS n FROM old_chunks GROUP BY access_set) o"
        "     WHERE c.access_set = o.access_set;"
        "   END IF;"
        "   IF TG_OP IN ('UPDATE', 'INSERT') THEN"
        "     INSERT INTO kb_access_counts"
        "     SELECT access_set, COUNT(*) FROM new_chunks GROUP BY access_set"
        "     ON CONFLICT (access_set)"
        "     DO UPDATE SET chunks = kb_access_counts.chunks + EXCLUDED.chunks;"
        "   END IF;"
        "   RETURN NULL;"
        " END $$;"
        " CREATE TRIGGER kb_chunks_counted_insert AFTER INSERT ON kb_chunks"
        " REFERENCING NEW TABLE AS new_chunks"
        " FOR EACH STATEMENT EXECUTE FUNCTION assay_access_counts();"
        " CREATE TRIGGER kb_chunks_counted_update AFTER UPDATE ON kb_chunks"
        " REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks"
        " FOR EACH STATEMENT EXECUTE FUNCTION assay_access_counts();"
        " CREATE TRIGGER kb_chunks_counted_delete AFTER DELETE ON kb_chunks"
        " REFERENCING OLD TABLE AS old_chunks"
        " FOR EACH STATEMENT EXECUTE FUNCTION assay_access_counts()"
    )


@migration
def m010_label_indexes(session: PostgresSession) -> None:
    """The partial HNSW indexes an operator built for large access labels
    (:mod:`assay.store.postgres.label_indexes`): each label's index name, the label sets
    its predicate covers (a JSON list) and how many chunks they held when it was built."""
    session.execute(
        "CREATE TABLE kb_label_indexes ("
        " label TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, sets TEXT NOT NULL,"
        " chunks BIGINT NOT NULL, built TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
