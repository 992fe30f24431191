"""Labeled sets: one JSONL format that round-trips, refuses every bad line by line and
field, and converters from SQuAD 2.0, HaluEval, SciFact and the review queue."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from assay import Assay
from assay.calibration.labels import (
    LabeledExample,
    halueval_labels,
    labels_sha256,
    read_labels,
    review_labels,
    scifact_labels,
    squad_knowledge_base,
    squad_labels,
    write_labels,
)
from assay.errors import InvalidInputError
from assay.ingest.loaders import load_file
from assay.judge.schema import Context
from assay.training import SPLITS, halueval_pairs, scifact_pairs, squad_splits
from tests.conftest import write_jsonl
from tests.unit.test_review import ask_event, assessment

# -- synthetic files shaped like the real ones (no real dataset text) ----------------------


def write_squad(path: Path, n_articles: int) -> Path:
    data = []
    for a in range(n_articles):
        paragraphs = []
        for p in range(2):
            topic = f"topic{a}x{p}"
            qas = [
                {
                    "id": f"q{a}-{p}-0",
                    "question": f"what is {topic} made of",
                    "is_impossible": False,
                    "answers": [
                        {"text": "stone", "answer_start": 20},
                        {"text": "stone", "answer_start": 20},
                        {"text": "grey stone", "answer_start": 15},
                    ],
                },
                {
                    "id": f"q{a}-{p}-1",
                    "question": f"who painted {topic} blue",
                    "is_impossible": True,
                    "answers": [],
                },
            ]
            context = f"The {topic} is made of stone and stands near river{a}."
            paragraphs.append({"context": context, "qas": qas})
        data.append({"title": f"Article_{a}", "paragraphs": paragraphs})
    path.write_text(json.dumps({"version": "v2.0", "data": data}), encoding="utf-8")
    return path


def write_halueval(path: Path, n_rows: int) -> Path:
    rows = [
        {
            "knowledge": f"fact number {i}.",
            "question": f"Question {i}?",
            "right_answer": " ".join(["yes"] * (1 + i % 3)),
            "hallucinated_answer": " ".join(["perhaps"] * (2 + i % 5)),
        }
        for i in range(n_rows)
    ]
    return write_jsonl(path, rows)


def write_scifact(tmp_path: Path, n_claims: int) -> tuple[Path, Path]:
    corpus, claims = [], []
    for c in range(n_claims):
        doc_id = 1000 + c
        abstract = [
            f"Background on cells {c}.",
            f"Protein{c} raises insulin in mice.",
            f"Protein{c} binds insulin receptors strongly.",
            "Unrelated methods sentence.",
            f"Protein{c} insulin was measured.",
        ]
        corpus.append({"doc_id": doc_id, "title": f"Doc {c}", "abstract": abstract})
        kind = c % 3
        evidence = (
            {str(doc_id): [{"sentences": [2, 1], "label": ["SUPPORT", "CONTRADICT"][kind - 1]}]}
            if kind
            else {}
        )
        claims.append(
            {
                "id": 10 + 2 * c,
                "claim": f"Protein{c} raises insulin.",
                "evidence": evidence,
                "cited_doc_ids": [doc_id],
            }
        )
    return (
        write_jsonl(tmp_path / "claims.jsonl", claims),
        write_jsonl(tmp_path / "corpus.jsonl", corpus),
    )


# -- the format --------------------------------------------------------------------------


EXAMPLES = [
    LabeledExample(
        "What is the Chinese name for the Yuan dynasty?",
        1,
        category="Yuan_dynasty",
        gold=("Yuán Cháo", "元朝"),
        source="squad_v2:test",
        id="q1",
    ),
    LabeledExample(
        "Which magazine came first?",
        0,
        answer="First for Women",
        contexts=(Context("knowledge", "Arthur's Magazine (1844) ..."), Context("b", "")),
        score=0.25,
        source="halueval:test",
        id="q2",
    ),
    LabeledExample("bare question", 0, score=1),
]


def test_write_then_read_round_trips_atomically_and_hashes_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "sets" / "labels.jsonl"
    write_labels(path, EXAMPLES)
    assert read_labels(path) == EXAMPLES
    assert sorted(p.name for p in path.parent.iterdir()) == ["labels.jsonl"]  # no temp left
    assert labels_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["contexts"] == "kb" and first["gold"] == ["Yuán Cháo", "元朝"]
    assert "元朝" in path.read_text(encoding="utf-8")  # UTF-8 kept, not escaped
    digest = labels_sha256(path)
    write_labels(path, EXAMPLES[:1])
    assert labels_sha256(path) != digest and read_labels(path) == EXAMPLES[:1]
    assert LabeledExample.from_json(EXAMPLES[1].to_json()) == EXAMPLES[1]


def test_write_refuses_an_invalid_example_and_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    write_labels(path, EXAMPLES)
    before = path.read_bytes()
    with pytest.raises(InvalidInputError, match=r"example 1: label=2 is invalid"):
        write_labels(path, [EXAMPLES[0], LabeledExample("q", 2)])
    assert path.read_bytes() == before and len(list(tmp_path.iterdir())) == 1


GOOD = {"query": "q", "contexts": "kb", "label": 1}


@pytest.mark.parametrize(
    ("line", "field", "shown"),
    [
        (GOOD | {"label": 2}, "label", "2"),
        (GOOD | {"label": True}, "label", "True"),
        (GOOD | {"label": "1"}, "label", "'1'"),
        (GOOD | {"lable": 1}, "lable", "1"),
        ({"query": "q", "contexts": "kb"}, "label", "None"),
        (GOOD | {"contexts": []}, "contexts", "[]"),
        (GOOD | {"contexts": "KB"}, "contexts", "'KB'"),
        (GOOD | {"contexts": [{"id": "a"}]}, "contexts[0]", "{'id': 'a'}"),
        (GOOD | {"contexts": [{"id": "a", "text": 3}]}, "contexts[0].text", "3"),
        (GOOD | {"score": 1.5}, "score", "1.5"),
        (GOOD | {"score": -0.1}, "score", "-0.1"),
        (GOOD | {"score": "0.5"}, "score", "'0.5'"),
        (GOOD | {"query": " "}, "query", "' '"),
        (GOOD | {"gold": "stone"}, "gold", "'stone'"),
        (GOOD | {"answer": 3}, "answer", "3"),
        (GOOD | {"id": None}, "id", "None"),
        ([1, 2], "record", "[1, 2]"),
        ('{"query": "q", "label": 1,', "record", '\'{"query"'),
    ],
)
def test_read_refuses_a_bad_line_naming_file_line_and_field(
    tmp_path: Path, line: Any, field: str, shown: str
) -> None:
    path = tmp_path / "labels.jsonl"
    text = line if isinstance(line, str) else json.dumps(line)
    path.write_text(json.dumps(GOOD) + "\n\n" + text + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as caught:
        read_labels(path)
    assert caught.value.field == f"{path}: line 3: {field}"
    assert f"={shown}" in str(caught.value) and caught.value.fix


def test_bad_values_say_how_to_fix_them(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    for line, fix in [
        (GOOD | {"lable": 1}, r"did you mean 'label'\? use only the keys id, source"),
        (GOOD | {"label": 2}, r"give 1 \(correct / answerable / supported\) or 0"),
        (GOOD | {"contexts": []}, r'non-empty list of \{"id", "text"\} objects, or "kb"'),
        (GOOD | {"score": 2}, "give a number between 0 and 1"),
    ]:
        path.write_text(json.dumps(line) + "\n", encoding="utf-8")
        with pytest.raises(InvalidInputError, match=fix):
            read_labels(path)
    path.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"line 1: record=.* is not valid JSON"):
        read_labels(path)
    with pytest.raises(InvalidInputError, match=r"labels path=.* is not a file"):
        read_labels(tmp_path / "missing.jsonl")
    with pytest.raises(InvalidInputError, match="is not a file"):
        labels_sha256(tmp_path)


# -- converters --------------------------------------------------------------------------


def test_squad_labels_and_knowledge_base_come_from_the_same_articles(tmp_path: Path) -> None:
    squad = write_squad(tmp_path / "squad.json", 7)
    titles = squad_splits(squad)
    for split in SPLITS:
        labels = squad_labels(squad, split)
        kb = squad_knowledge_base(squad, split)
        assert [e.category for e in labels] == [t for t in titles[split] for _ in range(4)]
        assert {r["title"] for r in kb} == {t.replace("_", " ") for t in titles[split]}
        assert len(kb) == 2 * len(titles[split]) and len({r["id"] for r in kb}) == len(kb)
        assert Counter(e.label for e in labels) == {1: len(kb), 0: len(kb)}
        assert all(e.source == f"squad_v2:{split}" and e.contexts is None for e in labels)
    labels = squad_labels(squad, "test")
    assert labels[0] == LabeledExample(
        "what is topic5x0 made of",
        1,
        category="Article_5",
        gold=("stone", "grey stone"),
        source="squad_v2:test",
        id="q5-0-0",
    )
    assert labels[1].gold == () and labels[1].label == 0 and labels[1].id == "q5-0-1"
    assert squad_labels(squad, "test", seed=99) == labels  # split by article, not drawn
    # the KB records are what `assay ingest` reads
    documents = load_file(write_jsonl(tmp_path / "kb.jsonl", squad_knowledge_base(squad, "test")))
    assert [d.title for d in documents] == ["Article 5", "Article 5", "Article 6", "Article 6"]
    with pytest.raises(InvalidInputError, match=r"split='tst'.*did you mean 'test'"):
        squad_labels(squad, "tst")


def test_halueval_gives_the_right_and_the_hallucinated_answer_per_row(tmp_path: Path) -> None:
    path = write_halueval(tmp_path / "qa_data.json", 60)
    rows = {s: sorted({int(p.group) for p in halueval_pairs(path, s)}) for s in SPLITS}
    for split in SPLITS:
        labels = halueval_labels(path, split)
        assert len(labels) == 2 * len(rows[split]) and [e.label for e in labels[:2]] == [1, 0]
        assert [e.query for e in labels[::2]] == [f"Question {i}?" for i in rows[split]]
        assert all(e.contexts and e.contexts[0].id == "knowledge" for e in labels)
    first, second = halueval_labels(path, "test")[:2]
    i = rows["test"][0]
    assert first.answer == " ".join(["yes"] * (1 + i % 3)) and first.id == f"halueval:{i}:right"
    assert second.answer == " ".join(["perhaps"] * (2 + i % 5)) and second.label == 0
    assert first.contexts == (Context("knowledge", f"fact number {i}."),)
    assert halueval_labels(path, "test") == halueval_labels(path, "test", seed=13)
    assert halueval_labels(path, "test", seed=5) != halueval_labels(path, "test")


def test_halueval_length_matched_is_the_subset_halueval_pairs_keeps(tmp_path: Path) -> None:
    path = write_halueval(tmp_path / "qa_data.json", 60)
    for split in SPLITS:
        pairs = halueval_pairs(path, split, length_matched=True)
        labels = halueval_labels(path, split, length_matched=True)
        expected = [(p.group, int(p.label == "supported")) for p in pairs]
        assert [(e.id.split(":")[1], e.label) for e in labels] == expected
        assert [f"{e.query} {e.answer}" for e in labels] == [p.claim for p in pairs]
        all_ids = {e.id for e in halueval_labels(path, split)}
        assert {e.id for e in labels} < all_ids
        assert Counter(e.label for e in labels)[0] == Counter(e.label for e in labels)[1]


def test_scifact_labels_follow_scifact_pairs(tmp_path: Path) -> None:
    claims, corpus = write_scifact(tmp_path, 20)
    for split in SPLITS:
        pairs = scifact_pairs(claims, corpus, split)
        labels = scifact_labels(claims, corpus, split)
        assert [e.category for e in labels] == [p.label for p in pairs]
        assert [e.label for e in labels] == [int(p.label == "supported") for p in pairs]
        assert all(e.query == e.answer for e in labels)
        assert [e.contexts for e in labels] == [(Context("evidence", p.evidence),) for p in pairs]
        assert len({e.id for e in labels}) == len(labels)
    assert {e.category for s in SPLITS for e in scifact_labels(claims, corpus, s)} == {
        "supported",
        "contradicted",
        "unsupported",
    }


def test_review_labels_are_the_resolved_verdicts_oldest_first(engine: Assay) -> None:
    queue = engine.review
    first, second, pending = (
        queue.add(
            event_id=ask_event(engine, f"question {i}"),
            query=f"question {i}",
            answer=f"answer {i}",
            reason="recommended_action human_review",
            assessment=assessment(score),
            policy_name="financial",
            policy_version="1",
        )
        for i, score in enumerate((0.42, 0.7, 0.5))
    )
    assert review_labels(queue) == []
    queue.resolve(second.id, "incorrect")
    queue.resolve(first.id, "correct", note="checked the SDS")
    labels = review_labels(queue)
    assert labels == [
        LabeledExample(
            "question 0",
            1,
            answer=first.answer,
            category="financial",
            score=0.42,
            source="review",
            id=first.event_id,
        ),
        LabeledExample(
            "question 1",
            0,
            answer=second.answer,
            category="financial",
            score=0.7,
            source="review",
            id=second.event_id,
        ),
    ]
    assert [(e.score, bool(e.label), e.id) for e in labels] == queue.labels()
    assert pending.event_id not in {e.id for e in labels}


# -- the real data -------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("ASSAY_DATA", REPO.parent / "shared" / "data"))
SQUAD = DATA / "squad_v2_dev" / "dev-v2.0.reconstructed.json"


@pytest.mark.skipif(not SQUAD.is_file(), reason="no SQuAD 2.0 dev set: set ASSAY_DATA")
def test_real_squad_test_split_is_every_question_of_its_ten_articles(tmp_path: Path) -> None:
    articles = json.loads(SQUAD.read_text(encoding="utf-8"))["data"]
    test_titles = squad_splits(SQUAD)["test"]
    assert test_titles == [a["title"] for a in articles[-10:]]
    questions = [q for a in articles[-10:] for p in a["paragraphs"] for q in p["qas"]]
    labels = squad_labels(SQUAD, "test")
    assert len(labels) == len(questions) > 3000
    counts = Counter(e.label for e in labels)
    assert counts[1] == sum(not q["is_impossible"] for q in questions) and counts[0] > 1000
    assert all(e.gold for e in labels if e.label) and not any(e.gold for e in labels if not e.label)
    assert len({e.id for e in labels}) == len(labels)
    kb = squad_knowledge_base(SQUAD, "test")
    assert len(kb) == sum(len(a["paragraphs"]) for a in articles[-10:])
    assert {r["title"] for r in kb} == {t.replace("_", " ") for t in test_titles}
    write_labels(tmp_path / "squad_test.jsonl", labels)
    assert read_labels(tmp_path / "squad_test.jsonl") == labels
