"""Training pairs: splits never share a group, labels are right, BM25 negatives are
hard but never the positive, length matching equalises answer lengths, all seeded."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from assay.errors import InvalidInputError
from assay.training import (
    BM25,
    SPLITS,
    halueval_pairs,
    relevance_pairs,
    scifact_pairs,
    squad_splits,
    tokenize,
)

# -- synthetic fixtures (no real dataset text) ---------------------------------------------


def write_squad(path: Path, n_articles: int) -> Path:
    data = []
    for a in range(n_articles):
        paragraphs = []
        for p in range(2):
            topic = f"topic{a}x{p}"
            qas = [
                {
                    "id": f"{a}-{p}-0",
                    "question": f"what is {topic} made of",
                    "is_impossible": False,
                    "answers": [{"text": "stone", "answer_start": 0}],
                },
                {
                    "id": f"{a}-{p}-1",
                    "question": f"who painted {topic} blue",
                    "is_impossible": True,
                    "answers": [],
                },
            ]
            context = f"The {topic} is made of stone and {topic} stands near river{a}."
            paragraphs.append({"context": context, "qas": qas})
        data.append({"title": f"Article {a}", "paragraphs": paragraphs})
    path.write_text(json.dumps({"version": "v2.0", "data": data}), encoding="utf-8")
    return path


def write_halueval(path: Path, n_rows: int) -> Path:
    lines = []
    for i in range(n_rows):
        right = " ".join(["yes"] * (1 + i % 3))  # 1-3 words
        wrong = " ".join(["perhaps"] * (2 + i % 5))  # 2-6 words: overlaps at 2 and 3
        row = {
            "knowledge": f"fact number {i}.",
            "question": f"Question {i}?",
            "right_answer": right,
            "hallucinated_answer": wrong,
        }
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


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
        if kind == 0:
            evidence: dict[str, list[dict[str, object]]] = {}
        else:
            label = "SUPPORT" if kind == 1 else "CONTRADICT"
            evidence = {str(doc_id): [{"sentences": [2, 1], "label": label}]}
        claims.append(
            {
                "id": 10 + 2 * c,
                "claim": f"Protein{c} raises insulin.",
                "evidence": evidence,
                "cited_doc_ids": [doc_id],
            }
        )
    claims_path, corpus_path = tmp_path / "claims.jsonl", tmp_path / "corpus.jsonl"
    claims_path.write_text("\n".join(json.dumps(x) for x in claims), encoding="utf-8")
    corpus_path.write_text("\n".join(json.dumps(x) for x in corpus), encoding="utf-8")
    return claims_path, corpus_path


@pytest.fixture
def squad(tmp_path: Path) -> Path:
    return write_squad(tmp_path / "squad.json", 7)


@pytest.fixture
def halueval(tmp_path: Path) -> Path:
    return write_halueval(tmp_path / "qa_data.json", 60)


@pytest.fixture
def scifact(tmp_path: Path) -> tuple[Path, Path]:
    return write_scifact(tmp_path, 20)


def groups_are_disjoint(by_split: dict[str, set[str]]) -> bool:
    names = list(by_split)
    return all(not by_split[a] & by_split[b] for i, a in enumerate(names) for b in names[i + 1 :])


# -- BM25 -----------------------------------------------------------------------------------


def test_bm25_ranks_by_overlap_breaks_ties_by_index_and_excludes() -> None:
    index = BM25(["red apple", "green pear", "red apple", "red red apple pie", "the"])
    top = index.top("red apple", 3)
    ranked = [i for i, _ in top]
    assert ranked.index(0) < ranked.index(2) and dict(top)[0] == dict(top)[2]  # tie -> index
    assert top == sorted(top, key=lambda t: (-t[1], t[0])) and 1 not in ranked
    assert 0 not in [i for i, _ in index.top("red apple", 4, exclude={0})]
    assert index.top("zzz", 2) == [(0, 0.0), (1, 0.0)]  # zero scores fill by index
    assert tokenize("The Cat's hat") == ["cat", "s", "hat"]
    with pytest.raises(InvalidInputError, match="k=-1"):
        index.top("red", -1)


# -- SQuAD ----------------------------------------------------------------------------------


def test_squad_splits_are_20_5_10_in_file_order(tmp_path: Path) -> None:
    splits = squad_splits(write_squad(tmp_path / "s.json", 35))
    assert [len(splits[s]) for s in SPLITS] == [20, 5, 10]
    assert splits["test"] == [f"Article {a}" for a in range(25, 35)]


def test_squad_splits_are_proportional_for_other_counts(squad: Path, tmp_path: Path) -> None:
    assert [len(squad_splits(squad)[s]) for s in SPLITS] == [4, 1, 2]
    assert [len(squad_splits(write_squad(tmp_path / "3.json", 3))[s]) for s in SPLITS] == [1] * 3
    with pytest.raises(InvalidInputError, match="squad article count=2"):
        squad_splits(write_squad(tmp_path / "2.json", 2))


def test_relevance_pairs_labels_negatives_and_disjoint_groups(squad: Path) -> None:
    by_split = {s: relevance_pairs(squad, s) for s in SPLITS}
    assert groups_are_disjoint({s: {p.group for p in ps} for s, ps in by_split.items()})
    assert {p.group for p in by_split["test"]} == set(squad_splits(squad)["test"])
    pairs = by_split["train"]
    task_a = [p for p in pairs if p.task == "a"]
    task_b = [p for p in pairs if p.task == "b"]
    assert len(task_a) == 4 * 2 * 2 and Counter(p.label for p in task_a) == {1: 8, 0: 8}
    assert all("painted" in p.query for p in task_a if p.label == 0)
    assert len(task_b) == 2 * 8 and {p.label for p in task_b} == {0}
    own = {p.query: p.passage for p in task_a}
    assert all(p.passage != own[p.query] for p in task_b)
    assert not any("painted" in p.query for p in task_b)  # answerable questions only
    # The hardest negative is the paragraph sharing river{a}: the other one of the article.
    first = next(p for p in task_b if p.query == "what is topic0x0 made of")
    assert "topic0x1" in first.passage


def test_relevance_pairs_count_zero_and_determinism(squad: Path) -> None:
    assert {p.task for p in relevance_pairs(squad, "validation", bm25_negatives=0)} == {"a"}
    assert relevance_pairs(squad, "test") == relevance_pairs(squad, "test")
    # Asking for more negatives than the split has other paragraphs (3) caps at 3 each.
    capped = relevance_pairs(squad, "test", bm25_negatives=5)
    assert len([p for p in capped if p.task == "b"]) == 3 * 4


# -- HaluEval -------------------------------------------------------------------------------


def test_halueval_splits_labels_and_groups(halueval: Path) -> None:
    by_split = {s: halueval_pairs(halueval, s) for s in SPLITS}
    assert [len(by_split[s]) for s in SPLITS] == [2 * 48, 2 * 6, 2 * 6]
    assert groups_are_disjoint({s: {p.group for p in ps} for s, ps in by_split.items()})
    pairs = by_split["train"]
    assert Counter(p.label for p in pairs) == {"supported": 48, "unsupported": 48}
    first = pairs[0]
    assert first.claim == f"Question {first.group}? {'yes ' * first.answer_words}".strip()
    assert first.evidence == f"fact number {first.group}." and first.source == "halueval"


def test_halueval_length_matching_equalises_histograms(halueval: Path) -> None:
    plain = halueval_pairs(halueval, "train")
    matched = halueval_pairs(halueval, "train", length_matched=True)
    hist = {
        lab: Counter(p.answer_words for p in matched if p.label == lab)
        for lab in ("supported", "unsupported")
    }
    assert hist["supported"] == hist["unsupported"] and set(hist["supported"]) == {2, 3}
    assert set(matched) <= set(plain) and len(matched) < len(plain)
    assert matched == halueval_pairs(halueval, "train", length_matched=True)


def test_halueval_is_deterministic_given_the_seed(halueval: Path) -> None:
    assert halueval_pairs(halueval, "test") == halueval_pairs(halueval, "test", seed=13)
    assert halueval_pairs(halueval, "test") != halueval_pairs(halueval, "test", seed=14)


# -- SciFact --------------------------------------------------------------------------------


def test_scifact_pairs_labels_and_evidence(scifact: tuple[Path, Path]) -> None:
    claims, corpus = scifact
    by_split = {s: scifact_pairs(claims, corpus, s) for s in SPLITS}
    groups = {s: {p.group for p in ps} for s, ps in by_split.items()}
    assert groups_are_disjoint(groups) and [len(groups[s]) for s in SPLITS] == [14, 3, 3]
    pairs = [p for ps in by_split.values() for p in ps]
    assert Counter(p.label for p in pairs) == {"unsupported": 20, "supported": 7, "contradicted": 6}
    for p in pairs:
        c = (int(p.group) - 10) // 2
        if p.label != "unsupported":  # rationale in document order
            assert (
                p.evidence == f"Protein{c} raises insulin in mice. Protein{c} binds insulin"
                " receptors strongly."
            )
        elif c % 3 == 0:  # no evidence: the two best sentences of the cited doc, in order
            assert (
                p.evidence == f"Protein{c} raises insulin in mice. Protein{c} insulin was measured."
            )
        else:  # harder negative: never a rationale sentence
            assert "binds" not in p.evidence and "in mice" not in p.evidence
            assert p.evidence.endswith(f"Protein{c} insulin was measured.")
    assert by_split["test"] == scifact_pairs(claims, corpus, "test", seed=13)


# -- errors ---------------------------------------------------------------------------------


def test_errors_name_the_bad_value_and_the_fix(
    squad: Path, halueval: Path, scifact: tuple[Path, Path], tmp_path: Path
) -> None:
    claims, corpus = scifact
    with pytest.raises(InvalidInputError, match="did you mean 'test'"):
        relevance_pairs(squad, "tset")
    with pytest.raises(InvalidInputError, match="is not a file"):
        halueval_pairs(tmp_path / "missing.json", "train")
    with pytest.raises(InvalidInputError, match="bm25_negatives=-1"):
        relevance_pairs(squad, "train", bm25_negatives=-1)
    with pytest.raises(InvalidInputError, match="seed=-3"):
        scifact_pairs(claims, corpus, "train", seed=-3)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"knowledge": "k", "question": "q"}\n', encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"line 1.*HaluEval QA"):
        halueval_pairs(bad, "train")
    with pytest.raises(InvalidInputError, match=r"SQuAD 2\.0 JSON"):
        squad_splits(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="doc_id=1000 is not in the corpus"):
        scifact_pairs(claims, empty, "train")
