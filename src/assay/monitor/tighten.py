"""Automatic tightening (E12): while a drift alert is open, a policy demands more.

With ``auto_tighten`` set (``ASSAY_AUTO_TIGHTEN``, 0..0.5; 0 is off), an alert that
opens on a fall in evidence strength (:func:`assay.monitor.checker.tightens`) records
``tightened_by`` = that delta, and every request under the policy is
served by :func:`tightened` copy of it until the alert closes: the gate threshold,
the router's proceed bands (the policy's own and each category's) and the judge's
publish and caveat thresholds are each raised by the delta, capped at :data:`CAP`.
Nothing is written to policy files: the tightened policy exists only while the alert
is open, under its own version (``2+tightened0.05``), and every audit row scored under
it stores it whole, so ``assay audit verify`` replays such rows like any other.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from assay.actions import ActionThresholds
from assay.errors import InvalidInputError
from assay.policy import Policy
from assay.routing import Bands
from assay.store.repositories import MonitorRepository

__all__ = [
    "CAP",
    "MAX_DELTA",
    "check_delta",
    "effective_policy",
    "open_delta",
    "thresholds_of",
    "tightened",
]

CAP = 0.99  #: no raised threshold goes above this: a bar of 1.0 would admit nothing at all
MAX_DELTA = 0.5


def check_delta(delta: Any, field: str = "auto_tighten") -> float:
    """``delta`` as a float in (0, :data:`MAX_DELTA`], else :class:`InvalidInputError`."""
    if (
        isinstance(delta, bool)
        or not isinstance(delta, int | float)
        or not math.isfinite(delta)
        or not 0.0 < delta <= MAX_DELTA
    ):
        raise InvalidInputError(
            field, delta, f"give an amount in (0, {MAX_DELTA}] to raise the thresholds by"
        )
    return float(delta)


def tightened(policy: Policy, delta: float) -> Policy:
    """A copy of ``policy`` that asks for ``delta`` more confidence everywhere it decides.

    Raised by ``delta`` (never above :data:`CAP`, never below the original): the gate
    ``threshold``, the ``proceed`` lower bound of the routing bands and of every
    category's bands, and the judge's ``publish`` and ``caveat`` thresholds. The same
    raise applied to both judge thresholds keeps ``publish >= caveat > human_review``,
    and raising only ``proceed`` keeps ``proceed > hedge > broaden``. Label bands, the
    similarity floor and the weights are unchanged, so labels mean what they meant.
    The version becomes ``f"{policy.version}+tightened{delta:g}"``.
    """
    delta = check_delta(delta, "delta")

    def up(value: float) -> float:
        return max(value, min(round(value + delta, 6), CAP))

    def raise_bands(bands: Bands) -> Bands:
        return replace(bands, proceed=up(bands.proceed))

    rules, judge = policy.routing, policy.judge.thresholds
    routing = replace(
        rules,
        bands=raise_bands(rules.bands),
        categories={name: raise_bands(b) for name, b in rules.categories.items()},
    )
    thresholds = ActionThresholds(
        publish=up(judge.publish), caveat=up(judge.caveat), human_review=judge.human_review
    )
    return replace(
        policy,
        version=f"{policy.version}+tightened{delta:g}",
        threshold=up(policy.threshold),
        routing=routing,
        judge=replace(policy.judge, thresholds=thresholds),
        tightened_from=policy.tightened_from or policy,
    )


def thresholds_of(policy: Policy) -> dict[str, Any]:
    """The thresholds :func:`tightened` raises, as recorded in ``policy`` audit events."""
    return {
        "version": policy.version,
        "threshold": policy.threshold,
        "routing": {
            "proceed": policy.routing.bands.proceed,
            "categories": {
                name: bands.proceed for name, bands in sorted(policy.routing.categories.items())
            },
        },
        "judge": {
            "publish": policy.judge.thresholds.publish,
            "caveat": policy.judge.thresholds.caveat,
        },
    }


def open_delta(repo: MonitorRepository, policy_name: str) -> float:
    """The largest ``tightened_by`` among the open alerts of ``policy_name`` (0.0: none)."""
    return repo.open_delta(policy_name)


def effective_policy(repo: MonitorRepository, policy: Policy) -> Policy:
    """The policy a request is served by now: :func:`tightened` by the largest delta of
    the open alerts of ``policy.name`` that set ``tightened_by``, else ``policy`` itself.

    One indexed query; called on every ``score``, ``assess`` and ``ask``.
    """
    delta = open_delta(repo, policy.name)
    return tightened(policy, min(delta, MAX_DELTA)) if delta > 0 else policy
