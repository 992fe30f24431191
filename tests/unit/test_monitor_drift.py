"""Drift detection and alerts (J9): the tests, the verdicts, and alerts opened and closed."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay import Assay, Candidate, InvalidInputError, StorageError
from assay.monitor import Distribution, DriftRules, compare_means, compare_rates
from assay.monitor.stats import two_proportion_test, welch_test
from tests.conftest import AS_OF, FINANCIAL_VERSION

RULES = DriftRules(window=40, baseline=120)
scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(
    st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
)
def test_j9_two_proportion_test_is_symmetric(a: tuple[int, int], b: tuple[int, int]) -> None:
    forward, backward = two_proportion_test(*a, *b), two_proportion_test(*b, *a)
    assert forward.statistic == pytest.approx(-backward.statistic, abs=1e-12)
    assert forward.p_value == pytest.approx(backward.p_value, abs=1e-12)
    assert 0.0 <= forward.p_value <= 1.0


@given(st.lists(scores, min_size=30, max_size=80))
def test_j9_identical_windows_never_alert(values: list[float]) -> None:
    d = Distribution.of(values)
    assert compare_means("p", d, d, DriftRules()).drifted is False
    hits = sum(v < 0.5 for v in values)
    assert (
        compare_rates("p", (hits, len(values)), (hits, len(values)), DriftRules()).drifted is False
    )


@given(st.lists(scores, min_size=30, max_size=80), st.randoms(use_true_random=False))
def test_j9_the_same_sample_in_another_order_never_alerts(
    values: list[float], rnd: random.Random
) -> None:
    shuffled = values[:]
    rnd.shuffle(shuffled)
    verdict = compare_means("p", Distribution.of(values), Distribution.of(shuffled), DriftRules())
    assert verdict.drifted is False


def test_j9_welch_statistic_matches_its_definition() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.6, 0.1, 300), rng.normal(0.62, 0.2, 80)
    t = (b.mean() - a.mean()) / math.sqrt(a.var(ddof=1) / 300 + b.var(ddof=1) / 80)
    result = welch_test(Distribution.of(a.tolist()), Distribution.of(b.tolist()))
    assert result.statistic == pytest.approx(t)
    assert result.p_value == pytest.approx(math.erfc(abs(t) / math.sqrt(2)))
    constant = Distribution.of([0.5] * 40)
    assert welch_test(constant, constant).p_value == 1.0
    assert welch_test(constant, Distribution.of([0.6] * 40)).statistic == math.inf


def test_j9_pure_noise_rarely_alerts() -> None:
    """Windows drawn from one distribution alert about alpha (1%) of the time, not more."""
    rng = np.random.default_rng(2026)
    alerts = 0
    for _ in range(300):
        base, now = rng.beta(8, 3, 1000), rng.beta(8, 3, 200)
        verdict = compare_means(
            "p", Distribution.of(base.tolist()), Distribution.of(now.tolist()), DriftRules()
        )
        alerts += bool(verdict.drifted)
    assert alerts <= 9  # expected 3; 9 is far in the tail


def test_j9_a_real_shift_alerts_and_says_which_way() -> None:
    rng = np.random.default_rng(3)
    base, now = rng.normal(0.8, 0.05, 1000), rng.normal(0.77, 0.05, 200)
    verdict = compare_means(
        "p", Distribution.of(base.tolist()), Distribution.of(now.tolist()), DriftRules()
    )
    assert verdict.drifted is True and verdict.p_value is not None and verdict.p_value < 0.01
    assert verdict.detail["direction"] == "down" and "drift" in verdict.reason
    assert verdict.to_dict()["metric"] == "mean_score"


def test_j9_a_significant_but_tiny_shift_does_not_alert() -> None:
    """Below 0.1 baseline sd a shift is ignored, however many events measure it."""
    base = Distribution(n=1_000_000, mean=0.5, sd=0.1)
    now = Distribution(n=1_000_000, mean=0.505, sd=0.1)
    verdict = compare_means("p", base, now, DriftRules())
    assert verdict.p_value is not None and verdict.p_value < 1e-10
    assert verdict.drifted is False and "within 0.1 sd" in verdict.reason


def test_j9_too_few_events_give_no_verdict() -> None:
    few, many = Distribution.of([0.1] * 29), Distribution.of([0.9] * 100)
    assert compare_means("p", many, few, DriftRules()).drifted is None
    assert compare_rates("p", (0, 100), (29, 29), DriftRules()).drifted is None
    assert compare_rates("p", (0, 100), (10, 30), DriftRules()).drifted is True
    with pytest.raises(InvalidInputError, match="window=0"):
        DriftRules(window=0)
    with pytest.raises(InvalidInputError, match="min_samples=1"):
        DriftRules(min_samples=1)


# --- alerts on a real database -----------------------------------------------------------


def write(
    engine: Assay, low: float, high: float, n: int, seed: int, policy: str = "financial"
) -> None:
    """``n`` score events whose one candidate has a similarity drawn from [low, high]."""
    rnd = random.Random(seed)
    for i in range(n):
        similarity = rnd.uniform(low, high)
        candidate = Candidate(
            "c",
            "Charge between 0 and 45 degrees.",
            similarity,
            source_id="sds",
            published="2026-11-01",
        )
        engine.score(f"question {i}", [candidate], policy=policy, as_of=AS_OF)


def test_j9_mean_shift_opens_alert_once_and_audits_it(engine: Assay) -> None:
    write(engine, 0.85, 0.95, 120, seed=1)
    write(engine, 0.70, 0.80, 40, seed=2)
    result = engine.monitor.check(window=40, baseline=120)
    [alert] = [a for a in result.opened if a.metric == "mean_score"]
    assert alert.policy_name == "financial" and alert.is_open and alert.tightened_by is None
    assert alert.current < alert.baseline and alert.p_value is not None and alert.p_value < 0.01
    assert alert.detail["n_current"] == 40 and alert.detail["n_baseline"] == 120
    assert {d.metric for d in result.drift} == {"mean_score", "abstention_rate"}
    events = [e for e in engine.audit.list(kind="alert") if e.payload["alert"]["id"] == alert.id]
    assert [e.payload["action"] for e in events] == ["open"]
    assert (events[0].policy_name, events[0].policy_version) == ("financial", FINANCIAL_VERSION)
    assert engine.audit.list(kind="policy") == []  # auto_tighten is off by default
    again = engine.monitor.check(window=40, baseline=120)
    assert again.opened == () and [a.id for a in engine.monitor.alerts()] == [
        a.id for a in result.opened[::-1]
    ]
    assert engine.monitor.alert(alert.id) == alert
    assert engine.audit.verify().ok


def test_j9_alert_closes_when_the_drift_is_gone(engine: Assay) -> None:
    write(engine, 0.85, 0.95, 120, seed=1)
    write(engine, 0.70, 0.80, 40, seed=2)
    [opened] = [
        a for a in engine.monitor.check(window=40, baseline=120).opened if a.metric == "mean_score"
    ]
    write(engine, 0.85, 0.95, 160, seed=3)  # back to normal: both windows like the baseline
    result = engine.monitor.check(window=40, baseline=120)
    [closed] = [a for a in result.closed if a.id == opened.id]
    assert not closed.is_open and closed.closed_at is not None
    assert closed.detail["closed_by"]["drifted"] is False
    assert engine.monitor.alerts() == [] and len(engine.monitor.alerts(include_closed=True)) >= 1
    actions = [
        e.payload["action"]
        for e in engine.audit.list(kind="alert")
        if e.payload["alert"]["id"] == opened.id
    ]
    assert actions == ["close", "open"]  # newest first


def test_j9_abstention_rate_alert(engine: Assay) -> None:
    write(engine, 0.85, 0.95, 120, seed=1, policy="legal")
    write(engine, 0.0, 0.3, 40, seed=2, policy="legal")  # nothing admitted: all abstain
    opened = {a.metric: a for a in engine.monitor.check(window=40, baseline=120).opened}
    assert opened["abstention_rate"].baseline == 0.0 and opened["abstention_rate"].current == 1.0
    assert opened["abstention_rate"].policy_name == "legal"


def test_j9_too_few_events_change_nothing(engine: Assay) -> None:
    write(engine, 0.85, 0.95, 20, seed=1)
    write(engine, 0.1, 0.2, 20, seed=2)
    result = engine.monitor.check(window=20, baseline=20)
    assert result.opened == () and {d.drifted for d in result.drift} == {None}
    assert "too few events" in result.drift[0].reason


def test_j9_alert_row_and_audit_event_land_together(
    engine: Assay, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(engine, 0.85, 0.95, 120, seed=1)
    write(engine, 0.70, 0.80, 40, seed=2)
    before = engine.audit.head()

    def broken(*_: object, **__: object) -> None:
        raise StorageError("disk full")

    monkeypatch.setattr(engine.audit, "append", broken)
    with pytest.raises(StorageError, match="disk full"):
        engine.monitor.check(window=40, baseline=120)
    monkeypatch.undo()
    assert engine.monitor.alerts(include_closed=True) == [] and engine.audit.head() == before


def test_j9_identical_traffic_opens_nothing(engine: Assay) -> None:
    write(engine, 0.8, 0.95, 160, seed=5)
    result = engine.monitor.check(window=40, baseline=120)
    assert result.opened == () and {d.drifted for d in result.drift} == {False}
    assert result.to_dict()["drift"][0]["policy_name"] == "financial"
