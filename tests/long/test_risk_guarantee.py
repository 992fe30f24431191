"""The Learn-then-Test guarantee (B3) checked by repetition: ``make test-long``.

A threshold fitted on a calibration set at risk level ``alpha`` and error level ``delta``
promises that the answered-and-wrong rate exceeds ``alpha`` on at most a ``delta`` share
of calibration draws. Over many random calibration/test splits we count how often the
rate measured on the held-out half exceeds ``alpha`` and require at most ``delta`` plus
three Monte-Carlo standard errors. Two populations:

* synthetic: scores uniform on [0, 1], an item right with probability equal to its
  score, so the true risk at threshold ``t`` is ``(1 - t)^2 / 2`` and is checked too;
* real: the HaluEval QA test split (both answers of each row), scored by the shipped
  support model's P(supported); "answered" means accepted as supported, "wrong" that
  the answer was the hallucinated one. Rows, not pairs, are split between the halves.

The data folder comes from ``ASSAY_DATA`` (default: ``../shared/data`` beside the
repository); the real-data checks skip when it is absent.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from assay.calibration.thresholds import RiskThreshold, risk_controlled_threshold

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]
# resolved now, before the tests' fixtures change the working directory
DATA = Path(os.environ.get("ASSAY_DATA") or ROOT.parent / "shared" / "data").resolve()
HALUEVAL = DATA / "halueval" / "qa_data.json"

SPLITS = 500
ALPHAS = (0.05, 0.10)
DELTA = 0.1
ALLOWED = DELTA + 3 * math.sqrt(DELTA * (1 - DELTA) / SPLITS)

Scored = tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]


def _test_risk(
    fit: RiskThreshold, scores: npt.NDArray[np.float64], correct: npt.NDArray[np.int64]
) -> float:
    """The answered-and-wrong rate of ``fit`` on held-out items (0 when it answers nothing)."""
    if fit.threshold is None:
        return 0.0
    return float(np.mean((scores >= fit.threshold) & (correct == 0)))


def _report(name: str, alpha: float, violations: int, coverage: list[float]) -> str:
    """One line for the log (``pytest -s``) and for the failure message."""
    return (
        f"{name} alpha={alpha:.2f} delta={DELTA}: held-out risk > alpha in "
        f"{violations}/{SPLITS} = {violations / SPLITS:.3f} of splits (allowed {ALLOWED:.3f}); "
        f"mean calibration coverage {np.mean(coverage):.3f}"
    )


@pytest.mark.parametrize("alpha", ALPHAS)
def test_synthetic_scores_keep_the_risk_below_alpha(alpha: float) -> None:
    rng = np.random.default_rng((2021, round(alpha * 100)))
    n_cal = n_test = 1000
    held_out = true_risk = 0
    coverage: list[float] = []
    for _ in range(SPLITS):
        scores = rng.uniform(0.0, 1.0, n_cal + n_test)
        correct = (rng.uniform(0.0, 1.0, scores.size) < scores).astype(np.int64)
        fit = risk_controlled_threshold(scores[:n_cal], correct[:n_cal], alpha=alpha, delta=DELTA)
        coverage.append(fit.coverage)
        held_out += _test_risk(fit, scores[n_cal:], correct[n_cal:]) > alpha
        t = 1.0 if fit.threshold is None else fit.threshold
        true_risk += (1 - t) ** 2 / 2 > alpha
    message = _report("synthetic", alpha, held_out, coverage)
    message += f"; true risk > alpha in {true_risk}/{SPLITS} = {true_risk / SPLITS:.3f}"
    print(message)
    assert held_out / SPLITS <= ALLOWED, message
    assert true_risk / SPLITS <= ALLOWED, message
    # not vacuous: the best possible coverage is sqrt(2 alpha); n=1000 gets well over half
    assert np.mean(coverage) > 0.5 * math.sqrt(2 * alpha), message


@pytest.fixture(scope="module")
def halueval_scored() -> Scored:
    """P(supported), 1 for the right answer, and the row of each HaluEval QA test pair."""
    if not HALUEVAL.is_file():
        pytest.skip(f"no HaluEval data at {HALUEVAL}: set ASSAY_DATA to the data folder")
    from assay.models.support import get_support_model
    from assay.training.datasets import halueval_pairs

    pairs = halueval_pairs(HALUEVAL, "test")
    results = get_support_model().score([(p.claim, p.evidence) for p in pairs])
    scores = np.array([r.score for r in results], dtype=np.float64)
    correct = np.array([p.label == "supported" for p in pairs], dtype=np.int64)
    rows = np.array([int(p.group) for p in pairs], dtype=np.int64)
    return scores, correct, rows


@pytest.mark.parametrize("alpha", ALPHAS)
def test_halueval_support_scores_keep_the_risk_below_alpha(
    halueval_scored: Scored, alpha: float
) -> None:
    scores, correct, rows = halueval_scored
    unique_rows = np.unique(rows)
    rng = np.random.default_rng((13, round(alpha * 100)))
    violations = 0
    coverage: list[float] = []
    for _ in range(SPLITS):
        cal_rows = rng.permutation(unique_rows)[: unique_rows.size // 2]
        cal = np.isin(rows, cal_rows)
        fit = risk_controlled_threshold(scores[cal], correct[cal], alpha=alpha, delta=DELTA)
        coverage.append(fit.coverage)
        violations += _test_risk(fit, scores[~cal], correct[~cal]) > alpha
    message = _report("halueval", alpha, violations, coverage)
    print(message)
    assert violations / SPLITS <= ALLOWED, message
    assert np.mean(coverage) > 0.0, message  # the support model does certify some answers
