"""The relevance head adapted to users' documents folds into one linear head."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.models.features import FEATURE_NAMES
from assay.models.head import LinearHead
from assay.training.adapt_relevance import (
    CARD_HEADING,
    VERSION,
    C,
    adapt,
    card_section,
    fold,
    write_card,
)
from assay.training.ordinary_pairs import ranking_figures


def _base(seed: int) -> LinearHead:
    rng = np.random.default_rng(seed)
    n = 6
    return LinearHead(
        name="assay-relevance", version="1.1.0", features=FEATURE_NAMES[:n],
        classes=("not_relevant", "relevant"), mean=rng.normal(size=n),
        scale=rng.uniform(0.5, 2.0, size=n), coef=rng.normal(size=(1, n)),
        intercept=rng.normal(size=1), idf=np.ones(10), info={"task": "relevance"},
    )  # fmt: skip


def _score(head: LinearHead, x: np.ndarray) -> np.ndarray:
    """The head's logit, computed as its probabilities are (no saturation)."""
    return np.asarray(((x - head.mean) / head.scale) @ head.coef[0] + head.intercept[0])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), a=st.floats(0.0, 2.0), c=st.floats(-2.0, 2.0))
def test_the_folded_head_computes_the_adapted_logit(seed: int, a: float, c: float) -> None:
    """``a * logit_base(x) + ((x - mu) / sd) @ v + c`` is linear in the features, so one
    head over the base's features, mean and scale gives the same probabilities."""
    rng = np.random.default_rng(seed + 1)
    base = _base(seed)
    v, mu, sd = rng.normal(size=6), rng.normal(size=6), rng.uniform(0.5, 2.0, size=6)
    x = rng.normal(size=(20, 6))
    head = fold(base, a, v, c, mu, sd)
    expected = a * _score(base, x) + ((x - mu) / sd) @ v + c
    assert head.version == VERSION and head.features == base.features
    np.testing.assert_allclose(_score(head, x), expected, atol=1e-6)
    sigmoid = 1 / (1 + np.exp(-np.clip(expected, -40, 40)))
    np.testing.assert_allclose(head.probabilities(x)[:, 1], sigmoid, atol=1e-9)


def test_adapting_to_pairs_where_a_feature_tells_relevance_leans_on_it() -> None:
    """Pairs of users' documents where the base head is blind and the first feature tells
    relevant chunks apart: the adapted head ranks them better, and SQuAD's pairs, which
    the base head ranks, stay ranked."""
    rng = np.random.default_rng(3)
    base = _base(3)
    fit_x = rng.normal(size=(400, 6))
    fit_y = (fit_x[:, 0] > 0).astype(np.int64)
    squad_x = rng.normal(size=(400, 6))
    squad_p = base.probabilities(squad_x)[:, 1]
    squad_y = (rng.uniform(size=400) < squad_p).astype(np.int64)
    head = adapt(base, (fit_x, base.probabilities(fit_x)[:, 1], fit_y),
                 (squad_x, squad_p, squad_y))  # fmt: skip
    questions = [f"q{i // 8}" for i in range(400)]
    before = ranking_figures(questions, fit_y, base.probabilities(fit_x)[:, 1])
    after = ranking_figures(questions, fit_y, head.probabilities(fit_x)[:, 1])
    assert after["all_pairs_auroc"] > before["all_pairs_auroc"] + 0.1
    assert after["relevant_first"] >= before["relevant_first"]


def test_the_card_section_is_written_once_and_names_the_adapted_version(tmp_path: Path) -> None:
    """Adapting twice leaves one section on the model card, with the second run's figures,
    and the card's title names the adapted version."""
    card = tmp_path / "MODEL_CARD.md"
    card.write_text("# Model card: assay-relevance 1.1.0 and assay-support 1.0.0\n\nbody\n")
    figures = {
        "from": "assay-relevance@1.1.0", "C": C, "squad_pairs": 10, "fitting_pairs": 20,
        "fitting_suite": "ordinary-fit",
        "held_out_ordinary": {
            part: {"all_pairs_auroc": v, "within_question_auroc": v, "relevant_first": v}
            for part, v in (("before", 0.5), ("after", 0.6))
        },
        "squad_test": {
            part: {"task_a_auroc": v, "task_b_auroc": v, "task_w_auroc": v}
            for part, v in (("before", 0.7), ("after", 0.8))
        },
    }  # fmt: skip
    write_card(card, card_section(figures))
    figures["fitting_pairs"] = 30
    write_card(card, card_section(figures))
    text = card.read_text()
    assert text.startswith(f"# Model card: assay-relevance {VERSION} and")
    assert text.count(CARD_HEADING) == 1 and "body" in text
    assert "the 30 chunk pairs" in text and "the 20 chunk pairs" not in text
    assert "| held-out ordinary documents, all pairs | 0.500 | 0.600 |" in text
