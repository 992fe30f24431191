"""A question that names something the knowledge base never mentions is asked back, not
answered with a sibling's figure (issue 41): a manual on the Kestrel Dart asked for the
range of the Dart Plus used to give the Dart's 70 km as the Dart Plus's."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from tests.e2e.conftest import ask, store_set_map

MANUAL = """---
title: Kestrel e-bikes — owner's manual
published: 2026-10-01
---
# Kestrel e-bikes — owner's manual

## Range

In Eco mode the Kestrel Dart rides up to 70 km on a full battery, and the Kestrel
Glide up to 95 km. Cold weather and hills shorten the range.
"""


def _kb(tmp_path: Path) -> Path:
    db = tmp_path / "assay.db"
    (tmp_path / "manual.md").write_text(MANUAL)
    for args in (
        ["sources", "add", "manual", "--kind", "official"],
        ["ingest", str(tmp_path / "manual.md"), "--source", "manual"],
    ):
        result = run_cli(*args, db=db)
        assert result.exit_code == 0, result.output
    return db


def test_a_name_the_evidence_never_mentions_is_asked_back(tmp_path: Path) -> None:
    db = _kb(tmp_path)
    plus = ask(db, "What is the range of the Kestrel Dart Plus?", "--policy", "informational")
    assert plus["status"] == "clarification"
    assert "plus" in plus["answer"].lower() and "70 km" not in plus["answer"]
    assert plus["decision"] == "clarify"
    assert "the question names plus" in plus["reasons"][-1]
    dart = ask(db, "What is the range of the Kestrel Dart?", "--policy", "informational")
    assert dart["status"] == "answered" and "70 km" in dart["answer"]


def test_a_calibrated_set_confidence_still_asks_back_for_a_missing_name(tmp_path: Path) -> None:
    """A stored set map re-routes the question on its calibrated confidence; that route
    kept the rule too (it used to drop it, and answered the Dart Plus with the Dart's)."""
    db = _kb(tmp_path)
    store_set_map(db, "informational", [0.0, 0.05, 0.1, 0.4, 0.7, 0.9], [0, 1, 1, 1, 1, 1])
    plus = ask(db, "What is the range of the Kestrel Dart Plus?", "--policy", "informational")
    assert plus["confidence"]["calibrated"] is True
    assert plus["status"] == "clarification" and "70 km" not in plus["answer"]
