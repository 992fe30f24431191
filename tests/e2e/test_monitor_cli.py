"""``assay monitor`` end to end (R10, J9, E12): real events, a drift, an alert, a tightened
policy that later requests run under, and an audit log that still verifies."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from assay import Assay, Candidate
from tests.conftest import AS_OF, FINANCIAL_VERSION, candidate_record, run_cli, write_jsonl
from tests.e2e.conftest import ask


def write(engine: Assay, low: float, high: float, n: int, seed: int) -> None:
    """``n`` scoring requests whose two candidates have similarities drawn from [low, high]."""
    rnd = random.Random(seed)
    for i in range(n):
        candidates = [
            Candidate(
                f"c{j}",
                "Charge between 0 and 45 degrees.",
                rnd.uniform(low, high),
                source_id=source,
                published="2026-11-01",
            )
            for j, source in enumerate(("sds", "kb"))
        ]
        engine.score(f"question {i}", candidates, policy="financial", as_of=AS_OF)


@pytest.fixture
def drifted(engine: Assay, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A baseline of 120 strong requests, then 40 weaker ones; tightening by 0.05 on."""
    write(engine, 0.85, 0.95, 120, seed=1)
    write(engine, 0.65, 0.80, 40, seed=2)
    monkeypatch.setenv("ASSAY_AUTO_TIGHTEN", "0.05")
    monkeypatch.setenv("ASSAY_MONITOR_WINDOW", "40")
    monkeypatch.setenv("ASSAY_MONITOR_BASELINE", "120")
    return db_path


def test_r10_j9_e12_drift_alert_tightens_and_the_log_still_verifies(
    drifted: Path, tmp_path: Path
) -> None:
    checked = run_cli("monitor", "check", "--json", db=drifted)
    assert checked.exit_code == 0, checked.stderr
    out = json.loads(checked.stdout)
    opened = {a["metric"]: a for a in out["opened"]}
    alert = opened["mean_score"]
    assert alert["policy_name"] == "financial" and alert["open"] is True
    assert alert["tightened_by"] == 0.05 and alert["current"] < alert["baseline"]
    assert alert["p_value"] < 0.01 and alert["detail"]["n_current"] == 40
    assert {(d["policy_name"], d["metric"]) for d in out["drift"]} == {
        ("financial", "mean_score"),
        ("financial", "abstention_rate"),
    }

    again = run_cli("monitor", "check", db=drifted)  # text; nothing new to open
    assert again.exit_code == 0, again.stderr
    assert "financial  mean_score" in again.stdout and "DRIFT" in again.stdout
    assert "no alert opened or closed" in again.stdout

    listed = run_cli("monitor", "alerts", db=drifted)
    assert listed.exit_code == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if "mean_score" in line)
    assert row.split()[:4] == [str(alert["id"]), "financial", "mean_score", "open"]
    assert "+0.05" in row
    as_json = json.loads(run_cli("monitor", "alerts", "--json", db=drifted).stdout)
    assert alert["id"] in {a["id"] for a in as_json}

    with Assay(drifted, create=False) as engine:
        [tighten] = [
            e for e in engine.audit.list(kind="policy") if e.payload["alert_id"] == alert["id"]
        ]
        [opening] = [
            e for e in engine.audit.list(kind="alert") if e.payload["alert"]["id"] == alert["id"]
        ]
    assert opening.payload["action"] == "open"
    assert tighten.payload["action"] == "tighten" and tighten.payload["delta"] == 0.05
    assert tighten.payload["before"]["threshold"] == 0.75
    assert tighten.payload["after"]["threshold"] == 0.8
    assert tighten.payload["after"]["version"] == f"{FINANCIAL_VERSION}+tightened0.05"

    # the next request runs under the tightened policy, and says so
    candidates = write_jsonl(tmp_path / "c.jsonl", [candidate_record("a", 0.9)])
    scored = run_cli(
        "score",
        "--query",
        "charging range?",
        "--candidates",
        str(candidates),
        "--policy",
        "financial",
        "--as-of",
        AS_OF.isoformat(),
        "--json",
        db=drifted,
    )
    assert scored.exit_code == 0, scored.stderr
    policy = json.loads(scored.stdout)["policy"]
    assert policy["version"] == f"{FINANCIAL_VERSION}+tightened0.05" and policy["threshold"] == 0.8

    verify = run_cli("audit", "verify", db=drifted)
    assert verify.exit_code == 0, verify.stderr
    assert "audit log intact" in verify.stdout


