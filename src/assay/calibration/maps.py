"""Score maps: from a raw confidence to the accuracy observed at that confidence (E11/R6/J7).

A raw score (a judge's support probability, an answer's confidence) is rarely the
probability that it is right. A map fitted on labelled outcomes, ``(score, 0/1)``, turns
it into one, and is stored and versioned per model and prompt (:mod:`.store`).

* :class:`IsotonicMap`: isotonic regression by pool-adjacent-violators (Barlow,
  Bartholomew, Bremner & Brunk, *Statistical Inference under Order Restrictions*, 1972;
  used for calibration by Zadrozny & Elkan, KDD 2002). Non-parametric and monotone;
  predictions interpolate linearly between the fitted points and stay constant outside
  them, as scikit-learn's ``IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)``.
* :class:`PlattMap`: Platt scaling (Platt, 1999), a two-parameter sigmoid of the score's
  logit, fitted by Newton's method with a backtracking line search on Platt's smoothed
  targets (Lin, Lin & Weng, *A note on Platt's probabilistic outputs*, 2007). Needs
  few labels; cannot bend where the score's miscalibration is not sigmoid-shaped.

numpy only: scoring applies these maps at run time without scikit-learn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, overload

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError, did_you_mean
from assay.metrics import brier_score, expected_calibration_error

__all__ = [
    "METHODS",
    "IsotonicMap",
    "PlattMap",
    "ScoreMap",
    "fit_map",
    "fit_metrics",
    "map_from_dict",
]

FloatArray = npt.NDArray[np.float64]
Scores = Sequence[float] | npt.NDArray[np.generic]
Labels = Sequence[int] | Sequence[bool] | npt.NDArray[np.generic]

METHODS = ("isotonic", "platt")
PLATT_EPS = 1e-7  # scores are clipped to [eps, 1 - eps] before the logit
_MAX_NEWTON_STEPS = 100
_GRADIENT_TOLERANCE = 1e-11  # Newton stops once the mean log-loss gradient is this small
_ACCEPT_GRADIENT = 1e-7  # ... and the fit is refused if rounding stalls it above this


def _validate(
    scores: Scores, labels: Labels, min_per_class: int, method: str
) -> tuple[FloatArray, FloatArray]:
    """The fitting data as float arrays, after checking it can be fitted at all."""
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("scores", scores, "give numbers in [0, 1]") from exc
    y = np.asarray(labels)
    if s.ndim != 1 or y.ndim != 1 or s.shape != y.shape:
        raise InvalidInputError(
            "labels", f"{y.shape} labels for {s.shape} scores", "give one 0/1 label per score"
        )
    bad_labels = [v for v in y.tolist() if v not in (0, 1)]
    if bad_labels:
        raise InvalidInputError("labels", bad_labels[0], "use 0/1 (or False/True) labels")
    bad = ~np.isfinite(s) | (s < 0.0) | (s > 1.0)
    if bad.any():
        raise InvalidInputError(
            "scores", float(s[bad][0]), "give finite scores in [0, 1]", problem="is out of range"
        )
    positives = int(y.astype(np.int64).sum())
    if min(positives, len(y) - positives) < min_per_class:
        raise InvalidInputError(
            "labels",
            f"{positives} positive, {len(y) - positives} negative",
            f"{method} needs at least {min_per_class} label(s) of each class; label more items",
            problem="are too few",
        )
    return s, y.astype(np.float64)


def _as_input(scores: float | Scores) -> FloatArray:
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("score", scores, "give a number or an array of numbers") from exc
    if not np.isfinite(s).all():
        raise InvalidInputError("score", scores, "give finite scores (NaN cannot be calibrated)")
    return s


_TIE = 1e-12  #: an isotonic map pools a score this close to the one below it as a tie


def _pava(y: FloatArray, w: FloatArray) -> FloatArray:
    """The weighted least-squares non-decreasing fit of ``y`` (pool adjacent violators)."""
    sums: list[float] = []
    weights: list[float] = []
    sizes: list[int] = []
    for yi, wi in zip(y.tolist(), w.tolist(), strict=True):
        total, weight, size = yi * wi, wi, 1
        while sums and sums[-1] / weights[-1] >= total / weight:  # a violator: pool it
            total += sums.pop()
            weight += weights.pop()
            size += sizes.pop()
        sums.append(total)
        weights.append(weight)
        sizes.append(size)
    return np.repeat(np.asarray(sums) / np.asarray(weights), sizes)


@dataclass(frozen=True, slots=True)
class IsotonicMap:
    """A non-decreasing step-and-ramp map through the points ``(x[i], y[i])``."""

    x: tuple[float, ...]
    y: tuple[float, ...]
    method: ClassVar[str] = "isotonic"

    @classmethod
    def fit(cls, scores: Scores, labels: Labels) -> IsotonicMap:
        """Fit by PAVA on the scores, tied scores pooled first (needs both classes)."""
        s, y = _validate(scores, labels, 1, cls.method)
        # scores within 1e-12 are one score: between two closer knots (subnormal floats)
        # np.interp's slope overflows, and the map would leave [0, 1] and turn down. They
        # are pooled at the lowest, not rounded: a rounded knot moves, and a steep ramp
        # between two scores 6e-8 apart read 0.999994 at the upper one
        order = np.argsort(s, kind="mergesort")
        ranked = s[order]
        first = np.flatnonzero(np.r_[True, np.diff(ranked) > _TIE])
        counts = np.diff(np.r_[first, len(ranked)])
        x = ranked[first]
        means = np.add.reduceat(y[order], first) / counts  # the label share per distinct score
        fitted = np.clip(_pava(means, counts.astype(np.float64)), 0.0, 1.0)
        keep = np.ones(len(x), dtype=bool)  # drop points inside a flat run (as scikit-learn)
        keep[1:-1] = (fitted[1:-1] != fitted[:-2]) | (fitted[1:-1] != fitted[2:])
        return cls(tuple(x[keep].tolist()), tuple(fitted[keep].tolist()))

    @overload
    def __call__(self, scores: float) -> float: ...
    @overload
    def __call__(self, scores: Scores) -> FloatArray: ...
    def __call__(self, scores: float | Scores) -> float | FloatArray:
        """The calibrated probability of each score (a float for a float)."""
        s = _as_input(scores)
        out = np.clip(np.interp(s, np.asarray(self.x), np.asarray(self.y)), 0.0, 1.0)
        return float(out) if out.ndim == 0 else out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe parameters; :func:`map_from_dict` rebuilds the identical map."""
        return {"method": self.method, "x": list(self.x), "y": list(self.y)}


