"""The statistics behind monitoring (R10, J9): distributions, mixes and two tests.

Pure functions over plain numbers, with no database and no scipy: percentiles are
numpy's default (linear interpolation between closest ranks), the tests use the normal
approximation, which is accurate at the sample sizes drift is judged on (at least 30
per window, see :mod:`assay.monitor.drift`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Distribution",
    "Mix",
    "TestResult",
    "normal_two_sided_p",
    "percentile",
    "two_proportion_test",
    "welch_test",
]


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ascending ``ordered`` values, as
    ``numpy.percentile`` computes it by default (linear interpolation)."""
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile {q} is outside 0..100")
    position = (len(ordered) - 1) * (q / 100.0)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    fraction = position - low
    # numpy's lerp form, so results agree to the last bit in the common cases
    lower, upper = float(ordered[low]), float(ordered[high])
    if fraction >= 0.5:
        return upper - (upper - lower) * (1.0 - fraction)
    return lower + (upper - lower) * fraction


@dataclass(frozen=True, slots=True)
class Distribution:
    """Summary of a sample of scores; every field but ``n`` is ``None`` when it is empty.

    ``sd`` is the sample standard deviation (n - 1 in the denominator; 0.0 for n = 1),
    the one Welch's test needs.
    """

    n: int
    mean: float | None = None
    sd: float | None = None
    median: float | None = None
    p10: float | None = None
    p25: float | None = None
    p75: float | None = None
    min: float | None = None
    max: float | None = None

    @classmethod
    def of(cls, values: Iterable[float]) -> Distribution:
        """The distribution of ``values`` (any order)."""
        ordered = sorted(float(v) for v in values)
        n = len(ordered)
        if n == 0:
            return cls(0)
        if ordered[0] == ordered[-1]:  # constant: exact, with no rounding in the mean
            mean, var = ordered[0], 0.0
        else:
            mean = math.fsum(ordered) / n
            var = math.fsum((v - mean) ** 2 for v in ordered) / (n - 1)
        return cls(
            n=n,
            mean=mean,
            sd=math.sqrt(var),
            median=percentile(ordered, 50),
            p10=percentile(ordered, 10),
            p25=percentile(ordered, 25),
            p75=percentile(ordered, 75),
            min=ordered[0],
            max=ordered[-1],
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, values rounded to 6 places."""
        return {
            "n": self.n,
            **{
                name: _round(getattr(self, name))
                for name in ("mean", "sd", "median", "p10", "p25", "p75", "min", "max")
            },
        }


@dataclass(frozen=True, slots=True)
class Mix:
    """Counts of categorical outcomes (decisions, statuses, actions) and their shares."""

    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """All counted outcomes."""
        return sum(self.counts.values())

    @property
    def shares(self) -> dict[str, float]:
        """Each outcome's share of the total (empty when nothing was counted)."""
        total = self.total
        return {k: v / total for k, v in self.counts.items()} if total else {}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, most frequent outcome first."""
        order = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        shares = self.shares
        return {
            "total": self.total,
            "counts": dict(order),
            "shares": {k: round(shares[k], 6) for k, _ in order},
        }


@dataclass(frozen=True, slots=True)
class TestResult:
    """A test statistic and its two-sided p-value (normal approximation)."""

    statistic: float
    p_value: float


def normal_two_sided_p(statistic: float) -> float:
    """P(|Z| >= |statistic|) for a standard normal Z."""
    if math.isnan(statistic):
        return 1.0
    return math.erfc(abs(statistic) / math.sqrt(2.0))


def welch_test(baseline: Distribution, current: Distribution) -> TestResult:
    """Welch's t statistic of ``current.mean - baseline.mean``, p from the normal curve.

    With both samples constant the difference is certain: t is +-inf (p = 0) when the
    means differ and 0 (p = 1) when they do not.
    """
    if baseline.n < 2 or current.n < 2:
        raise ValueError("Welch's test needs at least two values in each sample")
    assert baseline.mean is not None and current.mean is not None
    assert baseline.sd is not None and current.sd is not None
    diff = current.mean - baseline.mean
    se = math.sqrt(baseline.sd**2 / baseline.n + current.sd**2 / current.n)
    constant = math.copysign(math.inf, diff) if diff else 0.0  # both samples constant
    t = diff / se if se > 0.0 else constant
    return TestResult(t, normal_two_sided_p(t))


def two_proportion_test(
    baseline_hits: int, baseline_n: int, current_hits: int, current_n: int
) -> TestResult:
    """Pooled two-proportion z-test of ``current`` rate minus ``baseline`` rate.

    Swapping the samples negates z and keeps p. When the pooled rate is 0 or 1 both
    samples are identical in outcome: z = 0, p = 1.
    """
    if baseline_n <= 0 or current_n <= 0:
        raise ValueError("the two-proportion test needs at least one value in each sample")
    if not (0 <= baseline_hits <= baseline_n and 0 <= current_hits <= current_n):
        raise ValueError("hits must lie between 0 and the sample size")
    p_b, p_c = baseline_hits / baseline_n, current_hits / current_n
    pooled = (baseline_hits + current_hits) / (baseline_n + current_n)
    variance = pooled * (1.0 - pooled) * (1.0 / baseline_n + 1.0 / current_n)
    if variance <= 0.0:
        return TestResult(0.0, 1.0)
    z = (p_c - p_b) / math.sqrt(variance)
    return TestResult(z, normal_two_sided_p(z))


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
