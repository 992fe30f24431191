"""``assay db copy``: a whole database into PostgreSQL and back, every row intact and the
audit chain verifying with the same head hash on each."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from assay import Assay
from assay.store.sql.tables import TABLES
from tests.conftest import AS_OF, run_cli
from tests.rawdb import RawDatabase

KB = Path(__file__).resolve().parents[2] / "examples" / "kb"
QUESTION = "What ambient temperature range is safe for charging the HX-40?"


def build(db: Path) -> None:
    """A database with something in every part: sources and history, a knowledge base,
    asks and scores in the audit log, a review item, a key."""
    with Assay(db) as engine:
        engine.sources.add("halden-sds-2026", "official", owner="Halden", reviewed_at="2026-10-15")
        engine.sources.update("halden-sds-2026", reliability=0.95, note="re-rated")
        engine.sources.add("support-wiki", "internal_wiki")
        engine.keys.create("ops", ["admin"])
    sds = run_cli("ingest", str(KB / "halden-sds-2026.md"), "--source", "halden-sds-2026", db=db)
    assert sds.exit_code == 0
    wiki = run_cli("ingest", str(KB / "support-wiki"), "--source", "support-wiki", db=db)
    assert wiki.exit_code == 0
    for policy in ("informational", "financial"):
        asked = run_cli("ask", QUESTION, "--policy", policy, "--as-of", str(AS_OF), db=db)
        assert asked.exit_code == 0


def table_rows(db: Path | str) -> dict[str, list[dict[str, object]]]:
    raw = RawDatabase(db, triggers=True)
    rows = {t.name: raw.execute(f"SELECT {', '.join(t.columns)} FROM {t.name} ORDER BY {t.key}")
            for t in TABLES}  # fmt: skip
    for row in rows["kb_chunks"]:  # each backend stores vectors its own way
        row["embedding"] = None
    for row in rows["source_kinds"]:  # built-in kinds are made by each database's migration
        if row["builtin"]:
            row["created_at"] = None
    raw.close()
    return rows


def test_b2_copy_to_postgres_and_back_keeps_every_row_and_the_audit_head(
    tmp_path: Path, postgres_url: str
) -> None:
    original = tmp_path / "original.db"
    build(original)
    head = json.loads(run_cli("audit", "verify", "--json", db=original).stdout)["head"]

    there = run_cli("db", "copy", "--from", str(original), "--to", postgres_url)
    assert there.exit_code == 0, there.stderr
    assert "audit head: seq " in there.stdout and head in there.stdout
    on_postgres = json.loads(run_cli("audit", "verify", "--json", db=postgres_url).stdout)
    assert on_postgres["ok"] and on_postgres["head"] == head

    back = tmp_path / "back.db"
    assert run_cli("db", "copy", "--from", postgres_url, "--to", str(back)).exit_code == 0
    assert json.loads(run_cli("audit", "verify", "--json", db=back).stdout)["head"] == head
    assert table_rows(back) == table_rows(original)
    assert table_rows(postgres_url) == table_rows(original)

    with Assay(original) as first, Assay(postgres_url) as second:  # the same vectors, the same hits
        ids = [c.id for c in first.store.get([h.chunk_id for h in first.store.dense_search(
            first.embedder.embed([QUESTION])[0], 8)])]  # fmt: skip
        vector = first.embedder.embed([QUESTION])[0]
        assert [h.chunk_id for h in second.store.dense_search(vector, 8)] == ids
        np.testing.assert_array_equal(first.store.vectors(ids), second.store.vectors(ids))


def test_copy_refuses_a_target_that_is_not_empty(tmp_path: Path, postgres_url: str) -> None:
    original = tmp_path / "original.db"
    with Assay(original) as engine:
        engine.sources.add("wiki", "internal_wiki")
    with Assay(postgres_url) as engine:
        engine.sources.add("other", "official")
    result = run_cli("db", "copy", "--from", str(original), "--to", postgres_url)
    assert result.exit_code == 2 and "is not empty" in result.stderr
    with Assay(postgres_url) as engine:
        assert [s.id for s in engine.sources.list()] == ["other"]


def test_copy_between_files_takes_the_uploads_along_and_names_a_missing_folder(
    tmp_path: Path,
) -> None:
    """Issue 43 (second pass): README said to move the database's files together "or
    use `assay db copy`", which left the service's uploads behind; a missing target
    folder was reported as "set --db / ASSAY_DB"."""
    (tmp_path / "a").mkdir()
    original = tmp_path / "a" / "assay.db"
    with Assay(original) as engine:
        engine.sources.add("wiki", "internal_wiki")
    (tmp_path / "a" / "uploads" / "wiki").mkdir(parents=True)
    (tmp_path / "a" / "uploads" / "wiki" / "faq.md").write_text("# FAQ\n\nKeep it dry.\n")
    missing = run_cli("db", "copy", "--from", str(original), "--to", str(tmp_path / "no" / "x.db"))
    assert missing.exit_code == 2 and "--to=" in missing.stderr and "create " in missing.stderr
    (tmp_path / "b").mkdir()
    copied = run_cli("db", "copy", "--from", str(original), "--to", str(tmp_path / "b" / "x.db"))
    assert copied.exit_code == 0, copied.output
    assert (tmp_path / "b" / "uploads" / "wiki" / "faq.md").read_text().startswith("# FAQ")
    assert "uploads:" in copied.stdout
