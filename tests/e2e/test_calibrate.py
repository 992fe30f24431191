"""``assay calibrate`` end to end through the CLI on the demo knowledge base, with the real
models (E11, R6, J7, B3): labeled sets in, stored maps applied to ``ask`` and replayed
by ``audit verify``, thresholds and guaranteed risk written as new policy versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay import Assay
from assay.calibration.labels import LabeledExample, write_labels
from assay.calibration.workflows import fit_and_store, publish_threshold
from assay.judge.schema import Context
from assay.policy import PolicyBook, builtin_policies
from tests.conftest import AS_OF, run_cli
from tests.e2e.conftest import ask, copy_db

SDS = "Charge the HX-40 only at an ambient temperature between 0 °C and 45 °C."
TIME = "A full charge from empty takes about 3 hours with the 65 W charger."
ANSWERS = [
    ("What temperature range is safe for charging?", "Between 0 °C and 45 °C.", SDS, 1),
    ("What temperature range is safe for charging?", "Up to 70 °C is fine.", SDS, 0),
    ("How long does a full charge take?", "About 3 hours.", TIME, 1),
    ("How long does a full charge take?", "About 9 hours with any charger.", TIME, 0),
    ("Which charger should be used?", "The 65 W charger.", TIME, 1),
    ("Which charger should be used?", "A 12 V car charger from Sparkle Ltd.", TIME, 0),
    ("Can it be charged below freezing?", "No, only from 0 °C.", SDS, 1),
    ("Can it be charged below freezing?", "Yes, down to -30 °C in Oslo.", SDS, 0),
]
QUESTIONS = [
    ("What ambient temperature range is safe for charging the HX-40?", 1),
    ("How long does a full charge of the HX-40 take?", 1),
    ("What happens if the battery pack overheats?", 1),
    ("Which charger should I use for the HX-40?", 1),
    ("How do I migrate my Python application to a new server?", 0),
    ("What is the capital of Mongolia?", 0),
    ("Who won the football world cup in 1974?", 0),
    ("How do reptiles regulate their body temperature?", 0),
]


SAFE_RANGE = "What ambient temperature range is safe for charging the HX-40?"


@pytest.fixture
def answer_labels(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    write_labels(
        path,
        [
            LabeledExample(q, label, answer=a, contexts=(Context("c1", text),), id=f"a{i}")
            for i, (q, a, text, label) in enumerate(ANSWERS * 3)
        ],
    )
    return path


@pytest.fixture
def kb_labels(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    write_labels(
        path, [LabeledExample(q, label, id=f"q{i}") for i, (q, label) in enumerate(QUESTIONS)]
    )
    return path


def calibrate(*args: str, db: Path) -> str:
    result = run_cli("calibrate", *args, "--as-of", AS_OF.isoformat(), db=db)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_j7_an_answer_map_calibrates_the_judge_and_is_audited(
    demo_db: Path, answer_labels: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A map fitted on the judge's scores of given answers calibrates the judge's score
    wherever it decides alone; an answer the correctness model rates has another score,
    so the map (keyed by the scorer) leaves it alone."""
    out = calibrate(
        "fit", "--labels", str(answer_labels), "--target", "answer", "--json", db=demo_db
    )
    stored = json.loads(out)
    assert (stored["target"], stored["version"], stored["method"]) == ("answer", 1, "isotonic")
    assert stored["n_labels"] == 24 and "brier_after" in stored["metrics"]
    listed = run_cli("calibrate", "maps", db=demo_db).stdout
    assert "answer" in listed and stored["model_key"] in listed
    rated = ask(demo_db, SAFE_RANGE, "--policy", "financial")
    assert rated["judge"]["correctness"] is not None and rated["judge"]["calibration"] is None
    monkeypatch.setenv("ASSAY_CORRECTNESS_MODEL", "none")
    answered = ask(demo_db, SAFE_RANGE, "--policy", "financial")
    calibration = answered["judge"]["calibration"]
    assert calibration["id"] == stored["id"] and 0.0 <= calibration["value"] <= 1.0
    assert answered["assessment"]["confidence_score"] == calibration["value"]
    assert run_cli("audit", "verify", db=demo_db).exit_code == 0


