"""Label indexes: a partial HNSW index over the chunks of one access label (PostgreSQL).

pgvector's HNSW index holds the vector alone, so a search filtered by access labels
walks the whole graph and reads each visited row from the table to check its label set:
for a key granted 10% of a million chunks, about 400 rows for 50 readable ones (13-62 ms,
as the page cache holds them, against 1.6 unfiltered). A label index is a second graph
over just the chunks whose label set holds one label, so a caller granted that label
walks it like an unfiltered search, reading only the rows it returns (5.3 ms there).

It is built by the operator, for a label many keys are granted whose chunks are many
thousands (a label of at most :data:`~assay.store.postgres.knowledge.EXACT_UP_TO` is
otherwise compared exactly: 9.5 ms for 10,000 of a million, 3.6 through its index) and a
small share of the whole (under about half: above that the filtered walk is already
cheap): ``assay db label-index create LABEL``. The index covers the label sets that held
the label when it was built (its predicate names them); chunks of a label set made later
are still found, through the filtered walk, until the index is built again. So an index
decides how fast a search runs, never which chunks it may return: every label set it
covers holds the label, and so is readable by whoever holds the label.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from assay.access import Access, parse_labels
from assay.errors import InvalidInputError
from assay.store.base import VectorIndexOptions
from assay.store.postgres.connection import KNOWLEDGE_WRITE_LOCK, PostgresSession


@dataclass(frozen=True, slots=True)
class LabelIndex:
    """One label's partial HNSW index: the label sets it covers (all those holding the
    label when it was built), and how many chunks they hold now and held then."""

    label: str
    name: str
    sets: tuple[int, ...]
    built: datetime
    chunks_built: int
    chunks_now: int = 0
    label_chunks_now: int = 0  #: chunks whose label set holds the label, covered or not

    @property
    def predicate(self) -> str:
        """The index's WHERE clause; a search that repeats it verbatim may use it."""
        return covers(self.sets)

    def as_dict(self) -> dict[str, object]:
        """As ``--json`` prints it."""
        return {
            "label": self.label, "index": self.name, "label_sets": list(self.sets),
            "built": self.built.isoformat(), "chunks_built": self.chunks_built,
            "chunks_covered": self.chunks_now, "label_chunks": self.label_chunks_now,
        }  # fmt: skip


def covers(sets: tuple[int, ...]) -> str:
    """``access_set IN (...)``: label set ids are integers read from the database, so
    they are written into the statement (an index predicate cannot take parameters)."""
    return f"access_set IN ({', '.join(str(int(s)) for s in sets)})"


def index_name(label: str) -> str:
    """A stable index name for a label (labels may hold ``.`` and ``:``)."""
    return "kb_chunks_embedding_label_" + hashlib.sha256(label.encode()).hexdigest()[:16]


def create_label_index(
    session: PostgresSession, label: str, options: VectorIndexOptions
) -> LabelIndex:
    """Build (or build again) the partial HNSW index of ``label`` over the label sets
    that hold it now. Writes to the knowledge base wait while it builds; searches go on."""
    (label,) = _one_label(label)
    with session.unit_of_work():
        session.lock(KNOWLEDGE_WRITE_LOCK)
        if session.execute("SELECT 1 FROM kb_meta WHERE key = 'dimensions'").fetchone() is None:
            raise InvalidInputError(
                "label", label, "ingest documents first: the vector column has no dimension yet",
                problem="cannot be indexed in an empty knowledge base",
            )  # fmt: skip
        sets = _sets_holding(session, label)
        if not sets:
            raise InvalidInputError(
                "label", label, "give a label some document carries (assay documents list)",
                problem="is carried by no document",
            )  # fmt: skip
        name = index_name(label)
        session.execute(f"DROP INDEX IF EXISTS {name}")
        session.execute(
            f"CREATE INDEX {name} ON kb_chunks USING hnsw (embedding vector_cosine_ops)"
            f" WITH (m = {int(options.m)}, ef_construction = {int(options.ef_construction)})"
            f" WHERE {covers(sets)}"
        )
        chunks = chunks_in(session, sets)
        session.execute(
            "INSERT INTO kb_label_indexes (label, name, sets, chunks) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (label) DO UPDATE SET name = EXCLUDED.name, sets = EXCLUDED.sets,"
            " chunks = EXCLUDED.chunks, built = now()",
            (label, name, json.dumps(sets), chunks),
        )
    return next(ix for ix in label_indexes(session, counts=True) if ix.label == label)


def drop_label_index(session: PostgresSession, label: str) -> bool:
    """Drop the label's index; False if it had none."""
    (label,) = _one_label(label)
    with session.unit_of_work():
        session.lock(KNOWLEDGE_WRITE_LOCK)
        row = session.execute(
            "DELETE FROM kb_label_indexes WHERE label = ? RETURNING name", (label,)
        ).fetchone()
        if row is None:
            return False
        session.execute(f"DROP INDEX IF EXISTS {row['name']}")
    return True


def label_indexes(session: PostgresSession, *, counts: bool = False) -> list[LabelIndex]:
    """The label indexes built, by label (``counts``: with the chunks covered now, and
    the chunks holding the label now, which a stale index no longer all covers)."""
    rows = session.execute("SELECT * FROM kb_label_indexes ORDER BY label").fetchall()
    found = []
    for row in rows:
        sets = tuple(int(s) for s in json.loads(row["sets"]))
        index = LabelIndex(row["label"], row["name"], sets, row["built"], int(row["chunks"]))
        if counts:
            holding = _sets_holding(session, index.label)
            index = replace(
                index, chunks_now=chunks_in(session, sets),
                label_chunks_now=chunks_in(session, holding),
            )  # fmt: skip
        found.append(index)
    return found


def usable(
    indexes: list[LabelIndex], access: Access | None, readable: list[int]
) -> list[LabelIndex]:
    """The indexes a search for ``access`` may walk: of a label it holds, every label set
    covered readable (always so for a held label; checked all the same)."""
    if access is None or access.everything:
        return []
    allowed = set(readable)
    return [ix for ix in indexes if ix.label in access.grants and allowed.issuperset(ix.sets)]


def _one_label(label: str) -> tuple[str]:
    labels = parse_labels([label], field="label")
    if len(labels) != 1:
        raise InvalidInputError("label", label, "give one access label, e.g. hr")
    return (next(iter(labels)),)


def _sets_holding(session: PostgresSession, label: str) -> tuple[int, ...]:
    rows = session.execute("SELECT id, labels FROM kb_access_sets ORDER BY id").fetchall()
    return tuple(int(r["id"]) for r in rows if label in json.loads(r["labels"]))


def chunks_in(session: PostgresSession, sets: Sequence[int]) -> int:
    """How many chunks these label sets hold (the counts kept beside the label sets by
    migration m009: a few rows read, not the chunks)."""
    row = session.execute(
        "SELECT COALESCE(SUM(chunks), 0) AS n FROM kb_access_counts WHERE access_set = ANY(?)",
        (list(sets),),
    ).fetchone()
    return 0 if row is None else int(row["n"])
