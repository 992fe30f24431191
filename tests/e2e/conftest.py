"""The demo knowledge base, ingested through the CLI, for the end-to-end tests."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import AS_OF, run_cli

KB = Path(__file__).resolve().parents[2] / "examples" / "kb"
SOURCES = [
    ("halden-sds-2026", "official", "Halden Power", "2026-10-15"),
    ("halden-manual-2019", "official", "Halden Power", "2019-04-11"),
    ("support-wiki", "internal_wiki", "Halden Support", "2026-09-01"),
    ("community-forum", "customer", "forum users", None),
    ("field-notes", "unverified", None, None),
]


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo knowledge base, ingested once through the CLI."""
    db = tmp_path_factory.mktemp("kb") / "assay.db"
    for source_id, kind, owner, reviewed in SOURCES:
        args = ["sources", "add", source_id, "--kind", kind]
        args += ["--owner", owner] if owner else []
        args += ["--reviewed-at", reviewed] if reviewed else []
        assert run_cli(*args, db=db).exit_code == 0
    for path, source in [
        (KB / "halden-sds-2026.md", "halden-sds-2026"),
        (KB / "support-wiki", "support-wiki"),
        (KB / "hx40-manual-2019.html", "halden-manual-2019"),
        (KB / "forum-posts.jsonl", "community-forum"),
        (KB / "field-notes.txt", "field-notes"),
    ]:
        result = run_cli("ingest", str(path), *(["--source", source] if source else []), db=db)
        assert result.exit_code == 0, result.output
    return db


def ask(db: Path, question: str, *options: str) -> dict[str, Any]:
    """``assay ask --json`` on ``db``, checked to succeed."""
    result = run_cli("ask", question, "--as-of", AS_OF.isoformat(), "--json", *options, db=db)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def knowledge_base(folder: Path, documents: dict[str, tuple[str, list[str]]]) -> Path:
    """A database in ``folder`` holding each document (file name: its text, then the
    ``sources add`` arguments of its source), ingested through the CLI."""
    db = folder / "assay.db"
    for name, (text, source) in documents.items():
        (folder / name).write_text(text)
        for args in (["sources", "add", *source], ["ingest", str(folder / name), "--source",
                                                     source[0]]):  # fmt: skip
            result = run_cli(*args, db=db)
            assert result.exit_code == 0, result.output
    return db


def copy_db(source: Path, target: Path) -> Path:
    """A consistent copy of an assay database (its write-ahead log included)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    return target


def store_set_map(db: Path, policy: str, scores: list[float], labels: list[int]) -> None:
    """An isotonic set map fitted on ``scores`` and ``labels``, stored for ``policy``
    under the key the offline models give (the relevance model's judgment)."""
    from assay import Assay
    from assay.calibration.apply import set_key
    from assay.calibration.maps import fit_map

    with Assay(db) as engine:
        chosen = engine.policies.get(policy)
        relevance, support = engine.relevance_for(chosen), engine.support
        assert relevance is not None and support is not None
        key = set_key(chosen, engine.embedder.name, relevance.name, support.name)
        fitted = fit_map("isotonic", scores, labels)
        digest = "0" * 64
        engine.calibration.save(
            "set", key, fitted, n_labels=len(labels), metrics={}, labels_sha256=digest
        )
