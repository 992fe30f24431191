"""Automatic tightening (E12): tightened policies, the effective policy, and its audit trail."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay import Assay, Candidate, InvalidInputError, load_settings
from assay.actions import ActionThresholds
from assay.monitor import effective_policy, thresholds_of, tightened
from assay.policy import JudgeRules, builtin_policies, policy_from_mapping
from assay.routing import Bands
from tests.conftest import AS_OF, FINANCIAL_VERSION
from tests.rawdb import RawDatabase

POLICIES = builtin_policies()


@given(st.sampled_from(sorted(POLICIES)), st.floats(min_value=0.001, max_value=0.5))
def test_e12_tightening_raises_every_bar_and_keeps_the_policy_valid(
    name: str, delta: float
) -> None:
    base = POLICIES[name]
    tight = tightened(base, delta)
    assert tight.version == f"{base.version}+tightened{delta:g}"
    pairs = [
        (base.threshold, tight.threshold),
        (base.routing.bands.proceed, tight.routing.bands.proceed),
        (base.judge.thresholds.publish, tight.judge.thresholds.publish),
        (base.judge.thresholds.caveat, tight.judge.thresholds.caveat),
    ]
    for before, after in pairs:
        assert after == max(before, min(round(before + delta, 6), 0.99))
        assert before <= after < 1.0
    # the orderings the constructors check still hold (they would have raised)
    assert tight.routing.bands.hedge == base.routing.bands.hedge
    assert tight.judge.thresholds.human_review == base.judge.thresholds.human_review
    assert (tight.labels, tight.weights, tight.similarity_floor) == (
        base.labels,
        base.weights,
        base.similarity_floor,
    )
    # an audit row stores the policy as a mapping; replay rebuilds exactly this policy
    assert policy_from_mapping(tight.as_dict(), origin="audit row") == tight


def test_e12_category_bands_and_caps() -> None:
    base = POLICIES["financial"]
    base = replace(
        base,
        routing=replace(base.routing, categories={"pricing": Bands(0.97, 0.9, 0.5)}),
        judge=JudgeRules(ActionThresholds(publish=0.95, caveat=0.95, human_review=0.2)),
    )
    tight = tightened(base, 0.05)
    assert tight.routing.categories["pricing"].proceed == 0.99  # capped below 1
    assert tight.judge.thresholds.publish == tight.judge.thresholds.caveat == 0.99
    assert thresholds_of(tight)["routing"]["categories"] == {"pricing": 0.99}
    assert thresholds_of(base)["judge"] == {"publish": 0.95, "caveat": 0.95}
    assert tightened(replace(base, threshold=0.995), 0.1).threshold == 0.995  # never lowered
    for bad in (0, -0.1, 0.6, float("nan"), True, "0.1"):
        with pytest.raises(InvalidInputError, match="delta="):
            tightened(base, bad)  # type: ignore[arg-type]


def open_alert(engine: Assay, policy: str, delta: float | None, closed: bool = False) -> None:
    RawDatabase(engine.settings.db).execute(
        "INSERT INTO monitor_alerts (policy_name, metric, opened_at, closed_at, baseline, current,"
        " statistic, tightened_by) VALUES (?, 'mean_score', '2026-11-29', ?, 0.9, 0.8, -5, ?)",
        (policy, "2026-11-30" if closed else None, delta),
    )


def test_e12_effective_policy_takes_the_largest_open_delta(engine: Assay) -> None:
    base = engine.policies.get("financial")
    assert effective_policy(engine.db.monitor, base) is base
    open_alert(engine, "financial", None)  # an alert without tightening
    open_alert(engine, "financial", 0.2, closed=True)
    open_alert(engine, "legal", 0.3)
    assert effective_policy(engine.db.monitor, base) is base
    open_alert(engine, "financial", 0.05)
    open_alert(engine, "financial", 0.1)
    assert effective_policy(engine.db.monitor, base) == tightened(base, 0.1)
    assert engine.monitor.effective(base).version == f"{FINANCIAL_VERSION}+tightened0.1"


def test_e12_scores_under_a_tightened_policy_replay(engine: Assay) -> None:
    open_alert(engine, "financial", 0.1)
    candidate = Candidate(
        "c", "Charge between 0 and 45 degrees.", 0.83, source_id="sds", published="2026-11-01"
    )
    result = engine.score("charging range?", [candidate], policy="financial", as_of=AS_OF)
    assert (
        result.policy.version == f"{FINANCIAL_VERSION}+tightened0.1"
        and result.policy.threshold == 0.85
    )
    event = engine.audit.get(result.event_id or "")
    assert event.policy_version == f"{FINANCIAL_VERSION}+tightened0.1"
    assert event.payload["policy"]["threshold"] == 0.85
    assert engine.score("q", [candidate], severity="financial", as_of=AS_OF).policy.version == (
        f"{FINANCIAL_VERSION}+tightened0.1"
    )
    legal = engine.policies.get("legal")
    assert engine.score("q", [candidate], policy="legal", as_of=AS_OF).policy == legal
    report = engine.audit.verify()
    assert report.ok, report.problems


def test_e12_open_tightens_and_close_relaxes_with_audit_events(engine: Assay) -> None:
    def write(low: float, high: float, n: int, seed: int) -> None:
        rnd = random.Random(seed)
        for i in range(n):
            candidate = Candidate(
                "c",
                "Charge between 0 and 45 degrees.",
                rnd.uniform(low, high),
                source_id="sds",
                published="2026-11-01",
            )
            engine.score(f"q{i}", [candidate], policy="financial", as_of=AS_OF)

    write(0.85, 0.95, 120, seed=1)
    write(0.70, 0.80, 40, seed=2)
    result = engine.monitor.check(window=40, baseline=120, auto_tighten=0.05)
    [alert] = [a for a in result.opened if a.metric == "mean_score"]
    assert alert.tightened_by == 0.05
    [event] = [e for e in engine.audit.list(kind="policy") if e.payload["alert_id"] == alert.id]
    base = engine.policies.get("financial")
    assert event.payload["action"] == "tighten" and event.payload["delta"] == 0.05
    assert event.payload["before"] == thresholds_of(base)
    assert event.payload["after"] == thresholds_of(tightened(base, 0.05))
    assert event.payload["after"]["version"] == f"{FINANCIAL_VERSION}+tightened0.05"
    assert engine.monitor.effective(base).version == f"{FINANCIAL_VERSION}+tightened0.05"

    write(0.85, 0.95, 160, seed=3)
    closed = engine.monitor.check(window=40, baseline=120, auto_tighten=0.05).closed
    assert {a.id for a in closed} == {a.id for a in result.opened}
    assert engine.monitor.alerts() == []
    relax = [e.payload for e in engine.audit.list(kind="policy") if e.payload["action"] == "relax"]
    assert len(relax) == len(result.opened)
    last = relax[0]  # newest first: the last alert to close relaxes the policy fully
    assert last["before"] == thresholds_of(tightened(base, 0.05))
    assert last["after"] == thresholds_of(base) and last["tightened_by_after"] == 0.0
    assert engine.monitor.effective(base) is base
    report = engine.audit.verify()
    assert report.ok, report.problems


def test_e12_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = load_settings()
    assert (defaults.auto_tighten, defaults.monitor_window, defaults.monitor_baseline) == (
        0.0,
        200,
        1000,
    )
    monkeypatch.setenv("ASSAY_AUTO_TIGHTEN", "0.05")
    monkeypatch.setenv("ASSAY_MONITOR_WINDOW", "50")
    monkeypatch.setenv("ASSAY_MONITOR_BASELINE", "400")
    s = load_settings()
    assert (s.auto_tighten, s.monitor_window, s.monitor_baseline) == (0.05, 50, 400)
    monkeypatch.setenv("ASSAY_AUTO_TIGHTEN", "0.9")
    with pytest.raises(InvalidInputError, match="setting auto_tighten"):
        load_settings()


def test_e12_tightening_keeps_the_calibration_key() -> None:
    """Maps fitted on a policy keep applying while an alert tightens it (see
    scoring_digest): tightening only lowers raw set scores, and the maps are monotone."""
    from assay.calibration.apply import scoring_digest
    from assay.policy import builtin_policies

    base = builtin_policies()["financial"]
    twice = tightened(tightened(base, 0.05), 0.05)
    assert twice.tightened_from is base
    assert scoring_digest(twice) == scoring_digest(base)
    assert "tightened_from" not in twice.as_dict()


def test_e12_tightening_neither_feeds_back_nor_fires_on_recovery(engine: Assay) -> None:
    """Degraded evidence tightens the policy; once the evidence is back the alert closes
    and the policy relaxes, even though the tightened gate abstained more meanwhile; the
    recovery itself opens only an untightening alert, and nothing is tightened twice."""
    from tests.e2e.test_monitor_cli import write

    def check() -> dict[str, str]:
        result = engine.monitor.check(window=40, baseline=120, auto_tighten=0.1)
        return {a.metric: "open" for a in result.opened} | {
            a.metric: "close" for a in result.closed
        }

    write(engine, 0.85, 0.95, 120, seed=1)
    assert check() == {}
    write(engine, 0.60, 0.75, 40, seed=2)  # retrieval degrades
    assert check()["mean_score"] == "open"
    assert (
        engine.monitor.effective(POLICIES["financial"]).version
        == f"{FINANCIAL_VERSION}+tightened0.1"
    )
    write(engine, 0.85, 0.95, 40, seed=3)  # recovered, served under the tightened gate
    changes = check()
    assert changes.get("mean_score") == "close"
    assert engine.monitor.effective(POLICIES["financial"]).version == FINANCIAL_VERSION
    for seed in range(4, 10):  # whatever the rolling windows say next, no new tightening
        write(engine, 0.85, 0.95, 40, seed=seed)
        check()
        assert engine.monitor.effective(POLICIES["financial"]).version == FINANCIAL_VERSION
    actions = [e.payload["action"] for e in reversed(engine.audit.list(kind="policy"))]
    assert actions == ["tighten", "relax"]
