"""The ``assay`` command end to end: the score contract, registry and audit commands,
and errors that are one line with a non-zero exit code, never a traceback."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assay import Assay
from tests.conftest import AS_OF, candidate_record, run_cli, sqlite_only, write_jsonl
from tests.rawdb import RawDatabase


@pytest.fixture
def db(engine: Assay, db_path: Path | str) -> Path | str:
    """A database with the four sources of the ``engine`` fixture."""
    return db_path


@pytest.fixture
def candidates(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "candidates.jsonl",
        [
            candidate_record("a", 0.9),
            candidate_record("b", 0.6, source_id="forum", verified="2026-11-28"),
            candidate_record("c", 0.2, source_kind="unverified", published=None),
        ],
    )


def test_score_json_honours_the_contract(db: Path, candidates: Path) -> None:
    result = run_cli(
        "score",
        "--query",
        "q",
        "--candidates",
        str(candidates),
        "--policy",
        "financial",
        "--as-of",
        "2026-11-29",
        "--json",
        db=db,
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert {"policy", "admitted", "excluded", "findings", "event_id"} <= set(out)
    assert {"name", "version", "threshold", "weights"} <= set(out["policy"])
    assert out["policy"]["name"] == "financial" and out["policy"]["threshold"] == 0.75
    for item in out["admitted"] + out["excluded"]:
        assert {"id", "confidence", "label", "scores"} <= set(item)
        assert set(item["scores"]) == {"similarity", "source", "freshness"}
    assert all("reason" in item for item in out["excluded"])
    assert [e["id"] for e in out["admitted"]] == ["a"]
    assert {e["id"]: e["reason"] for e in out["excluded"]} == {
        "b": "below_threshold",
        "c": "below_similarity_floor",
    }
    b = next(e for e in out["excluded"] if e["id"] == "b")
    assert b["basis"]["effective_date"] == "2026-11-28"  # the later of published and verified
    # the forum source was never reviewed, but registered today: not overdue yet
    assert b["basis"]["review_overdue"] is False
    assert out["admitted"][0]["basis"]["review_overdue"] is False  # sds reviewed 2026-10-01
    c = next(e for e in out["excluded"] if e["id"] == "c")
    assert c["scores"]["freshness"] == 0.0  # undated: no freshness credit
    assert isinstance(out["findings"], list) and len(out["event_id"]) == 32


def test_score_reads_the_database_from_assay_db(
    engine: Assay, db_path: Path, candidates: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_DB", str(db_path))
    result = run_cli(
        "score",
        "--query",
        "q",
        "--candidates",
        str(candidates),
        "--policy",
        "legal",
        "--as-of",
        "2026-11-29",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    assert engine.audit.head()[0] == 1


def test_score_reads_candidates_from_stdin(db: Path, candidates: Path) -> None:
    result = run_cli(
        "score",
        "--query",
        "q",
        "--candidates",
        "-",
        "--json",
        "--as-of",
        "2026-11-29",
        db=db,
        input=candidates.read_text(),
    )
    assert result.exit_code == 0 and json.loads(result.stdout)["policy"]["name"] == "informational"


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (candidate_record("x", 1.7), "line 1: candidate 'x': similarity=1.7 is outside [0, 1]"),
        (
            candidate_record("x", 0.5, source_id="nope"),
            "source_id='nope' is not in the source registry",
        ),
        (
            candidate_record("x", 0.5, published="31/12/2020"),
            "published='31/12/2020' is not a date",
        ),
        (candidate_record("x", 0.5, text=""), "text='' is invalid"),
        (candidate_record("x", 0.5, source_id="forum", source_kind="official"), "disagrees with"),
    ],
)
def test_bad_candidates_give_one_line_and_exit_2(
    db: Path, tmp_path: Path, record: dict, message: str
) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [record])
    result = run_cli(
        "score", "--query", "q", "--candidates", str(path), "--as-of", "2026-11-29", db=db
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert message in result.stderr
    assert Assay(db).audit.head()[0] == 0  # nothing logged for a refused request


def test_duplicate_ids_and_bad_json_lines_are_named(db: Path, tmp_path: Path) -> None:
    dup = write_jsonl(tmp_path / "dup.jsonl", [candidate_record("x", 0.5)] * 2)
    result = run_cli("score", "--query", "q", "--candidates", str(dup), db=db)
    assert result.exit_code == 2 and "id='x' is duplicated" in result.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "a"\n')
    result = run_cli("score", "--query", "q", "--candidates", str(broken), db=db)
    assert result.exit_code == 2 and "broken.jsonl line 1" in result.stderr


def test_unknown_policy_and_missing_file(db: Path, candidates: Path) -> None:
    result = run_cli(
        "score", "--query", "q", "--candidates", str(candidates), "--policy", "finacial", db=db
    )
    assert result.exit_code == 2 and "choose one of: financial, informational" in result.stderr
    result = run_cli("score", "--query", "q", "--candidates", "missing.jsonl", db=db)
    assert result.exit_code == 2 and "'missing.jsonl' cannot be read" in result.stderr
    result = run_cli(
        "score",
        "--query",
        "q",
        "--candidates",
        str(candidates),
        "--policy",
        "legal",
        "--severity",
        "legal",
        db=db,
    )
    assert result.exit_code == 2 and "not both" in result.stderr


def test_the_installed_command_never_shows_a_traceback(tmp_path: Path) -> None:
    """Through a real process: a bad database path is one line on stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay",
            "sources",
            "add",
            "x",
            "--kind",
            "official",
            "--db",
            str(tmp_path / "no" / "x.db"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "does not exist" in proc.stderr


def test_sources_commands_round_trip(db_path: Path) -> None:
    assert (
        run_cli(
            "sources",
            "add",
            "fca",
            "--kind",
            "official",
            "--jurisdiction",
            "UK",
            "--meta",
            "url=https://example.org",
            db=db_path,
        ).exit_code
        == 0
    )
    assert (
        run_cli(
            "sources", "update", "fca", "--reliability", "0.95", "--note", "re-rated", db=db_path
        ).exit_code
        == 0
    )
    assert run_cli("sources", "review", "fca", "--on", "2026-11-01", db=db_path).exit_code == 0
    shown = json.loads(run_cli("sources", "show", "fca", "--json", db=db_path).stdout)
    assert shown["reliability"] == 0.95 and shown["version"] == 3
    assert shown["metadata"] == {"url": "https://example.org"}
    assert [h["action"] for h in shown["history"]] == ["add", "update", "review"]
    listed = json.loads(
        run_cli("sources", "list", "--json", "--as-of", "2026-11-29", db=db_path).stdout
    )
    assert listed[0]["review_overdue"] is False and listed[0]["review_due"] == "2027-11-01"
    assert (
        run_cli("sources", "add-kind", "regulator", "--reliability", "0.95", db=db_path).exit_code
        == 0
    )
    kinds = json.loads(run_cli("sources", "kinds", "--json", db=db_path).stdout)
    assert {
        "name": "regulator",
        "reliability": 0.95,
        "review_interval_days": 90,
        "builtin": False,
    } in kinds
    retired = run_cli("sources", "update", "fca", "--retired", db=db_path)
    assert "updated fca: retired no -> yes; now version 4" in retired.stdout
    active = run_cli("sources", "update", "fca", "--active", db=db_path)
    assert "updated fca: retired yes -> no; now version 5" in active.stdout  # was "fca: retired"
    # issue 43 (second pass): a change to what it already is wrote an empty version
    same = run_cli("sources", "update", "fca", "--active", db=db_path)
    assert "fca unchanged: it already had those values (version 5)" in same.stdout
    empty = run_cli("sources", "update", "fca", db=db_path)
    assert empty.exit_code == 2 and "--retired/--active" in empty.stderr
    assert "court_level" not in empty.stderr
    bad = run_cli("sources", "update", "fca", "--reliability", "2", db=db_path)
    assert bad.exit_code == 2 and "reliability=2.0 is outside [0, 1]" in bad.stderr


def test_policies_commands() -> None:
    listed = json.loads(run_cli("policies", "list", "--json").stdout)
    assert {p["name"] for p in listed} == {"informational", "financial", "legal", "safety_critical"}
    shown = run_cli("policies", "show", "safety_critical")
    assert shown.exit_code == 0 and "threshold = 0.8" in shown.stdout


def test_user_policy_dir_via_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = run_cli("policies", "show", "financial").stdout.replace(
        'name = "financial"', 'name = "strict_finance"'
    )
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "strict.toml").write_text(toml)
    monkeypatch.setenv("ASSAY_POLICY_DIRS", str(tmp_path / "policies"))
    listed = json.loads(run_cli("policies", "list", "--json").stdout)
    assert "strict_finance" in {p["name"] for p in listed}


