"""Fitting the answer-correctness model on several sets: each set weighs the same."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from assay.answer.correctness import FEATURES, CorrectnessModel
from assay.training.answer_rows import AnswerRow
from assay.training.correctness_train import fit, per_set_weights

pytest.importorskip("sklearn")


def answers(dataset: str, n: int, *, shift: float, seed: int) -> list[AnswerRow]:
    """``n`` drafted answers whose ``reader_statement`` tells right from wrong, plus one
    question nothing was drafted for; ``shift`` moves the set's right rate."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        right = rng.random() < 0.5 + shift
        features = {name: rng.random() for name in FEATURES}
        features["reader_statement"] = rng.gauss(0.7 if right else 0.4, 0.15)
        question = f"{dataset} {i}"
        row = AnswerRow(dataset, "present", "informational", question, "answered", "a",
                        True, True, right, 0.5, features)  # fmt: skip
        rows.append(row)
    undrafted = AnswerRow(dataset, "absent", "informational", "q", "refused", "", False, False,
                          False, 0.0, None)  # fmt: skip
    return [*rows, undrafted]


def believed(rows: list[AnswerRow]) -> list[AnswerRow]:
    """``rows`` with the chat model's two beliefs, as a run with ``--llm`` keeps them."""
    from assay.answer.correctness import LLM_FEATURE, LLM_STATEMENT

    for row in rows:
        if row.features is not None:
            row.features[LLM_FEATURE] = row.features[LLM_STATEMENT] = row.features[
                "reader_statement"
            ]
    return rows


def mean_probability(model: CorrectnessModel, rows: list[AnswerRow]) -> float:
    return float(np.mean([model.probability(r.features) for r in rows if r.features]))


def test_every_set_weighs_the_same_whatever_its_size() -> None:
    rows = answers("squad", 30, shift=0.0, seed=1) + answers("tatqa", 10, shift=0.0, seed=2)
    weights = per_set_weights(rows)
    assert len(weights) == 40  # the drafted answers only, in order
    assert weights[:30].sum() == pytest.approx(weights[30:].sum())
    assert weights.mean() == pytest.approx(1.0)


def test_the_larger_set_does_not_set_the_base_rate() -> None:
    """The mean of the sets' mean probabilities is the mean of their right rates, so a
    set asked twice as often leaves every set's probabilities where they were."""
    squad = answers("squad", 300, shift=-0.2, seed=3)
    tatqa = answers("tatqa", 100, shift=0.2, seed=4)
    rates = [np.mean([r.correct for r in s if r.features]) for s in (squad, tatqa)]
    model = fit(squad + tatqa, "relevance", "reader")
    means = [mean_probability(model, s) for s in (squad, tatqa)]
    assert np.mean(means) == pytest.approx(np.mean(rates), abs=0.01)
    twice = fit(squad + squad + tatqa, "relevance", "reader")
    assert [mean_probability(twice, s) for s in (squad, tatqa)] == pytest.approx(means, abs=0.01)
    statement = FEATURES.index("reader_statement")
    assert model.coef[statement] > 0.5  # and it learned what tells right from wrong


def test_the_llm_model_is_fitted_on_the_ordinary_documents_too(tmp_path, monkeypatch) -> None:
    """`--llm` fits the users' documents of the fitting suite beside SQuAD and TAT-QA
    (assay-correctness-llm 3.0.0): answers kept by an earlier run are read back, not
    asked again, and the card names the suite and its figures."""
    from assay.answer.correctness import LLM_FEATURES
    from assay.training.answer_rows import write_rows
    from assay.training.correctness_train import LLM_VERSION, main

    monkeypatch.setenv("ASSAY_LLM_URL", "http://127.0.0.1:9/v1")  # never asked: rows kept
    monkeypatch.setenv("ASSAY_LLM_MODEL", "a-chat-model")
    rows = tmp_path / "rows"
    for seed, name in enumerate(("squad", "tatqa", "ordinary-fit")):
        write_rows(rows / f"{name}-llm.jsonl", believed(answers(name, 40, shift=0.0, seed=seed)))
    out = tmp_path / "model"
    assert main(["--data", str(tmp_path), "--more", str(tmp_path), "--out", str(out),
                 "--rows", str(rows), "--llm"]) == 0  # fmt: skip
    model = CorrectnessModel.from_dict(json.loads((out / "model.json").read_text()))
    assert (model.name, model.version) == ("assay-correctness-llm", LLM_VERSION)
    assert model.features == LLM_FEATURES
    card = (out / "MODEL_CARD.md").read_text()
    assert "| ordinary-fit, fitted without it | 40 |" in card
    assert "The ordinary documents for fitting (`labels/ordinary-fit`" in card