def test_r10_report_through_the_cli(drifted: Path) -> None:
    result = run_cli("monitor", "report", "--policy", "financial", "--json", db=drifted)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    overall = report["overall"]
    assert overall["events"] == 160 and overall["scores"] == 160 and overall["asks"] == 0
    assert list(report["by_policy"]) == ["financial"]
    assert 0.0 < overall["score"]["p10"] <= overall["score"]["median"] <= overall["score"]["p75"]
    assert {s["source"] for s in report["by_source"]} == {"sds", "kb"}
    assert [f["band"] for f in report["feedback"]] == ["high", "medium", "low"]
    assert sum(b["count"] for b in report["timeline"]["buckets"]) == 160

    recent = json.loads(run_cli("monitor", "report", "--window", "40", "--json", db=drifted).stdout)
    assert recent["overall"]["events"] == 40
    assert recent["overall"]["score"]["mean"] < overall["score"]["mean"]
    since = run_cli("monitor", "report", "--since", "2000-01-01", "--json", db=drifted)
    assert json.loads(since.stdout)["overall"]["events"] == 160

    text = run_cli("monitor", "report", db=drifted)
    assert text.exit_code == 0, text.stderr
    assert text.stdout.startswith("all policies: last 1000 events: 160 found")
    assert "MEDIAN" in text.stdout and "financial" in text.stdout and "sources" in text.stdout


def test_r10_monitor_errors_name_the_value_and_the_fix(drifted: Path | str) -> None:
    bad = run_cli("monitor", "report", "--window", "0", db=drifted)
    assert bad.exit_code == 2
    assert "window=0" in bad.stderr and "give a number of events" in bad.stderr
    bad = run_cli("monitor", "report", "--since", "last tuesday", db=drifted)
    assert bad.exit_code == 2 and "since='last tuesday'" in bad.stderr and "ISO" in bad.stderr
    empty = run_cli("monitor", "alerts", "--all", db=drifted)
    assert empty.exit_code == 0 and empty.stdout.strip() == "no alerts"
    if isinstance(drifted, Path):
        missing = run_cli("monitor", "report", db=drifted.with_name("nowhere.db"))
        assert missing.exit_code != 0 and "no assay database" in missing.stderr
    else:
        missing = run_cli("monitor", "report", db=drifted.rsplit("/", 1)[0] + "/nowhere")
        assert missing.exit_code != 0 and "cannot connect to the assay database" in missing.stderr
        assert "does not exist" in missing.stderr


def test_r10_asks_on_the_demo_knowledge_base(demo_db: Path) -> None:
    """Real ``ask`` events: the report's score is the confidence each response showed."""
    answers = [
        ask(
            demo_db,
            "What ambient temperature range is safe for charging the HX-40?",
            "--policy",
            "financial",
        ),
        ask(demo_db, "What is the capital of Australia?", "--severity", "safety_critical"),
    ]
    result = run_cli("monitor", "report", "--json", db=demo_db)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["overall"]["asks"] == 2
    for answer in answers:
        shown = answer["confidence"]["score"]
        [stats] = [
            s for s in report["by_policy"].values() if s["score"]["mean"] == pytest.approx(shown)
        ]
        assert stats["statuses"]["counts"] == {answer["status"]: 1}
        assert stats["decisions"]["counts"] == {answer["decision"]: 1}
    assert {s["source"] for s in report["by_source"]} >= {"halden-sds-2026"}
