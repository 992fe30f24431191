"""Access labels through ingestion and the command line (issue 44): given by ``--access``,
front matter and JSONL records, kept when a folder is ingested again without them,
changed by ``assay documents relabel`` (audited), required by the settings when asked;
keys created with ``--grant``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import AS_OF, run_cli


def _kb(tmp_path: Path) -> tuple[Path, Path]:
    db, kb = tmp_path / "kb.db", tmp_path / "kb"
    kb.mkdir()
    (kb / "handbook.md").write_text(
        "---\ntitle: Handbook\npublished: 2026-03-01\n---\n# Leave\n\n"
        "Staff take 28 days of annual leave.\n",
        encoding="utf-8",
    )
    (kb / "payroll.md").write_text(
        "---\ntitle: Payroll\npublished: 2026-03-01\naccess: hr, finance\n---\n# Pay\n\n"
        "Salaries are paid on the 25th of each month.\n",
        encoding="utf-8",
    )
    records = [
        {"id": "m1", "text": "The Orwell settlement is 2.4 million EUR.", "access": ["legal"]},
        {"id": "m2", "text": "Matter 2290 was closed without payment."},
    ]
    (kb / "matters.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    assert run_cli("sources", "add", "intranet", "--kind", "official", db=db).exit_code == 0
    return db, kb


def _access(db: Path) -> dict[str, list[str]]:
    listed = json.loads(run_cli("documents", "list", "--json", db=db).stdout)
    return {Path(d["uri"]).name: d["access"] for d in listed}


def test_labels_from_the_file_the_run_and_what_was_stored_before(tmp_path: Path) -> None:
    db, kb = _kb(tmp_path)
    first = run_cli("ingest", str(kb), "--source", "intranet", "--access", "staff", db=db)
    assert first.exit_code == 0, first.stderr
    assert _access(db) == {
        "handbook.md": ["staff"],  # the run's label: the file states none
        "payroll.md": ["finance", "hr"],  # the file's own labels win
        "matters.jsonl#m1": ["legal"],
        "matters.jsonl#m2": ["staff"],
    }
    listed = run_cli("documents", "list", db=db).stdout
    assert "ACCESS" in listed and "finance,hr" in listed
    handbook = next(
        d["id"] for d in json.loads(run_cli("documents", "list", "--json", db=db).stdout)
        if d["uri"].endswith("handbook.md")
    )  # fmt: skip
    relabelled = run_cli(
        "documents", "relabel", handbook[:8], "--access", "hr", "--note", "HR only", db=db
    )
    assert relabelled.exit_code == 0, relabelled.stderr
    assert "staff -> hr" in relabelled.stdout
    again = run_cli("ingest", str(kb), db=db)  # no --access: the labels stay as they are
    assert again.exit_code == 0 and "3 unchanged" in again.stdout, again.stdout
    assert _access(db)["handbook.md"] == ["hr"]
    public = run_cli("documents", "relabel", handbook, "--public", "--json", db=db)
    assert json.loads(public.stdout)["access"] == [] and json.loads(public.stdout)["before"] == [
        "hr"
    ]
    exported = run_cli("audit", "export", "-o", "-", db=db).stdout.splitlines()
    changes = [e["payload"] for e in map(json.loads, exported) if e["kind"] == "access"]
    assert [(c["before"], c["after"], c["note"]) for c in changes] == [
        (["staff"], ["hr"], "HR only"), (["hr"], [], None)
    ]  # fmt: skip
    retagged = run_cli("ingest", str(kb), "--access", "everyone", db=db)  # said again: applied
    assert retagged.exit_code == 0 and "2 updated" in retagged.stdout, retagged.stdout
    assert _access(db)["handbook.md"] == ["everyone"]  # and this change is audited too
    exported = run_cli("audit", "export", "-o", "-", db=db).stdout.splitlines()
    changes = [e["payload"] for e in map(json.loads, exported) if e["kind"] == "access"]
    assert [
        (c["document"]["uri"].rsplit("/")[-1], c["before"], c["after"]) for c in changes[2:]
    ] == [("handbook.md", [], ["everyone"]), ("matters.jsonl#m2", ["staff"], ["everyone"])]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["relabel", "abcdef", "--access", "hr", "--public"], "clashes with --public"),
        (["relabel", "abcdef"], "give --access LABEL"),
        (["relabel", "abcdef", "--access", "Not A Label"], "is not an access label"),
    ],
)
def test_relabel_refuses_what_it_cannot_do(tmp_path: Path, given: list[str], message: str) -> None:
    db, kb = _kb(tmp_path)
    assert run_cli("ingest", str(kb), "--source", "intranet", db=db).exit_code == 0
    result = run_cli("documents", *given, db=db)
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def test_bad_labels_in_a_file_fail_that_file_alone(tmp_path: Path) -> None:
    db, kb = _kb(tmp_path)
    (kb / "bad.md").write_text("---\naccess: HR Team!\n---\nSome text.\n", encoding="utf-8")
    result = run_cli("ingest", str(kb), "--source", "intranet", db=db)
    assert result.exit_code == 1
    assert "bad.md front matter access" in result.stderr and "lowercase" in result.stderr
    assert "3 added" in result.stdout


def test_settings_may_require_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, kb = _kb(tmp_path)
    monkeypatch.setenv("ASSAY_ACCESS_LABELS_REQUIRED", "true")
    result = run_cli("ingest", str(kb), "--source", "intranet", db=db)
    assert result.exit_code == 1
    assert "handbook.md: access is missing" in result.stderr
    assert "access_labels_required" in result.stderr
    assert set(_access(db)) == {"payroll.md"}  # the matters file fails whole: m2 has none
    labelled = run_cli("ingest", str(kb), "--source", "intranet", "--access", "staff", db=db)
    assert labelled.exit_code == 0, labelled.stderr


def test_keys_carry_their_grants_and_ask_sees_what_they_grant(tmp_path: Path) -> None:
    db, kb = _kb(tmp_path)
    assert run_cli("ingest", str(kb), "--source", "intranet", db=db).exit_code == 0
    made = run_cli("keys", "create", "payroll-app", "--role", "reader", "--grant", "hr", db=db)
    assert made.exit_code == 0 and "labelled hr" in made.stdout
    key_id = made.stdout.split()[2]
    assert "hr" in run_cli("keys", "list", db=db).stdout
    bad = run_cli("keys", "create", "x", "--role", "reader", "--grant", "H R", db=db)
    assert bad.exit_code == 2 and "grant" in bad.stderr
    question = ["When are salaries paid?", "--as-of", AS_OF.isoformat(), "--json"]
    owner = json.loads(run_cli("ask", *question, db=db).stdout)
    as_key = json.loads(run_cli("ask", *question, "--as-key", key_id, db=db).stdout)
    legal = json.loads(run_cli("ask", *question, "--grant", "legal", db=db).stdout)
    paid = "paid on the 25th"
    assert paid in json.dumps(owner) and paid in json.dumps(as_key)
    assert paid not in json.dumps(legal)
    unknown = run_cli("ask", "When are salaries paid?", "--as-key", "000000000000", db=db)
    assert unknown.exit_code != 0 and "assay keys list" in unknown.stderr
