"""The teacher-labelling job (issue 42): pairs of every set in turn, labels read from the
endpoint's log-probabilities, and a run that resumes where the last one stopped."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.training import teach
from assay.training.pairsets import DatasetInfo, LabeledPair
from assay.training.resumable import read_rows
from tests.fake_llm import Endpoint, Reply, logprobs_reply, serve


def _pairs(name: str, n: int, *, per_passage: int = 1) -> list[LabeledPair]:
    return [
        LabeledPair(name, "relevance", f"question {k}?", f"passage {k // per_passage} of {name}",
                    "relevant" if k % 2 == 0 else "irrelevant", group=f"g{k}")
        for k in range(n)
    ]  # fmt: skip


@pytest.fixture
def sets(monkeypatch: pytest.MonkeyPatch) -> None:
    def info(name: str, n: int, commercial: bool = True) -> DatasetInfo:
        return DatasetInfo(name, "relevance", "test", "MIT", commercial,
                           lambda _d, _m: _pairs(name, n), name)  # fmt: skip

    registry = {
        "alpha": info("alpha", 4), "beta": info("beta", 2), "gamma": info("gamma", 3, False)
    }  # fmt: skip
    monkeypatch.setattr(teach, "ANSWERABILITY_SETS", registry)
    monkeypatch.setattr(teach, "ORDINARY_SUITES", {})


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    with serve() as ep:
        monkeypatch.setenv("ASSAY_LLM_URL", ep.base_url)
        monkeypatch.setenv("ASSAY_LLM_MODEL", "teacher-test")
        yield ep


def test_pair_id_is_stable_and_tells_sets_apart() -> None:
    a, b = _pairs("alpha", 1)[0], _pairs("beta", 1)[0]
    assert teach.pair_id(a) == teach.pair_id(_pairs("alpha", 1)[0])
    assert teach.pair_id(a) != teach.pair_id(b) and len(teach.pair_id(a)) == 16


@pytest.mark.usefixtures("sets")
def test_pairs_come_in_turn_from_each_commercial_set(tmp_path: Path) -> None:
    pairs = teach.teacher_pairs(tmp_path, tmp_path, per_set=3)
    assert [p.dataset for p in pairs] == ["alpha", "beta", "alpha", "beta", "alpha"]
    assert all(p.dataset != "gamma" for p in pairs)  # research-only: never a teacher label


def test_pairs_of_one_passage_come_together(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The endpoint reads a passage once for all its questions only if they come in a row."""
    info = DatasetInfo("alpha", "relevance", "test", "MIT", True,
                       lambda _d, _m: _pairs("alpha", 12, per_passage=3), "alpha")  # fmt: skip
    monkeypatch.setattr(teach, "ANSWERABILITY_SETS", {"alpha": info})
    monkeypatch.setattr(teach, "ORDINARY_SUITES", {})
    passages = [p.second for p in teach.teacher_pairs(tmp_path, tmp_path, per_set=12)]
    runs = [passages[0]] + [b for a, b in itertools.pairwise(passages) if a != b]
    assert len(passages) == 12 and len(runs) == len(set(passages)) == 4


@pytest.mark.usefixtures("sets")
def test_labels_hold_the_teachers_belief_and_a_rerun_resumes(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    out = tmp_path / "labels"
    endpoint.script(*(Reply(logprobs_reply({"yes": 0.8, "no": 0.2})) for _ in range(3)))
    argv = ["--data", str(tmp_path), "--more", str(tmp_path), "--out", str(out), "--per-set", "2"]
    assert teach.main(argv) == 0
    rows = read_rows(out / "labels.jsonl")
    assert len(rows) == 4 and len(endpoint.requests) == 4
    gold = {teach.pair_id(p): int(p.positive) for s in ("alpha", "beta") for p in _pairs(s, 4)}
    assert all(row["gold"] == gold[row["id"]] for row in rows)
    assert rows[0]["teacher"] == pytest.approx(0.8) and rows[1]["dataset"] == "beta"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["total"] == 4 and manifest["pairs"] == {"alpha": 2, "beta": 2}
    assert "teacher-test" in manifest["teacher"] and "text" not in json.dumps(rows)

    with (out / "labels.jsonl").open("a") as sink:
        sink.write('{"id": "cut short by a st')  # a run killed mid-line
    argv[-1] = "3"
    assert teach.main(argv) == 0
    assert len(endpoint.requests) == 5  # only the one new pair was asked
    assert len(read_rows(out / "labels.jsonl")) == 5


@pytest.mark.usefixtures("sets")
def test_without_an_endpoint_the_job_says_how_to_start_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ASSAY_LLM_URL", raising=False)
    assert teach.main(["--out", str(tmp_path)]) == 2
    assert "make llm" in capsys.readouterr().err


def test_qualifier_swaps_are_labelled_and_their_own_pairs_only_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 42: the teacher labels generated variants too; a swap set's unchanged pair is
    its source's pair, with the same id."""
    pair = LabeledPair("alpha", "relevance", "Who won the final in 2021?",
                       "The final of 2021 went to the home side.", "relevant", "g")  # fmt: skip
    info = DatasetInfo("alpha", "relevance", "test", "MIT", True, lambda _d, _m: [pair], "alpha")
    monkeypatch.setattr(teach, "ANSWERABILITY_SETS", {"alpha": info})
    monkeypatch.setattr(teach, "ORDINARY_SUITES", {})
    monkeypatch.setattr(teach, "SWAP_SOURCES", ("alpha",))
    sets = teach.teacher_sets(tmp_path, tmp_path)
    assert set(sets) == {"alpha", "swap:alpha"}
    kinds = {p.kind for p in sets["swap:alpha"]}
    assert {"own", "year", "passage_year"} <= kinds
    own = next(p for p in sets["swap:alpha"] if p.kind == "own")
    assert teach.pair_id(own) == teach.pair_id(pair)
