"""Numbered schema migrations of the assay database.

Each migration is a function registered in order with :func:`migration`; it runs
inside one transaction together with the row that records it in
``_assay_migrations``, so a failed migration leaves the schema as it was. Never
edit a released migration: add a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(fn: Migration) -> Migration:
    """Register ``fn`` as the next migration; its name is its identity."""
    MIGRATIONS.append((fn.__name__, fn))
    return fn


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded; return the names applied now.

    A database that holds other tables but no migration record belongs to some other
    application: it is refused rather than filled with assay's tables.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and "_assay_migrations" not in tables:
        raise sqlite3.DatabaseError(
            f"it holds other tables ({', '.join(sorted(tables)[:3])}) and is not an assay database"
        )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _assay_migrations ("
        " name TEXT PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (datetime('now')))"
    )
    applied = []
    for name, fn in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")  # check under the write lock: another process may race
        done = conn.execute("SELECT 1 FROM _assay_migrations WHERE name = ?", (name,)).fetchone()
        if done:
            conn.execute("COMMIT")
            continue
        try:
            fn(conn)
            conn.execute("INSERT INTO _assay_migrations (name) VALUES (?)", (name,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        applied.append(name)
    return applied


BUILTIN_KINDS = (
    # name, default reliability (E3), review interval in days
    ("official", 1.0, 365),
    ("verified_kb", 0.9, 180),
    ("internal_wiki", 0.7, 90),
    ("customer", 0.4, 90),
    ("unverified", 0.3, 30),
)


@migration
def m001_source_registry(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE source_kinds (
            name TEXT PRIMARY KEY,
            reliability REAL NOT NULL CHECK (reliability BETWEEN 0 AND 1),
            review_interval_days INTEGER NOT NULL CHECK (review_interval_days > 0),
            builtin INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )"""
    )
    conn.executemany("INSERT INTO source_kinds VALUES (?, ?, ?, 1, datetime('now'))", BUILTIN_KINDS)
    conn.execute(
        """CREATE TABLE sources (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL REFERENCES source_kinds(name),
            reliability REAL NOT NULL CHECK (reliability BETWEEN 0 AND 1),
            name TEXT,
            owner TEXT,
            jurisdiction TEXT,
            court_level TEXT,
            overruled INTEGER NOT NULL DEFAULT 0,
            retired INTEGER NOT NULL DEFAULT 0,
            review_interval_days INTEGER NOT NULL CHECK (review_interval_days > 0),
            reviewed_at TEXT,
            metadata TEXT NOT NULL DEFAULT '{}',
            version INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE source_history (
            id INTEGER PRIMARY KEY,
            source_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            action TEXT NOT NULL,
            changed_at TEXT NOT NULL,
            actor TEXT,
            note TEXT,
            snapshot TEXT NOT NULL,
            UNIQUE (source_id, version)
        )"""
    )
    _append_only(conn, "source_history")


