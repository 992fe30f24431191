"""A refusal caused by age names the fix (issue 43, second pass): a returns policy in
force since January was kept out under financial for its age, and the refusal asked for
"documents that cover the question", which the knowledge base already held."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from tests.e2e.conftest import ask

POLICY = """---
title: Returns policy
---
# Returns

Items may be returned within 45 days of delivery with the original receipt.
"""


FORUM = "# Returns\n\nHonestly you can return items within 90 days of delivery, no receipt.\n"


def _kb(tmp_path: Path, *ingest_options: str) -> Path:
    db = tmp_path / "assay.db"
    (tmp_path / "returns.md").write_text(POLICY)
    (tmp_path / "forum.md").write_text(FORUM)
    for args in (
        ["sources", "add", "returns", "--kind", "official", "--owner", "Shop"],
        ["sources", "add", "forum", "--kind", "customer", "--owner", "forum users"],
        ["ingest", str(tmp_path / "returns.md"), "--source", "returns",
         "--published", "2025-01-15", *ingest_options],
        ["ingest", str(tmp_path / "forum.md"), "--source", "forum", "--published", "2025-01-15"],
    ):  # fmt: skip
        result = run_cli(*args, db=db)
        assert result.exit_code == 0, result.output
    return db


def test_a_refusal_for_age_names_the_verified_date_not_more_documents(tmp_path: Path) -> None:
    out = ask(_kb(tmp_path), "How many days do I have to return an item?", "--policy", "financial")
    assert out["status"] == "abstained_retrieval"
    answer = out["answer"]
    assert "1 matching passage(s) of returns were kept out for their age" in answer
    assert "forum" not in answer  # a forum post would not clear the gate with a fresh date
    assert "assay ingest --verified DATE" in answer


def test_a_verified_date_lets_the_same_passage_answer(tmp_path: Path) -> None:
    db = _kb(tmp_path, "--verified", "2026-11-01")
    out = ask(db, "How many days do I have to return an item?", "--policy", "financial")
    assert out["status"] == "answered" and "45 days" in out["answer"]


def test_excluded_passages_are_told_apart_by_their_location(tmp_path: Path) -> None:
    """Two passages of one source kept out read as the same line without their place."""
    question = "How many days do I have to return an item?"
    shown = run_cli(
        "ask", question, "--policy", "financial", "--as-of", "2026-11-29", db=_kb(tmp_path)
    )
    assert shown.exit_code == 0, shown.output
    assert "] returns from line 6 to the end -- below_threshold" in shown.stdout
    forum = next(line for line in shown.stdout.splitlines() if "] forum " in line)
    assert "verified date" not in forum  # weak anyway: a date would not let it through


def test_a_refusal_about_another_subject_does_not_ask_to_date_the_aged_passage(
    tmp_path: Path,
) -> None:
    """The returns policy, kept out for its age, does not say whether sale items are
    returned free: a verified date would not help, more documents would."""
    question = "Are returns free for items bought in the sale?"
    out = ask(_kb(tmp_path), question, "--policy", "financial")
    assert out["status"] == "abstained_retrieval", out["answer"]
    assert "kept out for their age" not in out["answer"]
    assert "'free', 'bought', 'sale'" in out["answer"]


def test_a_refusal_for_a_missing_date_says_to_give_one(tmp_path: Path) -> None:
    """A file ingested without any date earns the policy's undated freshness credit (0 in
    the shipped policies): the official returns policy is kept out under financial, and
    the refusal says it had no date and how to give one, not to add documents. An undated
    forum post is not worth a date: it is in force nowhere."""
    db = tmp_path / "assay.db"
    (tmp_path / "returns.md").write_text(POLICY)
    (tmp_path / "forum.md").write_text(FORUM)
    for args in (
        ["sources", "add", "returns", "--kind", "official"],
        ["sources", "add", "forum", "--kind", "customer"],
        ["ingest", str(tmp_path / "returns.md"), "--source", "returns"],
        ["ingest", str(tmp_path / "forum.md"), "--source", "forum"],
    ):
        result = run_cli(*args, db=db)
        assert result.exit_code == 0, result.output
    out = ask(db, "How many days do I have to return an item?", "--policy", "financial")
    assert out["status"] == "abstained_retrieval"
    assert "1 matching passage(s) of returns were kept out for having no date" in out["answer"]
    assert "--file-dates" in out["answer"] and "forum" not in out["answer"]
    details = {e["source_id"]: e["detail"] for e in out["excluded"]}
    assert "it has no date" in details["returns"] and "no date" not in details["forum"]
    dated = tmp_path / "dated.db"
    for args in (
        ["sources", "add", "returns", "--kind", "official"],
        ["ingest", str(tmp_path / "returns.md"), "--source", "returns", "--verified", "2026-11-01"],
    ):
        assert run_cli(*args, db=dated).exit_code == 0
    answered = ask(dated, "How many days do I have to return an item?", "--policy", "financial")
    assert answered["status"] == "answered" and "45 days" in answered["answer"]