@dataclass(frozen=True, slots=True)
class PlattMap:
    """``P = sigmoid(a * logit(clip(score, eps, 1 - eps)) + b)``."""

    a: float
    b: float
    eps: float = PLATT_EPS
    method: ClassVar[str] = "platt"

    @classmethod
    def fit(cls, scores: Scores, labels: Labels) -> PlattMap:
        """Fit ``a, b`` by Newton's method on Platt's smoothed targets (2+ of each class)."""
        s, y = _validate(scores, labels, 2, cls.method)
        params, gradient = _newton(_logit(s, PLATT_EPS), platt_targets(y))
        if gradient > _ACCEPT_GRADIENT:
            raise InvalidInputError(
                "scores",
                f"{len(s)} labelled scores",
                "fit method 'isotonic' instead, or check the scores and labels",
                problem=f"cannot be fitted by Platt scaling (Newton's method did not "
                f"converge in {_MAX_NEWTON_STEPS} steps; gradient {gradient:.3g})",
            )
        return cls(float(params[0]), float(params[1]))

    @overload
    def __call__(self, scores: float) -> float: ...
    @overload
    def __call__(self, scores: Scores) -> FloatArray: ...
    def __call__(self, scores: float | Scores) -> float | FloatArray:
        """The calibrated probability of each score (a float for a float)."""
        out = _sigmoid(self.a * _logit(_as_input(scores), self.eps) + self.b)
        return float(out) if out.ndim == 0 else out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe parameters; :func:`map_from_dict` rebuilds the identical map."""
        return {"method": self.method, "a": self.a, "b": self.b, "eps": self.eps}


ScoreMap = IsotonicMap | PlattMap


def platt_targets(labels: FloatArray) -> FloatArray:
    """Platt's smoothed targets: ``(N+ + 1) / (N+ + 2)`` for a positive, ``1 / (N- + 2)``
    for a negative, so that a separable set still has a finite fit."""
    positives = float(labels.sum())
    negatives = len(labels) - positives
    return np.where(labels == 1, (positives + 1.0) / (positives + 2.0), 1.0 / (negatives + 2.0))


def platt_loss(params: FloatArray, f: FloatArray, t: FloatArray) -> float:
    """Mean cross-entropy of ``sigmoid(a * f + b)`` against targets ``t`` (stable form)."""
    z = params[0] * f + params[1]
    return float(np.mean(np.logaddexp(0.0, z) - t * z))  # -t log p - (1-t) log(1-p)


def _newton(f: FloatArray, t: FloatArray) -> tuple[FloatArray, float]:
    """``(a, b)`` minimising :func:`platt_loss`, and the largest gradient entry left there:
    Newton steps, each halved until the loss drops enough (Armijo backtracking)."""
    params = np.array([0.0, float(_logit(np.asarray(t.mean()), 1e-12))])  # the base rate
    for _ in range(_MAX_NEWTON_STEPS):
        p = _sigmoid(params[0] * f + params[1])
        gradient = np.array([np.dot(p - t, f), np.sum(p - t)]) / len(t)
        if np.max(np.abs(gradient)) < _GRADIENT_TOLERANCE:
            break
        w = p * (1.0 - p)
        hessian = np.array([[w @ (f * f), w @ f], [w @ f, w.sum()]]) / len(t)
        step = -np.linalg.solve(hessian + 1e-12 * np.eye(2), gradient)
        loss, size = platt_loss(params, f, t), 1.0
        while size >= 1e-10 and (
            platt_loss(params + size * step, f, t) > loss + 1e-4 * size * (gradient @ step)
        ):
            size /= 2.0
        if size < 1e-10:  # no step lowers the loss: at the floating-point minimum
            break
        params = params + size * step
    p = _sigmoid(params[0] * f + params[1])
    gradient = np.array([np.dot(p - t, f), np.sum(p - t)]) / len(t)
    return params, float(np.max(np.abs(gradient)))


def _logit(s: FloatArray, eps: float) -> FloatArray:
    c = np.clip(s, eps, 1.0 - eps)
    return np.asarray(np.log(c) - np.log1p(-c), dtype=np.float64)


def _sigmoid(z: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)), dtype=np.float64)


def fit_map(method: str, scores: Scores, labels: Labels) -> ScoreMap:
    """Fit a map by ``method`` name: ``isotonic`` or ``platt``."""
    if method == "isotonic":
        return IsotonicMap.fit(scores, labels)
    if method == "platt":
        return PlattMap.fit(scores, labels)
    raise InvalidInputError(
        "method", method, f"{did_you_mean(method, METHODS)}use isotonic or platt"
    )


def fit_metrics(fitted: ScoreMap, scores: Scores, labels: Labels) -> dict[str, float]:
    """Brier score and ECE (10 equal-width bins) of the raw and the mapped scores, on the
    data the map was fitted on: what is stored beside the map to show what it changed."""
    s, y = _validate(scores, labels, 0, fitted.method)
    after = fitted(s)
    return {
        "brier_before": brier_score(y, s),
        "brier_after": brier_score(y, after),
        "ece_before": expected_calibration_error(y, s),
        "ece_after": expected_calibration_error(y, after),
    }


def map_from_dict(d: Mapping[str, Any]) -> ScoreMap:
    """Rebuild a map from :meth:`to_dict`'s output, checking its shape."""
    if not isinstance(d, Mapping):
        raise InvalidInputError("map", d, "give the dict that to_dict() returned")
    method = d.get("method")
    try:
        if method == "isotonic":
            x, y = _floats(d["x"]), _floats(d["y"])
            if not x or len(x) != len(y) or (np.diff(x) <= 0).any():
                raise ValueError("x must be strictly increasing, with one y per x")
            if (np.diff(y) < 0).any() or not 0 <= y[0] <= y[-1] <= 1:
                raise ValueError("y must be non-decreasing within [0, 1]")
            return IsotonicMap(x, y)
        if method == "platt":
            a, b, eps = (_floats([d[k]])[0] for k in ("a", "b", "eps"))
            if not 0 < eps < 0.5:
                raise ValueError("eps must be in (0, 0.5)")
            return PlattMap(a, b, eps)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInputError(
            "map", d, f"give the dict that {method}'s to_dict() returned ({exc})"
        ) from exc
    raise InvalidInputError(
        "map.method", method, f"{did_you_mean(method, METHODS)}use isotonic or platt"
    )


def _floats(values: Any) -> tuple[float, ...]:
    if not isinstance(values, list | tuple) or any(
        isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v)
        for v in values
    ):
        raise ValueError(f"expected a list of finite numbers, got {values!r:.60}")
    return tuple(float(v) for v in values)
