"""Drift detection (J9): has a policy's recent traffic moved away from its baseline?

Per policy, the current window (the last ``window`` ``ask``/``score`` events, default
200) is compared with the baseline (the ``baseline`` events just before it, default
1000). Two metrics:

``mean_score``
    the mean evidence strength of the events: the best confidence among each request's
    retrieved items, admitted or not (:mod:`assay.monitor.events`). It is the same
    quantity for ``ask`` and ``score`` events, and no threshold moves it, so the
    tightening an alert may bring (E12) cannot keep that alert open. It drifts when
    the mean moved by more than ``min_effect`` (0.1) baseline
    standard deviations **and** Welch's t-test (normal approximation) gives
    p < ``alpha`` (0.01). The effect-size floor keeps a tiny but very well measured
    shift from alerting; the test keeps pure noise from alerting: two windows drawn
    from the same distribution differ by chance, and that difference is only called
    drift when it is unlikely (below 1 in 100) to be chance alone.
``abstention_rate``
    drifts when a pooled two-proportion z-test of the abstention rates gives
    p < ``alpha``. The thresholds decide abstentions, so both windows hold only
    requests served under the policy as written: those served while an alert tightened
    it are left out (while it stays tightened, this verdict does not change).

Either window with fewer than ``min_samples`` (30) events gives no verdict
(``drifted`` is ``None``): too few to tell drift from noise, so an alert is neither
opened nor closed on it. A shift in either direction is drift: a rise in scores or a
fall in abstentions is as much a change in the traffic as the reverse.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from assay.errors import InvalidInputError
from assay.monitor.events import EventRow, check_window, window_rows
from assay.monitor.stats import Distribution, two_proportion_test, welch_test
from assay.store.repositories import MonitorRepository

__all__ = [
    "METRICS",
    "Drift",
    "DriftRules",
    "compare_means",
    "compare_rates",
    "evaluate_policy",
]

METRICS = ("mean_score", "abstention_rate")
#: scores are stored to 6 decimals: a smaller difference of means is rounding, not drift
_RESOLUTION = 1e-9


@dataclass(frozen=True, slots=True)
class DriftRules:
    """Window sizes and the thresholds of a verdict (see the module docstring)."""

    window: int = 200
    baseline: int = 1000
    min_samples: int = 30
    alpha: float = 0.01
    min_effect: float = 0.1  #: in baseline standard deviations, for ``mean_score``

    def __post_init__(self) -> None:
        check_window(self.window, "window")
        check_window(self.baseline, "baseline")
        if isinstance(self.min_samples, bool) or self.min_samples < 2:
            raise InvalidInputError("min_samples", self.min_samples, "give at least 2 events")
        if not 0.0 < self.alpha < 1.0:
            raise InvalidInputError("alpha", self.alpha, "give a significance level in (0, 1)")
        if self.min_effect < 0.0:
            raise InvalidInputError("min_effect", self.min_effect, "give 0 or more")


@dataclass(frozen=True, slots=True)
class Drift:
    """The verdict on one metric of one policy; ``drifted`` ``None``: too few events."""

    policy_name: str
    metric: str
    drifted: bool | None
    baseline: float | None
    current: float | None
    statistic: float | None
    p_value: float | None
    reason: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (infinite statistics as strings, which JSON lacks)."""
        return {
            "policy_name": self.policy_name,
            "metric": self.metric,
            "drifted": self.drifted,
            "baseline": _round(self.baseline),
            "current": _round(self.current),
            "statistic": _json_number(self.statistic),
            "p_value": self.p_value,
            "reason": self.reason,
            "detail": dict(self.detail),
        }


def compare_means(
    policy_name: str, baseline: Distribution, current: Distribution, rules: DriftRules
) -> Drift:
    """``mean_score`` drift between two score distributions."""
    detail = {"n_baseline": baseline.n, "n_current": current.n, "test": "welch_t_normal"}
    if min(baseline.n, current.n) < rules.min_samples:
        why = f"too few events for a verdict (need {rules.min_samples} in each window)"
        return Drift(
            policy_name, "mean_score", None, baseline.mean, current.mean, None, None, why, detail
        )
    assert baseline.mean is not None and current.mean is not None
    assert baseline.sd is not None and current.sd is not None
    test = welch_test(baseline, current)
    diff = current.mean - baseline.mean
    floor = max(rules.min_effect * baseline.sd, _RESOLUTION)
    large = abs(diff) > floor
    significant = test.p_value < rules.alpha
    detail |= {
        "sd_baseline": _round(baseline.sd),
        "sd_current": _round(current.sd),
        "difference": _round(diff),
        "min_effect": _round(floor),
        "alpha": rules.alpha,
        "direction": "up" if diff > 0 else "down" if diff < 0 else "none",
    }
    shift = f"mean score {baseline.mean:.3f} -> {current.mean:.3f} (t={test.statistic:.2f}, "
    shift += f"p={test.p_value:.2g})"
    if large and significant:
        reason = f"{shift}: drift"
    elif not large:
        reason = f"{shift}: within {rules.min_effect:g} sd of the baseline"
    else:
        reason = f"{shift}: not significant at {rules.alpha:g}"
    return Drift(
        policy_name,
        "mean_score",
        large and significant,
        baseline.mean,
        current.mean,
        test.statistic,
        test.p_value,
        reason,
        detail,
    )