def test_with_the_llm_only_the_ordinary_documents_are_routed_by_its_reading(
    tmp_path, monkeypatch
) -> None:
    """The public sets are asked with no chat model configured whatever the environment
    names (it would read every question's passages for informational's judgment: hours
    of requests), only their drafts are read for `llm_cited`; the ordinary documents
    are asked as in use, the chat model configured."""
    import assay.training.correctness_train as train

    monkeypatch.setenv("ASSAY_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ASSAY_LLM_MODEL", "a-chat-model")
    asked = {}

    def kept(folder, name, collect, *, llm=False):
        asked[name] = (collect.keywords["llm"].configured, llm)
        return believed(answers(name, 40, shift=0.0, seed=len(asked)))

    monkeypatch.setattr(train, "kept_rows", kept)
    train.main(["--data", str(tmp_path), "--more", str(tmp_path), "--out", str(tmp_path), "--llm"])
    assert asked == {
        "squad": (False, True), "tatqa": (False, True), "ordinary-fit": (True, True)
    }  # fmt: skip


def test_a_feature_one_answer_holds_carries_no_weight() -> None:
    """A conflict on one wrong answer among hundreds once cost every later answer with a
    conflict 3.6 in log-odds (its spread was 0.014, so the clip's full weight)."""
    rows = answers("squad", 200, shift=0.0, seed=5) + answers("tatqa", 100, shift=0.0, seed=6)
    for row in rows:
        if row.features:
            row.features["conflicts"] = 0.0
    wrong = next(r for r in rows if r.features and not r.correct)
    wrong.features["conflicts"] = 1.0  # type: ignore[index]
    model = fit(rows, "relevance", "reader")
    at = FEATURES.index("conflicts")
    assert (model.mean[at], model.scale[at], model.coef[at]) == (0.0, 1.0, 0.0)
    assert model.coef[FEATURES.index("reader_statement")] > 0.5  # the rest is fitted


def test_a_feature_that_speaks_for_the_answer_never_weighs_against_it() -> None:
    """assay-correctness 6.1.0 weighed the judge's support at -0.10: a judge that found
    nothing missing lowered the answer's probability. Here support is high on the wrong
    answers (a correlation of these rows, not what support means): the fit leaves it out
    and still learns the rest; the best passage's relevance may weigh against."""
    rows = answers("squad", 200, shift=0.0, seed=7) + answers("tatqa", 100, shift=0.0, seed=8)
    for row in rows:
        if row.features:
            row.features["support"] = 0.9 if not row.correct else 0.6
            row.features["best_relevance"] = 0.9 if not row.correct else 0.6
    model = fit(rows, "relevance", "reader")
    assert model.coef[FEATURES.index("support")] == 0.0
    assert model.coef[FEATURES.index("best_relevance")] < 0  # not one that speaks for it
    assert model.coef[FEATURES.index("reader_statement")] > 0.5


def test_rows_kept_before_the_statement_was_read_get_it_and_are_kept_again(tmp_path) -> None:
    """assay-correctness-llm 4.0.0 reads the chat model's belief about the answer's first
    statement; rows kept by an earlier run get it from their question and quoted answer
    (one request per answer, none for a question nothing was drafted for)."""
    from assay.answer.correctness import LLM_FEATURE, LLM_STATEMENT
    from assay.models.answerability import LLMAnswerability
    from assay.training.answer_rows import read_rows
    from assay.training.correctness_train import read_statements
    from tests.fake_llm import Reply, logprobs_reply, serve

    rows = answers("squad", 3, shift=0.0, seed=7)
    for row in rows:
        if row.features is not None:
            row.features[LLM_FEATURE] = 0.5
    keep = tmp_path / "squad-llm.jsonl"
    with serve() as endpoint:
        endpoint.script(*[Reply(logprobs_reply({"Yes": 0.7, "No": 0.3})) for _ in range(3)])
        read = read_statements(rows, LLMAnswerability(endpoint.client()), keep)
        asked = [endpoint.messages(i)[1]["content"] for i in range(len(endpoint.requests))]
    assert len(asked) == 3 and all(a.startswith("Passage: a\n") for a in asked)
    assert [r.features[LLM_STATEMENT] for r in read if r.features] == pytest.approx([0.7] * 3)
    assert [r.features for r in read_rows(keep)] == [r.features for r in read]