def test_r6_a_set_map_decides_the_route_and_replays(demo_db: Path, kb_labels: Path) -> None:
    calibrate(
        "fit",
        "--labels",
        str(kb_labels),
        "--target",
        "set",
        "--method",
        "platt",
        "--policy",
        "informational",
        db=demo_db,
    )
    out = ask(
        demo_db, "How long does a full charge of the HX-40 take?", "--policy", "informational"
    )
    assert out["confidence"]["calibrated"] is True
    assert out["confidence"]["score"] == out["calibration"]["set"]["value"]
    assert out["confidence"]["raw"] == out["calibration"]["set"]["raw"]
    assert run_cli("audit", "verify", db=demo_db).exit_code == 0  # replays the calibrated route
    # a map fitted for another policy's scores is never applied to these
    other = ask(demo_db, "How long does a full charge of the HX-40 take?", "--policy", "legal")
    assert other["confidence"]["calibrated"] is False


def test_r6_a_new_policy_version_with_new_bands_keeps_its_set_map(
    demo_db: Path, kb_labels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thresholds change the bands, not the scores: the map fitted on them still applies."""
    calibrate(
        "fit",
        "--labels",
        str(kb_labels),
        "--target",
        "set",
        "--method",
        "platt",
        "--policy",
        "safety_critical",
        db=demo_db,
    )
    folder = tmp_path / "policies"
    calibrate(
        "thresholds",
        "--labels",
        str(kb_labels),
        "--target",
        "set",
        "--policy",
        "safety_critical",
        "--policy-dir",
        str(folder),
        db=demo_db,
    )
    monkeypatch.setenv("ASSAY_POLICY_DIRS", str(folder))
    out = ask(
        demo_db, "How long does a full charge of the HX-40 take?", "--policy", "safety_critical"
    )
    assert out["policy"]["version"] == "6" and out["confidence"]["calibrated"] is True


def test_r6_thresholds_write_a_new_policy_version(
    demo_db: Path, kb_labels: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "policies"
    out = calibrate(
        "thresholds",
        "--labels",
        str(kb_labels),
        "--target",
        "set",
        "--policy",
        "financial",
        "--policy-dir",
        str(folder),
        "--json",
        db=demo_db,
    )
    choice = json.loads(out)
    policy = PolicyBook.load([folder]).get("financial")
    shipped = builtin_policies()["financial"].version
    assert policy.version == choice["version"] == str(int(shipped) + 1)
    assert policy.routing.bands.proceed == pytest.approx(round(choice["threshold"], 6))
    assert policy.routing.bands.proceed > policy.routing.bands.hedge > policy.routing.bands.broaden
    assert (folder / "financial.toml").read_text().startswith("# calibrated by `assay calibrate")


def test_b3_risk_writes_a_guaranteed_threshold_or_leaves_the_policy(
    demo_db: Path, answer_labels: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "policies"
    rows = json.loads(
        calibrate(
            "risk",
            "--labels",
            str(answer_labels),
            "--alpha",
            "0.4",
            "--delta",
            "0.2",
            "--severity",
            "informational",
            "--policy-dir",
            str(folder),
            "--json",
            db=demo_db,
        )
    )
    (row,) = rows
    assert row["controlled"] and row["empirical_risk"] <= 0.4
    policy = PolicyBook.load([folder]).get("informational")
    assert policy.judge.thresholds.caveat == pytest.approx(round(row["threshold"], 6))
    strict = json.loads(
        calibrate(
            "risk",
            "--labels",
            str(answer_labels),
            "--alpha",
            "0.001",
            "--severity",
            "legal",
            "--policy-dir",
            str(folder),
            "--json",
            db=demo_db,
        )
    )
    assert strict[0]["controlled"] is False and "version" not in strict[0]
    assert not (folder / "legal.toml").exists()  # nothing is guaranteed, nothing is written


def test_e11_the_report_writes_html_and_figures(
    demo_db: Path, answer_labels: Path, tmp_path: Path
) -> None:
    out = calibrate(
        "report",
        "--labels",
        str(answer_labels),
        "--target",
        "answer",
        "--out",
        str(tmp_path / "report"),
        db=demo_db,
    )
    assert "Brier" in out
    names = sorted(p.name for p in (tmp_path / "report").iterdir())
    assert names == ["histograms.png", "reliability.png", "report.html", "risk_coverage.png"]


def test_labels_from_a_dataset_and_bad_input(tmp_path: Path) -> None:
    data = tmp_path / "data" / "halueval"
    data.mkdir(parents=True)
    rows = [
        {
            "knowledge": f"k{i}",
            "question": f"q{i}?",
            "right_answer": f"r{i}",
            "hallucinated_answer": f"h{i} is wrong",
        }
        for i in range(30)
    ]
    (data / "qa_data.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "labels.jsonl"
    result = run_cli(
        "calibrate",
        "labels",
        "--from",
        "halueval",
        "--split",
        "train",
        "--data",
        str(tmp_path / "data"),
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 2 * 24  # 80% of 30 rows, two answers each
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "q", "contexts": "kb", "label": 2}\n')
    result = run_cli(
        "calibrate", "fit", "--labels", str(bad), "--target", "set", db=tmp_path / "none.db"
    )
    assert result.exit_code == 2 and "line 1" in result.stderr and "label" in result.stderr


def test_b2_a_map_edited_in_its_table_is_caught_by_verify(
    demo_db: Path, answer_labels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    db = copy_db(demo_db, tmp_path / "copy.db")
    calibrate(
        "fit", "--labels", str(answer_labels), "--target", "answer", "--method", "platt", db=db
    )
    conn = sqlite3.connect(db)
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'calibration_maps'"
    ).fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE calibration_maps SET params = replace(params, '\"a\":', '\"a\":9')")
    conn.commit()
    conn.close()
    monkeypatch.setenv("ASSAY_CORRECTNESS_MODEL", "none")  # the judge's score, which it maps
    ask(
        db,
        "What ambient temperature range is safe for charging the HX-40?",
        "--policy",
        "financial",
    )
    result = run_cli("audit", "verify", db=db)
    assert result.exit_code == 1
    assert "differs from the one its fit recorded" in result.stdout + result.stderr


def test_r6_a_precision_floor_nobody_reaches_writes_nothing(
    demo_db: Path, kb_labels: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "policies"
    result = run_cli(
        "calibrate",
        "thresholds",
        "--labels",
        str(kb_labels),
        "--target",
        "answer",
        "--category",
        "dosage",
        "--policy",
        "legal",
        "--policy-dir",
        str(folder),
        db=demo_db,
    )
    assert result.exit_code == 2 and "--category" in result.stderr
    result = run_cli(
        "calibrate",
        "thresholds",
        "--labels",
        str(kb_labels),
        "--target",
        "set",
        "--min-precision",
        "1.0",
        "--objective",
        "recall",
        "--policy",
        "legal",
        "--policy-dir",
        str(folder),
        "--as-of",
        AS_OF.isoformat(),
        db=demo_db,
    )
    if result.exit_code == 2:  # no threshold reached precision 1.0 on these labels
        assert "cannot be met" in result.stderr and not folder.exists()
    else:  # one did: the written proceed band keeps every unanswerable question out
        assert result.exit_code == 0, result.output


def test_calibrate_and_publish_from_python(
    demo_db: Path, answer_labels: Path, tmp_path: Path
) -> None:
    """The same workflows the CLI runs, called from Python: a map fitted and stored with
    its audit event, and a threshold written as a new policy version."""
    db = copy_db(demo_db, tmp_path / "workflows.db")
    with Assay(db, calibrate=False) as engine:
        fitted = fit_and_store(engine, answer_labels, "answer", method="platt", as_of=AS_OF)
        assert (fitted.stored.target, fitted.stored.method, fitted.n_scores) == (
            "answer", "platt", 24,
        )  # fmt: skip
        [event] = engine.audit.list(kind="calibration", limit=1)
        assert event.record().map.id == fitted.stored.id  # type: ignore[attr-defined]
    folder = tmp_path / "policies"
    with Assay(db) as engine:
        published = publish_threshold(
            engine, answer_labels, "answer", policy="financial", folder=folder, as_of=AS_OF
        )
        assert engine.audit.verify().ok
    assert published.path.parent == folder and published.path.is_file()
    book = PolicyBook.load([folder])
    assert book.get("financial").version == published.policy.version
    assert book.get("financial").judge.thresholds.publish == published.threshold
