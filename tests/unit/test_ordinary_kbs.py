"""Knowledge bases in the ordinary-documents layout: both suites are well formed, and the
rows the answer-correctness model is fitted on come from asking each question of its
own knowledge base on its own day."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.errors import InvalidInputError
from assay.training.ordinary_kbs import FIT_SUITE, answer_rows, knowledge_bases
from assay.training.ordinary_pairs import ordinary_pairs
from assay.training.ordinary_reading import NEGATIVES, ordinary_reading

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "bench" / "ordinary" / "check.py"


@pytest.mark.parametrize("suite", [ROOT / "bench" / "ordinary", FIT_SUITE])
def test_each_suite_passes_its_check(suite: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(CHECK), str(suite)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "PROBLEM" not in done.stderr


def test_the_fitting_suite_shares_no_knowledge_base_with_the_benchmark() -> None:
    benchmark = {kb.name for kb in knowledge_bases(ROOT / "bench" / "ordinary")}
    fitting = {kb.name for kb in knowledge_bases(FIT_SUITE)}
    assert len(fitting) >= 12
    assert not benchmark & fitting


def test_a_folder_without_knowledge_bases_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="holds no"):
        list(knowledge_bases(tmp_path))


SPEC = {
    "name": "harbor-pump",
    "description": "a pump data sheet and a forum",
    "as_of": "2026-11-30",
    "sources": [
        {
            "id": "datasheet",
            "kind": "official",
            "owner": "Harbor Pumps",
            "reviewed_at": "2026-10-01",
        },
        {"id": "forum", "kind": "unverified", "owner": "forum users", "reviewed_at": None},
    ],
}
POST = {
    "id": "p1",
    "source_id": "forum",
    "title": "Fuse?",
    "published": "2026-08-01",
    "text": "I fitted a 10 amp fuse to my HP-300 and it has been fine.",
}


def _suite(root: Path) -> Path:
    kb = root / "harbor-pump"
    (kb / "docs").mkdir(parents=True)
    (kb / "kb.json").write_text(json.dumps(SPEC))
    (kb / "docs" / "datasheet.md").write_text(
        "---\ntitle: Harbor HP-300 bilge pump data sheet\nsource_id: datasheet\n"
        "published: 2026-05-01\nverified: 2026-10-01\n---\n# Harbor HP-300\n\n"
        "## Electrical\n\nThe HP-300 draws 4.2 amperes at 12 volts and must be protected by "
        "a 7.5 ampere fuse.\n\n## Operation\n\nThe pump may run dry for at most 10 minutes.\n"
    )
    (kb / "docs" / "forum.jsonl").write_text(json.dumps(POST) + "\n")
    questions = [
        {"id": "harbor-pump-q01", "question": "What fuse does the HP-300 need?",
         "type": "direct", "answers": ["7.5 ampere fuse"], "source": "datasheet", "note": ""},
        {"id": "harbor-pump-q02", "question": "How much does the HP-300 weigh?",
         "type": "unanswerable", "answers": [], "source": None, "note": ""},
    ]  # fmt: skip
    (kb / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return root


def test_answer_rows_asks_each_question_of_its_knowledge_base(tmp_path: Path) -> None:
    suite = _suite(tmp_path / "suite")
    [kb] = list(knowledge_bases(suite))
    assert kb.as_of.isoformat() == "2026-11-30" and len(kb.questions) == 2
    rows = answer_rows(suite, "tiny", ["informational"], correctness_model="none")
    assert [(r.dataset, r.condition, r.policy) for r in rows] == [
        ("tiny", "present", "informational"),
        ("tiny", "unanswerable", "informational"),
    ]
    answered, unanswerable = rows
    assert answered.question == "What fuse does the HP-300 need?"
    assert answered.drafted and answered.correct and answered.features is not None
    assert "7.5 ampere fuse" in answered.answer
    assert not unanswerable.answered and not unanswerable.correct


def test_ordinary_pairs_label_the_chunk_holding_the_answer(tmp_path: Path) -> None:
    """Issue 42: the teacher's pairs from users' documents. Each question meets the chunks
    retrieval would hand on; only a chunk holding an answerable question's gold answer
    counts as relevant, and every chunk is paired as it is scored, under its headings."""
    pairs = ordinary_pairs("tiny", _suite(tmp_path / "suite"))
    by_question: dict[str, list[tuple[str, bool]]] = {}
    for pair in pairs:
        by_question.setdefault(pair.first, []).append((pair.second, pair.positive))
    fuse = by_question["What fuse does the HP-300 need?"]
    assert [text for text, positive in fuse if positive] == [
        next(text for text, _ in fuse if "7.5 ampere fuse" in text)
    ]
    assert any("Electrical" in text for text, _ in fuse)  # the heading path is kept
    assert len(fuse) >= 3  # the data sheet's chunks and the forum post's
    weight = by_question["How much does the HP-300 weigh?"]
    assert weight and not any(positive for _, positive in weight)
    assert {p.kind for p in pairs} == {"direct", "unanswerable"}
    assert {p.group for p in pairs} == {"harbor-pump"} and {p.dataset for p in pairs} == {"tiny"}


def test_ordinary_reading_marks_the_answer_where_the_answerer_reads_it(tmp_path: Path) -> None:
    """Issue 41: the reader measured on users' documents. An answerable question meets the
    chunk holding its gold answer, with the answer's place in the chunk as the answerer
    reads it (title path, then text), and its nearest chunks without the answer; an
    unanswerable one meets its nearest chunks, none with an answer."""
    items = ordinary_reading(_suite(tmp_path / "suite"))
    fuse = [i for i in items if i.question == "What fuse does the HP-300 need?"]
    [answer] = [i for i in fuse if i.start is not None]
    assert answer.passage[answer.start :].startswith("7.5 ampere fuse")
    assert answer.answer == "7.5 ampere fuse" and "Electrical" in answer.passage.split("\n")[0]
    assert len(fuse) == 1 + NEGATIVES
    assert all("7.5 ampere" not in i.passage for i in fuse if i.start is None)
    weight = [i for i in items if i.question == "How much does the HP-300 weigh?"]
    assert len(weight) == NEGATIVES and all(i.start is None and not i.golds for i in weight)


def test_check_refuses_a_source_that_supersedes_one_listed_after_it(tmp_path: Path) -> None:
    """A knowledge base registers its sources in order, and a source can only supersede
    one already registered: the check says so before a fit or a benchmark fails on it."""
    suite = _suite(tmp_path / "suite")
    spec = json.loads(json.dumps(SPEC))
    spec["sources"].insert(0, {**spec["sources"][0], "id": "datasheet-2026"})
    spec["sources"][0]["supersedes"] = "datasheet"
    (suite / "harbor-pump" / "kb.json").write_text(json.dumps(spec))
    done = subprocess.run(
        [sys.executable, str(CHECK), str(suite)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "supersedes 'datasheet', listed after it: list it first" in done.stderr
    spec["sources"].append(spec["sources"].pop(0))  # the older one first
    (suite / "harbor-pump" / "kb.json").write_text(json.dumps(spec))
    done = subprocess.run(
        [sys.executable, str(CHECK), str(suite)], capture_output=True, text=True, check=False
    )
    assert "listed after it" not in done.stderr
