"""Fitting the answer-correctness model on several sets: each set weighs the same."""

from __future__ import annotations

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