def test_audit_verify_names_an_edited_row(db: Path, candidates: Path) -> None:
    for _ in range(3):
        run_cli(
            "score", "--query", "q", "--candidates", str(candidates), "--as-of", "2026-11-29", db=db
        )
    ok = run_cli("audit", "verify", db=db)
    assert ok.exit_code == 0 and "intact: 3 events" in ok.stdout
    conn = RawDatabase(db)
    event_id = conn.one("SELECT event_id FROM audit_events WHERE seq = 2")
    conn.execute("UPDATE audit_events SET query = 'r' WHERE seq = 2")  # one byte: q -> r
    bad = run_cli("audit", "verify", db=db)
    assert bad.exit_code == 1
    assert f"event {event_id} (seq 2): content does not match its hash" in bad.stderr
    report = json.loads(run_cli("audit", "verify", "--json", db=db).stdout)
    assert report["ok"] is False and report["problems"][0]["event_id"] == event_id


def test_audit_list_show_head_and_export(db: Path, candidates: Path, tmp_path: Path) -> None:
    run_cli(
        "score", "--query", "first", "--candidates", str(candidates), "--as-of", "2026-11-29", db=db
    )
    run_cli(
        "score",
        "--query",
        "second",
        "--candidates",
        str(candidates),
        "--policy",
        "legal",
        "--as-of",
        "2026-11-29",
        db=db,
    )
    listed = run_cli("audit", "list", db=db).stdout
    assert "legal v5" in listed and "informational v10" in listed
    assert [e["query"] for e in json.loads(run_cli("audit", "list", "--json", db=db).stdout)] == [
        "second",
        "first",
    ]
    out = tmp_path / "audit.jsonl"
    assert run_cli("audit", "export", "--format", "jsonl", "-o", str(out), db=db).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["seq"] for r in rows] == [1, 2] and rows[1]["prev_hash"] == rows[0]["row_hash"]
    head = run_cli("audit", "head", "--json", db=db)
    assert json.loads(head.stdout) == {"events": 2, "head": rows[1]["row_hash"]}
    shown = run_cli("audit", "show", rows[0]["event_id"][:10], db=db).stdout
    assert "query: first" in shown and "below_similarity_floor" in shown
    assert run_cli("audit", "show", "abcdef12", db=db).exit_code == 1  # well formed, not there
    assert run_cli("audit", "show", "______", db=db).exit_code == 2  # not an id at all
    since = run_cli("audit", "list", "--since", "yesterday", db=db)
    assert since.exit_code == 2 and "since='yesterday'" in since.stderr
    assert "no audit events" in run_cli("audit", "list", "--since", "2999-01-01", db=db).stdout
    assert "legal v5" in run_cli("audit", "list", "--since", "2000-01-01T00:00:00Z", db=db).stdout


