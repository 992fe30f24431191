"""``assay documents`` and ingesting a folder again, through the CLI: what the knowledge
base holds, each file with the source it was first ingested under."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def test_documents_list_show_and_ingest_again_without_source(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "pump.md").write_text(
        "---\ntitle: Harbor HP-300 bilge pump\npublished: 2026-03-01\n---\n"
        "# Power\n\nThe pump draws 4.2 amperes at 12 volts.\n",
        encoding="utf-8",
    )
    (kb / "notes.txt").write_text("Keep the strainer clear of debris.\n", encoding="utf-8")
    assert run_cli("sources", "add", "harbor-manual", "--kind", "official", db=db).exit_code == 0
    first = run_cli("ingest", str(kb), "--source", "harbor-manual", db=db)
    assert first.exit_code == 0, first.stderr
    listed = run_cli("documents", "list", db=db)
    assert listed.exit_code == 0
    assert "harbor-manual" in listed.stdout and "2026-03-01" in listed.stdout
    assert "Harbor HP-300 bilge pump" in listed.stdout
    documents = json.loads(run_cli("documents", "list", "--json", db=db).stdout)
    assert len(documents) == 2 and {d["source_id"] for d in documents} == {"harbor-manual"}
    pump = next(d for d in documents if d["uri"].endswith("pump.md"))
    shown = run_cli("documents", "show", pump["id"][:8], "--json", db=db)
    assert shown.exit_code == 0, shown.stderr
    assert json.loads(shown.stdout) | {} == pump | {
        "source_kind": "official",
        "source_reliability": 1.0,
    }
    (kb / "notes.txt").write_text("Keep the strainer clear of leaves.\n", encoding="utf-8")
    again = run_cli("ingest", str(kb), db=db)  # no --source: each file keeps its own
    assert again.exit_code == 0, again.stderr
    assert "0 added, 1 updated, 1 unchanged, 0 failed" in again.stdout
    missing = run_cli("documents", "show", "nothing-like-it", db=db)
    assert missing.exit_code != 0 and "assay documents list" in missing.stderr
    unknown = run_cli("documents", "list", "--source", "nope", db=db)
    assert unknown.exit_code == 2 and "nope" in unknown.stderr
    short = run_cli("documents", "show", pump["id"][:3], db=db)
    assert short.exit_code == 2 and "too short" in short.stderr and "at least 6" in short.stderr
    typo = run_cli("documents", "list", "--source", "harbor-manul", db=db)
    assert typo.exit_code == 2 and "did you mean 'harbor-manual'" in typo.stderr
    assert "sources add" not in typo.stderr  # listing never asks to register a source
