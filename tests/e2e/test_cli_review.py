"""``assay review`` end to end (J6): list, show and resolve queued answers via the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay import Assay
from assay.errors import NotFoundError
from assay.review import ReviewItem
from tests.conftest import run_cli
from tests.unit.test_review import ask_event, assessment


@pytest.fixture
def queued(engine: Assay, db_path: Path) -> ReviewItem:
    """One answer queued for review in the ``engine`` fixture's database."""
    return engine.review.add(
        event_id=ask_event(engine, "may I charge the pack below zero degrees?"),
        query="may I charge the pack below zero degrees?",
        answer="Yes, charging below zero is safe.",
        reason="recommended_action human_review",
        assessment=assessment(0.42),
        policy_name="financial",
        policy_version="1",
    )


def test_j6_list_of_an_empty_queue(engine: Assay, db_path: Path) -> None:
    result = run_cli("review", "list", db=db_path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "no pending review items"
    as_json = run_cli("review", "list", "--status", "all", "--json", db=db_path)
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == []


def test_j6_list_show_and_resolve_through_the_cli(queued: ReviewItem, db_path: Path) -> None:
    listed = run_cli("review", "list", db=db_path)
    assert listed.exit_code == 0, listed.stderr
    header, row = listed.stdout.splitlines()
    assert header.split()[:4] == ["ID", "STATUS", "SCORE", "VERDICT"]
    assert row.split()[:4] == [str(queued.id), "pending", "0.420", "-"]
    assert "may I charge the pack below zero" in row

    shown = run_cli("review", "show", str(queued.id), db=db_path)
    assert shown.exit_code == 0, shown.stderr
    assert "answer: Yes, charging below zero is safe." in shown.stdout
    assert "action: human_review" in shown.stdout
    assert "rationale: one claim rests on a single customer post" in shown.stdout
    assert queued.event_id in shown.stdout

    resolved = run_cli(
        "review",
        "resolve",
        str(queued.id),
        "--verdict",
        "incorrect",
        "--note",
        "forbidden",
        db=db_path,
    )
    assert resolved.exit_code == 0, resolved.stderr
    assert resolved.stdout.startswith(f"resolved review item {queued.id} as incorrect")

    assert run_cli("review", "list", db=db_path).stdout.strip() == "no pending review items"
    after = run_cli("review", "show", str(queued.id), db=db_path).stdout
    assert "verdict: incorrect" in after and "note: forbidden" in after
    verify = run_cli("audit", "verify", db=db_path)
    assert verify.exit_code == 0 and "2 events" in verify.stdout


def test_j6_json_outputs_parse(queued: ReviewItem, db_path: Path) -> None:
    [listed] = json.loads(run_cli("review", "list", "--json", db=db_path).stdout)
    assert listed == queued.to_dict()
    shown = json.loads(run_cli("review", "show", str(queued.id), "--json", db=db_path).stdout)
    assert shown["assessment"]["recommended_action"] == "human_review"
    resolved = json.loads(
        run_cli(
            "review", "resolve", str(queued.id), "--verdict", "correct", "--json", db=db_path
        ).stdout
    )
    assert resolved["status"] == "resolved" and resolved["verdict"] == "correct"
    assert resolved["note"] is None and resolved["resolution_event_id"]
    [done] = json.loads(
        run_cli("review", "list", "--status", "resolved", "--json", db=db_path).stdout
    )
    assert done == resolved
    event = json.loads(
        run_cli("audit", "show", resolved["resolution_event_id"], "--json", db=db_path).stdout
    )
    assert event["kind"] == "review" and event["payload"]["verdict"] == "correct"


def test_j6_a_bad_verdict_exits_2_with_one_line(queued: ReviewItem, db_path: Path) -> None:
    result = run_cli("review", "resolve", str(queued.id), "--verdict", "maybe", db=db_path)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: verdict='maybe'")
    assert "correct or incorrect" in result.stderr
    assert run_cli("review", "list", db=db_path).stdout.count("pending") == 1


def test_j6_resolving_twice_is_refused(queued: ReviewItem, db_path: Path) -> None:
    assert (
        run_cli("review", "resolve", str(queued.id), "--verdict", "correct", db=db_path).exit_code
        == 0
    )
    again = run_cli("review", "resolve", str(queued.id), "--verdict", "incorrect", db=db_path)
    assert again.exit_code == 1 and "already resolved" in again.stderr
    assert again.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["show", "resolve"])