def compare_rates(
    policy_name: str,
    baseline: tuple[int, int],
    current: tuple[int, int],
    rules: DriftRules,
) -> Drift:
    """``abstention_rate`` drift; ``baseline`` and ``current`` are (abstentions, events)."""
    (b_hits, b_n), (c_hits, c_n) = baseline, current
    b_rate = b_hits / b_n if b_n else None
    c_rate = c_hits / c_n if c_n else None
    detail: dict[str, Any] = {
        "n_baseline": b_n,
        "n_current": c_n,
        "abstained_baseline": b_hits,
        "abstained_current": c_hits,
        "test": "two_proportion_z",
    }
    if min(b_n, c_n) < rules.min_samples:
        why = f"too few events for a verdict (need {rules.min_samples} in each window)"
        return Drift(policy_name, "abstention_rate", None, b_rate, c_rate, None, None, why, detail)
    assert b_rate is not None and c_rate is not None
    test = two_proportion_test(b_hits, b_n, c_hits, c_n)
    drifted = test.p_value < rules.alpha
    detail |= {
        "alpha": rules.alpha,
        "direction": "up" if c_rate > b_rate else "down" if c_rate < b_rate else "none",
    }
    reason = f"abstention rate {b_rate:.3f} -> {c_rate:.3f} (z={test.statistic:.2f}, "
    reason += f"p={test.p_value:.2g}): " + (
        "drift" if drifted else f"not significant at {rules.alpha:g}"
    )
    return Drift(
        policy_name,
        "abstention_rate",
        drifted,
        b_rate,
        c_rate,
        test.statistic,
        test.p_value,
        reason,
        detail,
    )


def evaluate_policy(
    repo: MonitorRepository, policy_name: str, rules: DriftRules | None = None
) -> list[Drift]:
    """Both metrics of ``policy_name``: its last ``rules.window`` events against the
    ``rules.baseline`` events before them."""
    rules = rules or DriftRules()
    baseline, current = _windows(repo, policy_name, rules, untightened=False)
    means = compare_means(
        policy_name,
        Distribution.of(r.strength for r in baseline),
        Distribution.of(r.strength for r in current),
        rules,
    )
    served_baseline, served_current = _windows(repo, policy_name, rules, untightened=True)
    rates = compare_rates(
        policy_name,
        (sum(r.abstained for r in served_baseline), len(served_baseline)),
        (sum(r.abstained for r in served_current), len(served_current)),
        rules,
    )
    return [
        replace(d, detail={**d.detail, **_where(b, c, rules)})
        for d, b, c in ((means, baseline, current), (rates, served_baseline, served_current))
    ]


def _windows(
    repo: MonitorRepository, policy_name: str, rules: DriftRules, *, untightened: bool
) -> tuple[list[EventRow], list[EventRow]]:
    """The baseline and current windows of ``policy_name``, oldest first."""
    current = list(
        window_rows(repo, policy=policy_name, window=rules.window, untightened=untightened)
    )
    if not current:
        return [], []
    baseline = window_rows(
        repo, policy=policy_name, window=rules.baseline, before_seq=current[0].seq,
        untightened=untightened,
    )  # fmt: skip
    return list(baseline), current


def _where(baseline: list[EventRow], current: list[EventRow], rules: DriftRules) -> dict[str, Any]:
    return {
        "policy_version": current[-1].policy_version if current else None,
        "current_seq": _span(current),
        "baseline_seq": _span(baseline),
        "window": rules.window,
        "baseline_window": rules.baseline,
    }


def _span(rows: list[EventRow]) -> list[int] | None:
    return [rows[0].seq, rows[-1].seq] if rows else None


def _round(value: float | None, places: int = 6) -> float | None:
    if value is None or not math.isfinite(value):
        return value
    return round(value, places)


def _json_number(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return _round(value)
    return "inf" if value > 0 else "-inf"