@migration
def m002_audit_log(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE audit_events (
            seq INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            kind TEXT NOT NULL,
            query TEXT NOT NULL,
            query_hash TEXT NOT NULL,
            policy_name TEXT NOT NULL,
            policy_version TEXT NOT NULL,
            payload TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            row_hash TEXT NOT NULL UNIQUE
        )"""
    )
    conn.execute("CREATE INDEX audit_events_created ON audit_events(created_at)")
    conn.execute("CREATE INDEX audit_events_policy ON audit_events(policy_name)")
    # Someone editing the file directly can still rewrite history; `assay audit verify`
    # then finds it through the hash chain.
    _append_only(conn, "audit_events")


def _append_only(conn: sqlite3.Connection, table: str) -> None:
    """Triggers that make ``table`` refuse UPDATE and DELETE."""
    for op in ("UPDATE", "DELETE"):
        conn.execute(
            f"""CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table}
            BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"""
        )


@migration
def m003_knowledge_base(conn: sqlite3.Connection) -> None:
    from assay.store.sqlite.schema import create_schema  # the store package owns its SQL

    create_schema(conn)


@migration
def m004_review_queue(conn: sqlite3.Connection) -> None:
    # J6: answers routed to human_review wait here; their verdicts become calibration labels.
    conn.execute(
        """CREATE TABLE review_queue (
            id INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            query TEXT NOT NULL,
            answer TEXT NOT NULL,
            reason TEXT NOT NULL,
            confidence_score REAL NOT NULL CHECK (confidence_score BETWEEN 0 AND 1),
            assessment TEXT NOT NULL,
            policy_name TEXT NOT NULL,
            policy_version TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'resolved')),
            verdict TEXT CHECK (verdict IS NULL OR verdict IN ('correct', 'incorrect')),
            note TEXT,
            resolved_at TEXT,
            resolution_event_id TEXT
        )"""
    )
    conn.execute("CREATE INDEX review_queue_status ON review_queue(status)")


@migration
def m005_calibration_maps(conn: sqlite3.Connection) -> None:
    # E11/R6/J7: score maps fitted on labels, versioned per (target, model and prompt key).
    # An audit row names the map it applied by id, so maps are never edited: refit, and
    # the next version is stored beside the old one.
    conn.execute(
        """CREATE TABLE calibration_maps (
            id INTEGER PRIMARY KEY,
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
        )"""
    )
    _append_only(conn, "calibration_maps")


@migration
def m006_api_keys(conn: sqlite3.Connection) -> None:
    # B4: keys of the HTTP API. Only a sha256 of each secret is kept (the secrets are
    # 256-bit random, so a slow password hash adds nothing); a revoked key stays listed.
    conn.execute(
        """CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            roles TEXT NOT NULL,
            secret_sha256 TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        )"""
    )


@migration
def m007_monitor_alerts(conn: sqlite3.Connection) -> None:
    # R10/J9/E12: drift alerts, opened by the monitor and closed when the drift is gone.
    conn.execute(
        """CREATE TABLE monitor_alerts (
            id INTEGER PRIMARY KEY,
            policy_name TEXT NOT NULL,
            metric TEXT NOT NULL,
            opened_at TEXT NOT NULL,
            closed_at TEXT,
            baseline REAL NOT NULL,
            current REAL NOT NULL,
            statistic REAL NOT NULL,
            p_value REAL,
            detail TEXT NOT NULL DEFAULT '{}',
            tightened_by REAL
        )"""
    )
    conn.execute("CREATE INDEX monitor_alerts_open ON monitor_alerts(closed_at, policy_name)")


@migration
def m008_audit_actor(conn: sqlite3.Connection) -> None:
    # B4: who caused an event (an API key id; NULL for the local command line). The row
    # hash covers the actor whenever one is set, so it cannot be changed unnoticed.
    conn.execute("ALTER TABLE audit_events ADD COLUMN actor TEXT")
    conn.execute("CREATE INDEX audit_events_actor ON audit_events(actor)")


@migration
def m009_audit_seal(conn: sqlite3.Connection) -> None:
    # B2: with an audit key, each row's HMAC seal of its row_hash. Outside the hash (it
    # seals the hash); NULL for rows written without a key (see assay.audit.seal).
    conn.execute("ALTER TABLE audit_events ADD COLUMN seal TEXT")


@migration
def m010_dashboard_sessions(conn: sqlite3.Connection) -> None:
    # B4: a dashboard login exchanges the API key for a session: a random id (only its
    # sha256 kept), an expiry, revoked at logout; the key's own revocation ends it too.
    conn.execute(
        """CREATE TABLE dashboard_sessions (
            id_sha256 TEXT PRIMARY KEY,
            key_id TEXT NOT NULL REFERENCES api_keys(id),
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            closed_at TEXT
        )"""
    )
    conn.execute("CREATE INDEX dashboard_sessions_key ON dashboard_sessions(key_id)")


@migration
def m011_audit_schema_version(conn: sqlite3.Connection) -> None:
    """The version of the payload's record schema (``assay.events``); rows written
    before it have none, and their hashes do not include it."""
    conn.execute("ALTER TABLE audit_events ADD COLUMN schema_version INTEGER")


@migration
def m012_lexicon(conn: sqlite3.Connection) -> None:
    """Lexical search moves from FTS5 to the BM25 postings of ``assay.store.sql.lexicon``
    (the same ranking on both backends, and bounded work at a million chunks)."""
    from assay.store.sql.lexicon import Lexicon

    conn.execute(
        "CREATE TABLE kb_lexicon_blocks ("
        " block INTEGER PRIMARY KEY, chunks INTEGER NOT NULL, terms INTEGER NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE kb_postings ("
        " term TEXT NOT NULL, block INTEGER NOT NULL, postings BLOB NOT NULL,"
        " PRIMARY KEY (term, block)"
        ") WITHOUT ROWID"
    )
    conn.execute("CREATE INDEX kb_postings_block ON kb_postings(block)")
    Lexicon(conn).index_all()
    conn.execute("DROP TRIGGER kb_chunks_fts_insert")
    conn.execute("DROP TRIGGER kb_chunks_fts_delete")
    conn.execute("DROP TABLE kb_chunks_fts")


@migration
def m013_vector_deltas(conn: sqlite3.Connection) -> None:
    """What a vector matrix file needs to catch up with a write by reading only what
    changed (``assay.store.sqlite.vectors``): every deleted chunk, and where each
    generation of the knowledge base ends."""
    from assay.store.sqlite.knowledge import NEW_GENERATION

    conn.execute("CREATE TABLE kb_chunk_deletions (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL)")
    conn.execute(
        "CREATE TRIGGER kb_chunks_deletions AFTER DELETE ON kb_chunks BEGIN"
        " INSERT INTO kb_chunk_deletions (seq) VALUES (old.seq); END"
    )
    conn.execute(
        "CREATE TABLE kb_generations (generation TEXT PRIMARY KEY,"
        " last_seq INTEGER NOT NULL, last_deletion INTEGER NOT NULL)"
    )
    generation = conn.execute("SELECT value FROM kb_meta WHERE key = 'generation'").fetchone()[0]
    conn.execute(NEW_GENERATION, (generation,))


@migration
def m014_source_supersedes(conn: sqlite3.Connection) -> None:
    """A source may name the source it supersedes (a new version of a policy names the
    old one); checked by the registry, not by a foreign key, so that a copy of the table
    may arrive in any order."""
    conn.execute("ALTER TABLE sources ADD COLUMN supersedes TEXT")
    conn.execute("CREATE INDEX sources_supersedes ON sources(supersedes)")


@migration
def m015_audit_sealed_index(conn: sqlite3.Connection) -> None:
    """The sealed rows, indexed: whether a log is sealed (its first sealed row) is asked
    before every append made without the audit key, and must not scan the log."""
    conn.execute("CREATE INDEX audit_events_sealed ON audit_events(seq) WHERE seal IS NOT NULL")


@migration
def m016_key_min_severity(conn: sqlite3.Connection) -> None:
    """A key may carry the mildest severity it may ask under (a floor; NULL: any)."""
    conn.execute("ALTER TABLE api_keys ADD COLUMN min_severity TEXT")


@migration
def m017_review_correction(conn: sqlite3.Connection) -> None:
    """A reviewer who marks an answer incorrect may write the right one."""
    conn.execute("ALTER TABLE review_queue ADD COLUMN correction TEXT")


@migration
def m018_document_content_index(conn: sqlite3.Connection) -> None:
    """Documents by source and content hash: ingestion asks, for every new document,
    whether its source already holds the same text under another path or upload."""
    conn.execute("CREATE INDEX kb_documents_content ON kb_documents(source_id, content_hash)")


@migration
def m019_access_labels(conn: sqlite3.Connection) -> None:
    """Access labels (``assay.access``): a document's as a JSON list, each chunk's as
    the id of its label set, so that search filters on one small integer; and the labels
    each API key is granted."""
    conn.execute("ALTER TABLE kb_documents ADD COLUMN access TEXT NOT NULL DEFAULT '[]'")
    conn.execute("ALTER TABLE kb_chunks ADD COLUMN access_set INTEGER NOT NULL DEFAULT 0")
    conn.execute(
        "CREATE TABLE kb_access_sets (id INTEGER PRIMARY KEY, labels TEXT NOT NULL UNIQUE)"
    )
    conn.execute(
        "CREATE INDEX kb_chunks_access ON kb_chunks(access_set, seq) WHERE access_set != 0"
    )
    conn.execute("ALTER TABLE api_keys ADD COLUMN grants TEXT NOT NULL DEFAULT '[]'")
