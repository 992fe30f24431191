"""Rolling statistics of the audit log (R10): distributions, mixes, sources, feedback, timeline."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import assay
from assay import Assay, Candidate, InvalidInputError
from assay.events import AskRecord
from assay.monitor import Distribution, Mix, build_report, build_timeline
from assay.monitor.stats import percentile
from tests.conftest import AS_OF

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(st.lists(scores, min_size=1, max_size=60), st.floats(min_value=0.0, max_value=100.0))
def test_r10_percentiles_match_numpy(values: list[float], q: float) -> None:
    ordered = sorted(values)
    assert percentile(ordered, q) == pytest.approx(np.percentile(values, q), abs=1e-12)


@given(st.lists(scores, min_size=1, max_size=60))
def test_r10_distribution_matches_numpy(values: list[float]) -> None:
    d = Distribution.of(values)
    assert d.n == len(values)
    assert d.mean == pytest.approx(np.mean(values), abs=1e-12)
    assert d.sd == pytest.approx(np.std(values, ddof=1) if len(values) > 1 else 0.0, abs=1e-9)
    for name, q in (("median", 50), ("p10", 10), ("p25", 25), ("p75", 75)):
        assert getattr(d, name) == pytest.approx(np.percentile(values, q), abs=1e-12)
    assert d.min == min(values) and d.max == max(values)


def test_r10_empty_distribution_and_bad_percentiles() -> None:
    assert Distribution.of([]).to_dict() == {
        "n": 0,
        "mean": None,
        "sd": None,
        "median": None,
        "p10": None,
        "p25": None,
        "p75": None,
        "min": None,
        "max": None,
    }
    assert Distribution.of([0.3] * 7).mean == 0.3 and Distribution.of([0.3] * 7).sd == 0.0
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="outside"):
        percentile([1.0], 101)


def test_r10_mix_counts_and_shares() -> None:
    mix = Mix({"proceed": 3, "refuse": 1})
    assert mix.total == 4 and mix.shares == {"proceed": 0.75, "refuse": 0.25}
    assert mix.to_dict() == {
        "total": 4,
        "counts": {"proceed": 3, "refuse": 1},
        "shares": {"proceed": 0.75, "refuse": 0.25},
    }
    assert Mix().shares == {} and Mix().to_dict()["total"] == 0


# --- events written through the engine --------------------------------------------------


def score_event(engine: Assay, similarities: list[float], policy: str = "financial") -> str:
    """A ``score`` event whose candidates come from the ``sds`` source (or ``forum``)."""
    candidates = [
        Candidate(
            f"c{i}",
            "Charge between 0 and 45 degrees.",
            s,
            source_id="sds" if i % 2 == 0 else "forum",
            published="2026-11-01",
        )
        for i, s in enumerate(similarities)
    ]
    result = engine.score("charging range?", candidates, policy=policy, as_of=AS_OF)
    assert result.event_id is not None
    return result.event_id


def ask_record(
    score: float,
    *,
    status: str | None = "answered",
    decision: str = "proceed",
    action: str | None = "publish",
    fallbacks: tuple[str, ...] = (),
    calibrated: float | None = None,
    admitted: int = 1,
) -> AskRecord:
    """An ``ask`` record with what monitoring reads set (see assay.flow.assess/respond), and
    placeholders for the rest."""
    basis = {
        "source_id": None, "source_kind": "official", "owner": None, "reliability": 1.0,
        "kind_adjustment": 0.0, "jurisdiction_penalty": 0.0, "effective_date": None,
        "age_days": None, "decay_rate": 0.0, "overruled": False, "retired": False,
        "review_overdue": False,
    }  # fmt: skip
    item = {
        "id": "e1", "confidence": 0.9, "label": "high", "scores": {}, "weights": {},
        "policy": {"name": "financial", "version": "2"}, "admitted": True,
        "source_id": None, "source_kind": "official", "title": None, "uri": None,
        "text": "t", "basis": basis,
    }  # fmt: skip
    applied = {
        "id": 1, "target": "set", "model_key": "k", "version": 1, "method": "platt",
        "params": {}, "raw": score, "value": calibrated,
    }  # fmt: skip
    signals = {
        "top": 0.9, "gap": 0.0, "concentration": 0.0, "coherence": 0.0, "coverage": 0.0,
        "composite": score, "coherence_by_source": {}, "covered_terms": [],
        "missing_terms": [], "judgment": None,
    }  # fmt: skip
    payload: dict[str, Any] = {
        "assay_version": "test", "as_of": "2026-11-01", "jurisdiction": None,
        "policy": {
            "name": "financial", "version": "2", "labels": {"high": 0.85, "medium": 0.6}
        },
        "policy_digest": "", "thresholds": {}, "evidence": [item],
        "counts": {"admitted": admitted, "excluded": 0}, "findings": [], "models": {},
        "prompts": {},
        "retrieval": {"mode": "hybrid", "embedder": "e", "similarity_mapping": "m", "hits": []},
        "category": None, "conflicts": [], "signals": signals,
        "calibration": {} if calibrated is None else {"set": applied},
        "route": {"decision": decision, "reasons": [], "bands": {}, "category": None},
    }  # fmt: skip
    if status is not None:  # Assay.assess records no answer, so no status
        payload |= {
            "answer": None, "status": status, "fallbacks": list(fallbacks), "draft": None,
            "citations": None, "judgment": None, "broadening": None, "notes": [],
            "problems": [], "review": None,
            "assessment": {"confidence_score": score, "recommended_action": action},
        }  # fmt: skip
    return AskRecord.model_validate(payload)


def append_ask(engine: Assay, record: AskRecord, now: datetime | None = None) -> str:
    event = engine.audit.append(
        record, query="q", policy_name="financial", policy_version="2", now=now
    )
    return event.event_id


def test_r10_score_events_give_top_admitted_confidence_per_policy_and_source(
    engine: Assay,
) -> None:
    score_event(engine, [0.9, 0.8])
    score_event(engine, [0.85])
    score_event(engine, [0.1], policy="informational")  # nothing admitted: 0.0, abstained
    report = build_report(engine.db.monitor)  # what engine.monitor.report() calls
    events = engine.audit.list(limit=None)
    tops = []
    for e in reversed(events):
        admitted = [i["confidence"] for i in e.payload["evidence"] if i["admitted"]]
        tops.append(max(admitted, default=0.0))
    assert tops[2] == 0.0
    assert report.overall.events == 3 and report.overall.scores == 3
    assert report.overall.score.mean == pytest.approx(sum(tops) / 3)
    assert report.overall.abstentions == 1
    assert report.overall.abstention_rate == pytest.approx(1 / 3)
    assert set(report.by_policy) == {"financial", "informational"}
    assert report.by_policy["financial"].score.n == 2
    assert report.by_policy["informational"].abstention_rate == 1.0
    sources = {s.source: s for s in report.by_source}
    assert set(sources) == {"sds", "forum"}
    assert sources["sds"].items == 3 and sources["forum"].items == 1
    all_items = [i for e in events for i in e.payload["evidence"]]
    sds = [i["confidence"] for i in all_items if i["source_id"] == "sds"]
    assert sources["sds"].confidence.mean == pytest.approx(np.mean(sds))
    assert sources["sds"].admitted == sum(
        i["admitted"] for i in all_items if i["source_id"] == "sds"
    )
    as_dict = report.to_dict()
    assert as_dict["overall"]["events"] == 3 and as_dict["window"] == 1000


def test_r10_ask_events_mirror_the_response_confidence(tmp_path: Any) -> None:
    """The event score of a real ``ask`` is ``Response.as_dict()["confidence"]["score"]``."""
    from assay.ingest.pipeline import IngestOptions, ingest

    doc = tmp_path / "kb.md"
    doc.write_text("# Charging\n\nCharge the pack between 0 and 45 degrees.\n")
    with Assay(settings=assay.load_settings(db=tmp_path / "ask.db", embedder="hashing")) as e:
        e.sources.add("sds", "official")
        ingest(
            [doc],
            store=e.store,
            embedder=e.embedder,
            registry=e.sources,
            options=IngestOptions(source_id="sds", published=AS_OF),
        )
        response = e.ask("charging temperature degrees", policy="informational", as_of=AS_OF)
        e.assess("charging temperature degrees", policy="informational", as_of=AS_OF)
        report = e.monitor.report()
    shown = response.as_dict()
    stats = report.overall
    assert stats.asks == 2 and stats.score.min == pytest.approx(shown["confidence"]["score"])
    assert stats.statuses.counts == {shown["status"]: 1}  # the assessed one has no status
    assert stats.decisions.counts == {shown["decision"]: 2}
    assert stats.actions.counts == {shown["assessment"]["recommended_action"]: 1}
    assert [s.source for s in report.by_source] == ["sds"]


def test_r10_ask_mixes_fallbacks_abstentions_and_calibration(engine: Assay) -> None:
    append_ask(engine, ask_record(0.9))
    append_ask(
        engine, ask_record(0.7, decision="hedge", fallbacks=("hedge",), action="append_caveat")
    )
    append_ask(
        engine, ask_record(0.5, calibrated=0.4, status="abstained_judge", action="human_review")
    )
    append_ask(
        engine,
        ask_record(
            0.2, decision="refuse", status="refused", action="suppress", fallbacks=("refuse",)
        ),
    )
    append_ask(engine, ask_record(0.3, decision="refuse", status=None, admitted=0))
    report = engine.monitor.report()
    o = report.overall
    assert o.asks == 5 and o.scores == 0
    assert sorted(engine_scores(report)) == [0.2, 0.3, 0.4, 0.7, 0.9]  # calibrated 0.4 wins
    assert o.decisions.counts == {"proceed": 2, "hedge": 1, "refuse": 2}
    assert o.statuses.counts == {"answered": 2, "abstained_judge": 1, "refused": 1}
    assert o.actions.counts == {
        "publish": 1,
        "append_caveat": 1,
        "human_review": 1,
        "suppress": 1,
    }
    assert o.fallbacks == 2 and o.fallback_rate == pytest.approx(2 / 5)
    assert o.abstentions == 3 and o.abstention_rate == pytest.approx(3 / 5)
    assert [s.source for s in report.by_source] == ["official"]  # no source_id: the kind


def engine_scores(report: Any) -> list[float]:
    d = report.overall.score
    return [d.min, d.p25, d.median, d.p75, d.max]


def test_r10_review_verdicts_by_confidence_band(engine: Assay) -> None:
    from tests.unit.test_review import assessment

    labels = {0.9: "high", 0.7: "medium", 0.3: "low"}
    for score, verdicts in ((0.9, ["correct", "correct", "incorrect"]), (0.7, ["incorrect"])):
        for verdict in verdicts:
            event_id = append_ask(engine, ask_record(score))
            item = engine.review.add(
                event_id=event_id,
                query="q",
                answer="a",
                reason="recommended_action human_review",
                assessment=assessment(score),
                policy_name="financial",
                policy_version="2",
            )
            engine.review.resolve(item.id, verdict)
    append_ask(engine, ask_record(0.3))  # reviewed by nobody
    feedback = {f.band: f for f in engine.monitor.report().feedback}
    assert [f.band for f in engine.monitor.report().feedback] == list(labels.values())
    assert (feedback["high"].reviewed, feedback["high"].correct) == (3, 2)
    assert feedback["high"].accuracy == pytest.approx(2 / 3)
    assert feedback["medium"].to_dict() == {
        "band": "medium",
        "reviewed": 1,
        "correct": 0,
        "accuracy": 0.0,
    }
    assert feedback["low"].accuracy is None
    # a window that leaves the reviewed events out leaves their verdicts out
    assert all(f.reviewed == 0 for f in engine.monitor.report(window=1).feedback)


def test_r10_window_since_and_policy_filters(engine: Assay) -> None:
    start = datetime(2026, 11, 1, 8, 15, tzinfo=UTC)
    for i in range(6):
        append_ask(engine, ask_record(0.1 * (i + 1)), now=start + timedelta(hours=i))
    score_event(engine, [0.9], policy="legal")
    monitor = engine.monitor
    assert monitor.report(window=2).overall.events == 2
    assert monitor.report(window=2, policy="financial").overall.score.mean == pytest.approx(0.55)
    since = monitor.report(since="2026-11-01T11:00:00Z", policy="financial")
    assert since.window is None and since.overall.events == 3  # hours 11, 12, 13
    assert monitor.report(policy="nobody").overall.events == 0
    with pytest.raises(InvalidInputError, match="window=0"):
        monitor.report(window=0)
    with pytest.raises(InvalidInputError, match="since='yesterday'"):
        monitor.report(since="yesterday")


def test_r10_timeline_is_hourly_with_gaps_filled(engine: Assay) -> None:
    start = datetime(2026, 11, 1, 8, 15, tzinfo=UTC)
    for hours, score, status in ((0, 0.8, "answered"), (0, 0.6, "refused"), (3, 0.9, "answered")):
        append_ask(engine, ask_record(score, status=status), now=start + timedelta(hours=hours))
    timeline = engine.monitor.timeline()
    assert timeline.granularity == "hour"
    assert [b.start for b in timeline.buckets] == [
        f"2026-11-01T{h:02d}:00:00+00:00" for h in range(8, 12)
    ]
    first = timeline.buckets[0]
    assert (first.count, first.abstentions) == (2, 1) and first.mean_score == pytest.approx(0.7)
    assert [b.count for b in timeline.buckets] == [2, 0, 0, 1]
    assert timeline.buckets[1].mean_score is None
    assert engine.monitor.report().timeline == timeline


def test_r10_timeline_by_day_past_three_days(engine: Assay) -> None:
    start = datetime(2026, 11, 1, 23, 30, tzinfo=UTC)
    for days in (0, 0.05, 4):
        append_ask(engine, ask_record(0.5), now=start + timedelta(days=days))
    timeline = build_timeline(engine.db.monitor)
    assert timeline.granularity == "day"
    assert [b.count for b in timeline.buckets] == [1, 1, 0, 0, 1]  # 23:30 and 00:42 split
    assert timeline.buckets[0].start == "2026-11-01T00:00:00+00:00"
    assert timeline.to_dict()["buckets"][-1]["start"] == "2026-11-05T00:00:00+00:00"
    assert math.isclose(timeline.buckets[-1].mean_score or 0, 0.5)
