"""Seed 000's acceptance tests 8.1 to 8.6 (E13), through the real CLI and Python API."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from assay import Assay, Candidate, ExclusionReason, FindingStatus
from tests.conftest import AS_OF, candidate_record, run_cli, write_jsonl


@pytest.fixture
def registered_db(engine: Assay, db_path: Path) -> Path:
    return db_path


def score_json(db: Path, path: Path, *options: str) -> dict:
    result = run_cli(
        "score",
        "--query",
        "safe charging temperature?",
        "--candidates",
        str(path),
        "--as-of",
        AS_OF.isoformat(),
        "--json",
        *options,
        db=db,
    )
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_8_1_minimum_threshold_enforcement(registered_db: Path, tmp_path: Path) -> None:
    """Items under the threshold never reach the context, yet are returned and logged (E5)."""
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            candidate_record("strong", 0.9),
            candidate_record("weak-source", 0.9, source_id="forum"),
            candidate_record("stale", 0.9, published="2016-01-01"),
        ],
    )
    out = score_json(registered_db, path, "--policy", "financial")
    assert [e["id"] for e in out["admitted"]] == ["strong"]
    assert {e["id"]: e["reason"] for e in out["excluded"]} == {
        "weak-source": "below_threshold",
        "stale": "below_threshold",
    }
    assert all(e["confidence"] < 0.75 for e in out["excluded"])
    shown = json.loads(run_cli("audit", "show", out["event_id"], "--json", db=registered_db).stdout)
    logged = {e["id"]: e["admitted"] for e in shown["payload"]["evidence"]}
    assert logged == {"strong": True, "weak-source": False, "stale": False}


def test_8_2_multi_factor_score_computation(registered_db: Path, tmp_path: Path) -> None:
    """C = w_sim*S_sim + w_src*S_src + w_fresh*S_fresh, and each factor moves C (E2, E4)."""
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            candidate_record("base", 0.8, published="2026-11-29"),
            candidate_record("less-similar", 0.6, published="2026-11-29"),
            candidate_record("weaker-source", 0.8, published="2026-11-29", source_id="wiki"),
            candidate_record("older", 0.8, published="2026-07-22"),  # 130 days
        ],
    )
    out = score_json(registered_db, path, "--policy", "financial")
    items = {e["id"]: e for e in out["admitted"] + out["excluded"]}
    assert items["base"]["scores"] == {"similarity": 0.8, "source": 1.0, "freshness": 1.0}
    assert items["base"]["confidence"] == pytest.approx(0.40 * 0.8 + 0.35 * 1.0 + 0.25 * 1.0)
    assert items["older"]["scores"]["freshness"] == pytest.approx(0.522046, abs=1e-6)
    for e in items.values():
        s, w = e["scores"], out["policy"]["weights"]
        expected = sum(w[k] * s[k] for k in ("similarity", "source", "freshness"))
        assert e["confidence"] == pytest.approx(expected, abs=1e-6)
    for changed in ("less-similar", "weaker-source", "older"):
        assert items[changed]["confidence"] < items["base"]["confidence"]


def test_8_3_confidence_exposure_in_output(registered_db: Path, tmp_path: Path) -> None:
    """Every cited item shows a high/medium/low label next to its number (E7)."""
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            candidate_record("top", 0.95, published="2026-11-20"),
            candidate_record("mid", 0.7, source_id="wiki"),
        ],
    )
    result = run_cli(
        "score",
        "--query",
        "q",
        "--candidates",
        str(path),
        "--policy",
        "informational",
        "--as-of",
        AS_OF.isoformat(),
        db=registered_db,
    )
    top = round(0.5 * 0.95 + 0.3 * 1.0 + 0.2 * math.exp(-0.005 * 9), 6)
    mid = round(0.5 * 0.7 + 0.3 * 0.7 + 0.2 * math.exp(-0.005 * 31), 6)
    assert f"[high {top:.3f}] top" in result.stdout
    assert f"[medium {mid:.3f}] mid" in result.stdout
    out = score_json(registered_db, path, "--policy", "informational")
    assert [(e["label"], e["confidence"]) for e in out["admitted"]] == [
        ("high", top),
        ("medium", mid),
    ]


def test_8_4_graduated_threshold_application(registered_db: Path, tmp_path: Path) -> None:
    """One candidate, three severities: admitted for information, kept out of riskier
    decisions (E6)."""
    path = write_jsonl(
        tmp_path / "c.jsonl", [candidate_record("wiki-item", 0.75, source_id="wiki")]
    )
    verdicts = {}
    for severity in ("informational", "financial", "safety_critical"):
        out = score_json(registered_db, path, "--severity", severity)
        assert out["policy"]["name"] == severity
        verdicts[severity] = (bool(out["admitted"]), out["policy"]["threshold"])
    assert verdicts == {
        "informational": (True, 0.50),
        "financial": (True, 0.75),
        "safety_critical": (False, 0.80),
    }


def test_8_5_corroboration_aggregation(engine: Assay) -> None:
    """Independent high-confidence agreement is corroborated and scores above either item;
    a lone claim stays isolated with its own confidence (E10)."""
    text = "Charge the HX-40 only between 0 and 45 degrees Celsius."
    result = engine.score(
        "charging range?",
        [
            Candidate("a", text, 0.9, source_id="sds", published="2026-11-01"),
            Candidate(
                "b",
                "The HX-40 should only charge between 0 and 45 degrees Celsius.",
                0.85,
                source_id="kb",
                published="2026-11-01",
            ),
            Candidate(
                "c",
                "Store the pack half charged for long periods.",
                0.8,
                source_id="wiki",
                published="2026-11-01",
            ),
        ],
        policy="informational",
        as_of=AS_OF,
    )
    by_status = {f.status: f for f in result.findings}
    corroborated, isolated = (
        by_status[FindingStatus.CORROBORATED],
        by_status[FindingStatus.ISOLATED],
    )
    assert set(corroborated.evidence_ids) == {"a", "b"} and corroborated.independent_sources == 2
    conf = {e.id: e.confidence for e in result.admitted}
    assert corroborated.confidence > max(conf["a"], conf["b"])
    assert isolated.evidence_ids == ("c",) and isolated.confidence == conf["c"]


@pytest.mark.parametrize("policy", ["informational", "financial", "legal", "safety_critical"])
def test_8_6_low_similarity_high_reliability_handling(engine: Assay, policy: str) -> None:
    """A reliable, fresh source cannot carry an irrelevant passage past the gate, and an
    on-topic passage from it with only moderate similarity (vocabulary mismatch) is kept."""
    rules = engine.policies.get(policy)
    off_topic = Candidate(
        "off-topic",
        "Return spent packs to a collection point.",
        rules.similarity_floor - 0.01,
        source_id="sds",
        published="2026-11-29",
    )
    reworded = Candidate(
        "reworded",
        "Permissible ambient range during replenishment: 0-45 C.",
        0.58,
        source_id="sds",
        published="2026-11-29",
    )
    result = engine.score(
        "safe charging temperature?", [off_topic, reworded], policy=policy, as_of=AS_OF
    )
    [excluded] = result.excluded
    assert excluded.id == "off-topic"
    assert excluded.reason is ExclusionReason.BELOW_SIMILARITY_FLOOR
    # reliability and freshness alone would have carried it: only the floor keeps it out
    assert excluded.confidence >= rules.threshold
    assert [e.id for e in result.admitted] == ["reworded"]
