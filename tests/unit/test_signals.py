"""Set-level signals (R1-R5): bounds, known values and the judgment slot (R4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay import InvalidInputError
from assay.scoring.signals import (
    SignalSettings,
    SignalWeights,
    coherence_score,
    compute_set_signals,
    concentration_score,
    coverage_score,
    set_confidence,
    top_gap,
)

unit = st.floats(0.0, 1.0, allow_nan=False)


def unit_vectors(rows: list[list[float]]) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_r1_top_and_gap_known_values() -> None:
    assert top_gap([0.6, 0.9, 0.7]) == (0.9, pytest.approx(0.2))
    assert top_gap([0.8]) == (0.8, 0.8)
    assert top_gap([]) == (0.0, 0.0)


def test_r1_concentration_is_the_share_above_the_level() -> None:
    assert concentration_score([0.9, 0.8, 0.5, 0.2], 0.75, top_n=4) == 0.5
    assert concentration_score([0.9, 0.8, 0.5, 0.2], 0.75, top_n=2) == 1.0
    assert concentration_score([], 0.75, top_n=5) == 0.0


def test_r2_coherence_overall_and_per_source() -> None:
    vectors = unit_vectors([[1, 0], [1, 0.1], [0, 1], [0.1, 1]])
    overall, by_source = coherence_score(vectors, ["a", "a", "b", "b"])
    assert 0.0 < overall < 1.0
    assert by_source["a"] == pytest.approx(0.995, abs=1e-3)
    assert by_source["b"] == pytest.approx(0.995, abs=1e-3)
    assert coherence_score(vectors[:1], ["a"]) == (1.0, {})
    assert coherence_score(vectors[:0], []) == (0.0, {})
    assert coherence_score(vectors[:2], ["a", "a"])[1] == {}  # one source: no breakdown


def test_r3_coverage_counts_stemmed_query_terms() -> None:
    coverage, covered, missing = coverage_score(
        "What temperature is safe for charging batteries?",
        ["Charge the battery between 0 and 45 degrees.", "Temperatures above 60 trip it."],
    )
    assert covered == ["temperature", "charging", "batteries"]
    assert missing == ["safe"]
    assert coverage == pytest.approx(3 / 4)
    assert coverage_score("what is it?", ["anything"])[0] == 0.0


def test_r5_weights_must_sum_to_one() -> None:
    with pytest.raises(InvalidInputError, match=r"sum to 1\.1"):
        SignalWeights(top=0.55)


@given(unit, unit, unit, unit, unit)
def test_r5_composite_stays_in_unit_interval(
    a: float, b: float, c: float, d: float, e: float
) -> None:
    values = {"top": a, "gap": b, "concentration": c, "coherence": d, "coverage": e}
    assert 0.0 <= set_confidence(values, SignalWeights()) <= 1.0


@given(unit, unit, unit, unit, unit, unit)
def test_r4_a_capping_judgment_never_raises_the_composite(
    a: float, b: float, c: float, d: float, e: float, judgment: float
) -> None:
    values = {"top": a, "gap": b, "concentration": c, "coherence": d, "coverage": e}
    plain = set_confidence(values, SignalWeights())
    assert set_confidence(values, SignalWeights(), judgment, mode="cap") <= plain
    blended = set_confidence(values, SignalWeights(), judgment, mode="blend", judgment_weight=0.5)
    assert min(plain, judgment) - 1e-6 <= blended <= max(plain, judgment) + 1e-6


def test_compute_set_signals_end_to_end() -> None:
    vectors = unit_vectors([[1, 0.2], [1, 0.3]])
    signals = compute_set_signals(
        "charging temperature",
        [0.9, 0.85, 0.4],
        ["Charging between 0 and 45 C.", "Temperature limits for charging."],
        vectors,
        ["sds", "wiki"],
        level=0.8,
        settings=SignalSettings(),
    )
    assert signals.top == 0.9 and signals.gap == pytest.approx(0.05)
    assert signals.concentration == pytest.approx(2 / 3, abs=1e-6)
    assert signals.coverage == 1.0 and signals.missing_terms == ()
    assert 0.0 < signals.composite <= 1.0
    assert set(signals.as_dict()) >= {"top", "gap", "concentration", "coherence", "coverage"}