def test_as_of_is_recorded_for_replay(db: Path, candidates: Path) -> None:
    run_cli(
        "score",
        "--query",
        "q",
        "--candidates",
        str(candidates),
        "--as-of",
        AS_OF.isoformat(),
        db=db,
    )
    [event] = json.loads(run_cli("audit", "list", "--json", db=db).stdout)
    assert event["payload"]["as_of"] == "2026-11-29"


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["policies", "list"], {"ASSAY_SEVERITY_POLICIES": "garbage"}, "fix the ASSAY_* variable"),
        (["audit", "export", "-o", "/nonexistent/dir/x.jsonl"], {}, "existing folder"),
        (["sources", "list", "--as-of", "tomorrow"], {}, "--as-of='tomorrow' is not a date"),
        (["sources", "review", "x", "--on", "2999-01-01"], {}, "cannot be dated after today"),
    ],
)
def test_bad_settings_and_options_are_one_line_errors(
    db: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str], message: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    run_cli("sources", "add", "x", "--kind", "official", db=db)
    result = run_cli(*args, db=db) if args[0] != "policies" else run_cli(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr


def test_oversized_numbers_in_candidates_are_a_clear_error(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    path.write_text(
        '{"id": "a", "text": "t", "similarity": 1' + "0" * 5000 + ', "source_id": "sds"}\n'
    )
    result = run_cli("score", "--query", "q", "--candidates", str(path), db=db)
    assert result.exit_code == 2 and "line 1" in result.stderr and "is not JSON" in result.stderr


def test_audit_verify_names_a_deleted_row(db: Path, candidates: Path) -> None:
    for _ in range(3):
        run_cli(
            "score", "--query", "q", "--candidates", str(candidates), "--as-of", "2026-11-29", db=db
        )
    conn = RawDatabase(db)
    after = conn.one("SELECT event_id FROM audit_events WHERE seq = 3")
    conn.execute("DELETE FROM audit_events WHERE seq = 2")
    result = run_cli("audit", "verify", db=db)
    assert result.exit_code == 1
    assert f"event {after} (seq 3): row(s) seq 2 before it are missing (deleted)" in result.stderr


def test_evidence_dated_after_as_of_is_excluded_not_an_error(db: Path, tmp_path: Path) -> None:
    """Replaying a decision as of a past day must not use what was written later."""
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            candidate_record("then", 0.9, published="2026-01-10"),
            candidate_record("later", 0.9, published="2026-11-01"),
        ],
    )
    result = run_cli(
        "score", "--query", "q", "--candidates", str(path), "--as-of", "2026-02-01", "--json", db=db
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert [e["id"] for e in out["admitted"]] == ["then"]
    [later] = out["excluded"]
    assert later["reason"] == "dated_after_as_of" and "273 days after as_of" in later["detail"]
    assert run_cli("audit", "verify", db=db).exit_code == 0  # and it replays


def test_export_never_overwrites_the_database(db: Path | str, candidates: Path) -> None:
    db = sqlite_only(db)
    run_cli("score", "--query", "q", "--candidates", str(candidates), db=db)
    for target in (db, Path(f"{db}-wal")):
        result = run_cli("audit", "export", "-o", str(target), db=db)
        assert result.exit_code == 2 and "is the audit database itself" in result.stderr
    assert run_cli("audit", "verify", db=db).exit_code == 0
    dash = run_cli("audit", "export", "-o", "-", db=db)
    assert dash.exit_code == 0 and json.loads(dash.stdout.splitlines()[0])["seq"] == 1


def test_read_commands_never_create_a_database(tmp_path: Path) -> None:
    for args in (["audit", "verify"], ["sources", "list"], ["audit", "list"]):
        result = run_cli(*args, db=tmp_path / "typo.db")
        assert result.exit_code == 1 and "no assay database at" in result.stderr
    assert not (tmp_path / "typo.db").exists()


def test_another_applications_database_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "crm.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    result = run_cli("sources", "add", "x", "--kind", "official", db=other)
    assert result.exit_code == 1 and "is not an assay database" in result.stderr
    tables = {r[0] for r in sqlite3.connect(other).execute("SELECT name FROM sqlite_master")}
    assert tables == {"customers"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["sources", "add", "y", "--kind", "official", "--reviewed-at", "9999-12-31"],
            "cannot be dated after today",
        ),
        (
            ["sources", "add", "z", "--kind", "official", "--review-days", "99999999999"],
            "from 1 to 36500",
        ),
        (["audit", "list", "--since", "0001-01-01T00:00:00+14:00"], "since="),
        (["audit", "list", "--limit", "9223372036854775808"], "limit="),
        (["sources", "add", "w", "--kind", "official", "--meta", "c=NaN"], None),
    ],
)
def test_extreme_values_are_clear_errors(db: Path, args: list[str], message: str | None) -> None:
    result = run_cli(*args, db=db)
    if message is None:
        assert result.exit_code == 0
        shown = run_cli("sources", "show", "w", "--json", db=db).stdout
        assert json.loads(shown)["metadata"] == {"c": "NaN"}  # strict JSON out
    else:
        assert result.exit_code == 2, result.output
        assert message in result.stderr