def test_unknown_id_exits_with_the_not_found_code(
    engine: Assay, db_path: Path, command: str
) -> None:
    extra = ["--verdict", "correct"] if command == "resolve" else []
    result = run_cli("review", command, "42", *extra, db=db_path)
    assert result.exit_code == NotFoundError.exit_code
    assert result.stderr.startswith("error: review item 42 not found")
    assert result.stderr.count("\n") == 1


def test_a_bad_status_is_one_line(engine: Assay, db_path: Path) -> None:
    result = run_cli("review", "list", "--status", "done", db=db_path)
    assert result.exit_code == 2 and result.stderr.startswith("error: status='done'")


def test_review_show_quotes_the_passages_a_conflict_names(
    engine: Assay, db_path: Path, tmp_path: Path
) -> None:
    """A conflict between two bare ids cannot be judged: the passages are quoted under it."""
    from assay.ingest.pipeline import IngestOptions

    engine.sources.add("forum", "customer", exist_ok=True)
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "sheet.md").write_text("Charge between 0 and 45 degrees only.\n", encoding="utf-8")
    (kb / "post.md").write_text("I charge mine at minus ten, no problem.\n", encoding="utf-8")
    engine.ingest([kb / "sheet.md"], options=IngestOptions(source_id="sds"))
    engine.ingest([kb / "post.md"], options=IngestOptions(source_id="forum"))
    ids = {engine.store.get([h.chunk_id])[0].source_id: h.chunk_id
           for h in engine.store.lexical_search("charge", 5)}  # fmt: skip
    judged = assessment(0.42) | {
        "source_conflicts": [
            {"claim": "charging below zero", "source_a": ids["sds"], "source_b": ids["forum"],
             "nature": "direct contradiction"}
        ]
    }  # fmt: skip
    item = engine.review.add(
        event_id=ask_event(engine, "may I charge below zero?"), query="may I charge below zero?",
        answer="Yes.", reason="recommended_action human_review", assessment=judged,
        policy_name="financial", policy_version="1",
    )  # fmt: skip
    shown = run_cli("review", "show", str(item.id), db=db_path).stdout
    assert f"{ids['sds'][:12]}  sds: Charge between 0 and 45 degrees only." in shown
    assert f"{ids['forum'][:12]}  forum: I charge mine at minus ten, no problem." in shown


def test_j6_an_incorrect_verdict_keeps_the_right_answer(queued: ReviewItem, db_path: Path) -> None:
    """Issue 43: a review verdict had no field for the right answer."""
    resolved = run_cli(
        "review", "resolve", str(queued.id), "--verdict", "incorrect",
        "--correction", "No: charge only between 0 and 45 °C.", "--json", db=db_path,
    )  # fmt: skip
    assert resolved.exit_code == 0, resolved.stderr
    item = json.loads(resolved.stdout)
    assert item["correction"] == "No: charge only between 0 and 45 °C."
    shown = run_cli("review", "show", str(queued.id), db=db_path).stdout
    assert "right answer: No: charge only between 0 and 45 °C." in shown
    with Assay(db_path, create=False) as engine:
        [event] = engine.audit.list(kind="review")
        assert event.payload["correction"] == "No: charge only between 0 and 45 °C."
        assert engine.audit.verify().ok


def test_j6_a_correct_verdict_takes_no_correction(queued: ReviewItem, db_path: Path) -> None:
    refused = run_cli(
        "review", "resolve", str(queued.id), "--verdict", "correct", "--correction", "x",
        db=db_path,
    )  # fmt: skip
    assert refused.exit_code == 2 and "only with verdict incorrect" in refused.stderr
    with Assay(db_path, create=False) as engine:
        assert engine.review.get(queued.id).status == "pending"  # nothing was written
