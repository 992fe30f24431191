"""Issue 41 through the CLI, on a small knowledge base written as users write one: a
data sheet with a specification table, and a boat forum that gives other figures. The
answer comes from the strongest evidence that answers, names the forum's disagreement,
and keeps to the question's qualifiers; a question the documents do not answer gets no
answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.e2e.conftest import ask

SHEET = """---
title: Harbor bilge pumps data sheet
source_id: harbor
published: 2026-05-10
verified: 2026-11-02
---
# Harbor bilge pumps

## Electrical

The HP-150 draws 2.5 amperes at 12 volts, while the HP-300 draws 4.2 amperes. Protect
the HP-300 with a 7.5 ampere fuse and the HP-150 with a 5 ampere fuse.

## Operating limits

The HP-300 may run dry for up to 3 minutes at a time. Water temperature must stay
between 2 °C and 50 °C.
"""
FORUM = {
    "id": "p1",
    "source_id": "forum",
    "title": "Boat forum: HP-300 fuse",
    "published": "2026-10-01",
    "text": "I run my HP-300 on a 15 ampere fuse and it has been fine for two seasons.",
}


@pytest.fixture(scope="module")
def pump_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pump")
    db = folder / "assay.db"
    (folder / "sheet.md").write_text(SHEET)
    (folder / "forum.jsonl").write_text(json.dumps(FORUM) + "\n")
    for args in (
        ["sources", "add", "harbor", "--kind", "official", "--owner", "Harbor",
         "--reviewed-at", "2026-11-02"],
        ["sources", "add", "forum", "--kind", "customer", "--owner", "forum users"],
        ["ingest", str(folder / "sheet.md"), "--source", "harbor"],
        ["ingest", str(folder / "forum.jsonl"), "--source", "forum"],
    ):  # fmt: skip
        result = run_cli(*args, db=db)
        assert result.exit_code == 0, result.output
    return db


def cited_sources(out: dict[str, object]) -> set[object]:
    sources = out["sources"]
    assert isinstance(sources, list)
    return {s["source_id"] for s in sources if s["cited"]}


def test_a_forum_post_never_drafts_when_the_data_sheet_answers(pump_db: Path) -> None:
    out = ask(pump_db, "What fuse does the HP-300 need?", "--policy", "informational")
    draft = out["answerer"]
    assert isinstance(draft, dict)
    assert draft["short"] == "7.5 ampere fuse" and cited_sources(out) == {"harbor"}
    assert any("forum (customer)" in d and '"15 ampere' in d for d in draft["disagreements"])
    # the JSON says what the answer's note says: the assessment names the conflict too
    ids = {s["source_id"]: s["id"] for s in out["sources"]}  # type: ignore[attr-defined]
    conflicts = out["assessment"]["source_conflicts"]  # type: ignore[index]
    pairs = {frozenset((c["source_a"], c["source_b"])) for c in conflicts}
    assert frozenset((ids["forum"], ids["harbor"])) in pairs


def test_the_span_keeps_to_the_model_the_question_names(pump_db: Path) -> None:
    out = ask(pump_db, "How much current does the HP-150 draw?", "--policy", "informational")
    draft = out["answerer"]
    assert isinstance(draft, dict) and draft["short"] == "2.5 amperes"


def test_a_question_the_documents_do_not_answer_gets_no_answer(pump_db: Path) -> None:
    out = ask(pump_db, "What is the warranty period of the HP-300?", "--policy", "informational")
    assert out["status"] != "answered"
    assert "warranty" in out["answer"] and "hp-300" not in out["answer"].lower()  # it has that