def test_undecodable_policy_file_and_lone_surrogates(db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"name = '\xff'\n")
    result = run_cli("policies", "show", str(bad))
    assert result.exit_code == 2 and "readable UTF-8" in result.stderr
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a", "text": "x\\ud800", "similarity": 0.5, "source_id": "sds"}\n')
    result = run_cli("score", "--query", "q", "--candidates", str(path), db=db)
    assert result.exit_code == 2 and "unpaired surrogate" in result.stderr
    good = write_jsonl(tmp_path / "good.jsonl", [candidate_record("a", 0.5)])
    missing = run_cli(
        "score", "--query", "q", "--candidates", str(good), "--policy", "nope.toml", db=db
    )
    assert missing.exit_code == 2 and "cannot be read" in missing.stderr


def test_unknown_source_names_the_candidate(db: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [candidate_record("doc-7", 0.5, source_id="nope")])
    result = run_cli("score", "--query", "q", "--candidates", str(path), db=db)
    assert "candidate 'doc-7': source_id='nope' is not in the source registry" in result.stderr
    shown = run_cli("sources", "show", "nope", db=db)
    assert "source_kind" not in shown.stderr  # no kind fallback where none exists


def test_a_closed_pipe_ends_quietly(db: Path, candidates: Path) -> None:
    for _ in range(40):
        run_cli("score", "--query", "q", "--candidates", str(candidates), db=db)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    proc = subprocess.run(
        f"{sys.executable} -m assay audit export --db {db} | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "--query", "q", "--candidates", "{huge}"], "is outside [0, 1]"),
        (["score", "--query", "q", "--candidates", "{deep_lines}"], "nested too deeply"),
        (["models", "relevance", "--input", "{deep_lines}"], "nested too deeply"),
        (["evaluate", "--input", "{deep}"], "nested too deeply"),
        (
            ["score", "--query", "q", "--candidates", "{good}", "--jurisdiction", "\udced\udca0"],
            "jurisdiction",
        ),
        (["ask", "q", "--jurisdiction", "\udced\udca0"], "jurisdiction"),
        (["review", "show", "99999999999999999999999"], "not found"),
    ],
)
def test_inputs_that_crashed_are_one_line_errors(
    db: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    """Each was an ``internal error`` (OverflowError, RecursionError, UnicodeEncodeError)."""
    files = {
        "huge": tmp_path / "huge.jsonl",
        "deep_lines": tmp_path / "deep.jsonl",
        "deep": tmp_path / "deep.json",
        "good": write_jsonl(tmp_path / "good.jsonl", [candidate_record("a", 0.5)]),
    }
    files["huge"].write_text(
        '{"id": "a", "text": "t", "similarity": 1' + "0" * 400 + ', "source_id": "sds"}\n'
    )
    files["deep_lines"].write_text("[" * 100_000 + "]" * 100_000 + "\n")
    files["deep"].write_text("[" * 100_000 + "]" * 100_000)
    run_cli("sources", "add", "sds", "--kind", "official", db=db)
    argv = [a.format(**files) if a.startswith("{") else a for a in args]
    result = run_cli(*argv, db=None if args[0] in ("models", "evaluate") else db)
    assert result.exit_code in (1, 2), result.output
    assert result.stderr.startswith("error: ") and "internal error" not in result.stderr
    assert message in result.stderr


def test_b2_keygen_seal_checkpoint_and_verify_through_the_cli(
    db: Path, candidates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sealed log with a checkpoint kept elsewhere: cutting its tail is reported."""
    key = tmp_path / "secret" / "audit.key"
    key.parent.mkdir()
    made = run_cli("audit", "keygen", str(key))
    assert made.exit_code == 0 and f"ASSAY_AUDIT_KEY_FILE={key.resolve()}" in made.stdout
    again = run_cli("audit", "keygen", str(key))  # never overwritten
    assert again.exit_code == 2 and "already exists; choose a new file name" in again.stderr
    monkeypatch.setenv("ASSAY_AUDIT_KEY_FILE", str(key))
    for _ in range(3):
        run_cli(
            "score", "--query", "q", "--candidates", str(candidates), "--as-of", "2026-11-29", db=db
        )
    points = tmp_path / "elsewhere" / "checkpoints.jsonl"
    points.parent.mkdir()
    assert run_cli("audit", "checkpoint", "-o", str(points), db=db).exit_code == 0
    ok = run_cli("audit", "verify", "--checkpoint", str(points), db=db)
    assert ok.exit_code == 0 and "sealed: 3 row(s) with key" in ok.stdout
    assert "1 checkpoint(s) hold" in ok.stdout
    RawDatabase(db).execute("DELETE FROM audit_events WHERE seq = 3")
    cut = run_cli("audit", "verify", "--checkpoint", str(points), db=db)
    assert cut.exit_code == 1 and "row 3 is missing (cut from the end" in cut.stderr
    monkeypatch.delenv("ASSAY_AUDIT_KEY_FILE")
    unkeyed = run_cli("audit", "verify", db=db)
    assert "NOT checked: no audit key configured" in unkeyed.stdout


def test_b2_audit_retire_writes_the_cut_off_into_the_old_key_through_the_cli(
    db: Path, candidates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Key rotation as docs/audit-log.md prints it: keygen, retire the old key, name it
    retired; the old key then seals nothing that verifies."""
    old, new = tmp_path / "old.key", tmp_path / "new.key"
    score = ("score", "--query", "q", "--candidates", str(candidates), "--as-of", "2026-11-29")
    assert run_cli("audit", "keygen", str(old)).exit_code == 0
    monkeypatch.setenv("ASSAY_AUDIT_KEY_FILE", str(old))
    assert run_cli(*score, db=db).exit_code == 0
    assert run_cli("audit", "retire", str(old), db=db).exit_code == 2  # still the current key
    assert run_cli("audit", "keygen", str(new)).exit_code == 0
    monkeypatch.setenv("ASSAY_AUDIT_KEY_FILE", str(new))
    retired = run_cli("audit", "retire", str(old), db=db)
    assert retired.exit_code == 0 and "sealed rows up to seq 1" in retired.stdout
    monkeypatch.setenv("ASSAY_AUDIT_RETIRED_KEY_FILES", str(old))
    assert run_cli(*score, db=db).exit_code == 0
    intact = run_cli("audit", "verify", db=db)
    assert intact.exit_code == 0 and "sealed: 2 row(s)" in intact.stdout
    monkeypatch.setenv("ASSAY_AUDIT_KEY_FILE", str(old))
    reused = run_cli(*score, db=db)
    assert reused.exit_code == 2 and "was retired after row 1" in reused.stderr


def test_b2_a_sealed_log_without_its_key_refuses_writes_and_serve_will_not_start(
    db: Path, candidates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trap of a key exported in one shell only: later commands elsewhere used to
    write unsealed rows that `audit verify` then calls forged appends, for good."""
    key = tmp_path / "audit.key"
    assert run_cli("audit", "keygen", str(key)).exit_code == 0
    monkeypatch.setenv("ASSAY_AUDIT_KEY_FILE", str(key))
    score = ("score", "--query", "q", "--candidates", str(candidates), "--as-of", "2026-11-29")
    assert run_cli(*score, db=db).exit_code == 0
    monkeypatch.delenv("ASSAY_AUDIT_KEY_FILE")
    refused = run_cli(*score, db=db)
    assert refused.exit_code == 2 and "ASSAY_AUDIT_KEY_FILE" in refused.stderr
    assert "error: audit_key_file is not set, but this audit log is sealed" in refused.stderr
    assert run_cli("keys", "create", "ops", "--role", "reader", db=db).exit_code == 2
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: pytest.fail("the server started"))
    served = run_cli("serve", db=db)  # refused before any worker starts
    assert served.exit_code == 2 and "this audit log is sealed" in served.stderr
    monkeypatch.setenv("ASSAY_AUDIT_KEY_FILE", str(key))
    intact = run_cli("audit", "verify", db=db)
    assert intact.exit_code == 0 and "sealed: 1 row(s) with key" in intact.stdout


def test_b4_keys_create_takes_a_severity_floor_and_list_shows_it(db: Path) -> None:
    made = run_cli(
        "keys", "create", "bot", "--role", "reader", "--min-severity", "legal", "--json", db=db
    )
    assert made.exit_code == 0 and json.loads(made.stdout)["min_severity"] == "legal"
    listed = run_cli("keys", "list", db=db)
    assert "MIN SEVERITY" in listed.stdout and "legal" in listed.stdout
    bad = run_cli("keys", "create", "bot2", "--role", "reader", "--min-severity", "low", db=db)
    assert bad.exit_code == 2 and "safety_critical" in bad.stderr


def test_b2_serve_will_not_start_on_a_log_cut_since_its_last_checkpoint(
    db: Path, candidates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: with audit_checkpoint_file set, `assay serve` checks the newest
    checkpoint it wrote before any worker starts, and the app appends one at start,
    after every row and at shutdown."""
    from fastapi.testclient import TestClient

    from assay.server import create_app
    from assay.settings import load_settings

    anchors = tmp_path / "serve.jsonl"
    monkeypatch.setenv("ASSAY_AUDIT_CHECKPOINT_FILE", str(anchors))
    score = ("score", "--query", "q", "--candidates", str(candidates), "--as-of", "2026-11-29")
    for _ in range(3):
        assert run_cli(*score, db=db).exit_code == 0
    with TestClient(create_app(load_settings(db=db), warm=False)):
        pass  # one checkpoint at start; at shutdown none, the head has not moved
    assert [line["seq"] for line in map(json.loads, anchors.read_text().splitlines())] == [3]
    RawDatabase(db).execute("DELETE FROM audit_events WHERE seq = 3")
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: pytest.fail("the server started"))
    refused = run_cli("serve", db=db)
    assert refused.exit_code == 1 and "row 3 is gone (cut from the end)" in refused.stderr
