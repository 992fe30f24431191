"""Training pieces that the shipped heads depend on: the tree exporter reproduces
scikit-learn exactly, the synthetic support pairs and short relevance windows keep the
article split and carry the labels their docstrings promise."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from assay.models.features import FEATURE_NAMES
from assay.training.datasets import relevance_pairs, squad_splits
from assay.training.perturb import perturbation_pairs
from assay.training.train import best_threshold, export_trees
from assay.training.windows import off_topic_pairs, window_pairs


@pytest.mark.parametrize("classes", [("no", "yes"), ("contradicted", "supported", "unsupported")])
def test_exported_trees_match_scikit_learn(classes: tuple[str, ...]) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 5))
    y = np.asarray(classes)[((x[:, 0] > 0).astype(int) + (x[:, 1] > 1).astype(int)) % len(classes)]
    model = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(x, y)
    head = export_trees(model, "t", FEATURE_NAMES[:5], np.zeros(3), {})
    assert head.classes == tuple(model.classes_)
    probe = rng.normal(size=(200, 5)) * 2  # beyond the training range too
    np.testing.assert_allclose(head.probabilities(probe), model.predict_proba(probe), atol=1e-9)


def test_threshold_maximises_the_mean_balanced_accuracy_of_the_sources() -> None:
    # any cut in (0.1, 0.9] is perfect for "big"; only (0.5, 0.6] is also for "s"
    y = np.asarray([1] * 50 + [0] * 50 + [1, 1, 0, 0])
    score = np.concatenate([np.full(50, 0.9), np.full(50, 0.1), [0.7, 0.6, 0.5, 0.45]])
    sources = np.asarray(["big"] * 100 + ["s"] * 4)
    cut = best_threshold(y, score, sources)
    assert 0.5 < cut <= 0.6


def write_squad(path: Path) -> Path:
    """Six synthetic articles with numbers, names and auxiliaries to perturb."""
    data = []
    for a in range(6):
        paragraphs = []
        for p in range(2):
            context = (
                f"The Tower{a}{p} in Halden was built in {1900 + a} by Anna Berg. "
                f"It is {40 + p} metres tall and was painted red in {1950 + p}. "
                f"Visitors from Oslo can climb all {200 + a} steps every day."
            )
            qas = [
                {
                    "question": f"How tall is Tower{a}{p}?",
                    "is_impossible": False,
                    "answers": [{"text": f"{40 + p} metres", "answer_start": 0}],
                },
                {"question": f"Who painted Tower{a}{p} blue?", "is_impossible": True},
            ]
            paragraphs.append({"context": context, "qas": qas})
        data.append({"title": f"Article {a}", "paragraphs": paragraphs})
    path.write_text(json.dumps({"data": data}), encoding="utf-8")
    return path


def test_perturbation_pairs_keep_the_split_and_label_edits(tmp_path: Path) -> None:
    squad = write_squad(tmp_path / "squad.json")
    train = set(squad_splits(squad)["train"])
    pairs = perturbation_pairs(squad, "train")
    assert pairs and {p.group for p in pairs} <= train
    assert {p.label for p in pairs} == {"supported", "contradicted", "unsupported"}
    for p in pairs:
        if p.label == "supported":
            assert p.claim.rstrip(".") in p.evidence  # the sentence or its first clause
        if p.label == "contradicted":
            assert p.claim not in p.evidence  # an edited sentence, never the original
    assert pairs == perturbation_pairs(squad, "train")  # seeded


def test_windows_label_only_answers_inside_the_window(tmp_path: Path) -> None:
    squad = write_squad(tmp_path / "squad.json")
    pairs = window_pairs(squad, "train")
    assert {p.task for p in pairs} == {"w"}
    for p in pairs:
        assert len(p.passage) < 250  # a window, not the paragraph
        if p.label == 1:
            assert "metres" in p.passage and "blue" not in p.query
        if "blue" in p.query:
            assert p.label == 0


def test_off_topic_pairs_come_from_other_articles(tmp_path: Path) -> None:
    squad = write_squad(tmp_path / "squad.json")
    pairs = relevance_pairs(squad, "train")
    own = {p.query: p.group for p in pairs}
    passages = {p.passage: p.group for p in pairs if p.task == "a"}
    extra = off_topic_pairs(pairs)
    assert extra and all(p.label == 0 and p.task == "o" for p in extra)
    assert all(passages[p.passage] != own[p.query] for p in extra)
