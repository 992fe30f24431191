"""An item kept out by age alone says what fixes it: a policy still in force needs a
verified date, not a lower threshold (a 2025 travel policy excluded under financial used
to say only "confidence 0.718 < threshold 0.750")."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from assay import Assay, Candidate
from assay.types import ExclusionReason


def _scored(db_path: Path | str, **dates: date) -> list[tuple[ExclusionReason | None, str]]:
    with Assay(db_path) as engine:
        engine.sources.add("policy", "official", exist_ok=True)
        item = Candidate("p#1", "Hotel limit EUR 220 in Paris.", 0.9, source_id="policy", **dates)
        result = engine.score("hotel limit?", [item], policy="financial", as_of=date(2026, 11, 29))
        return [(e.reason, e.detail or "") for e in result.excluded]


def test_an_item_excluded_by_age_names_the_verified_date_and_the_decay_setting(
    db_path: Path | str,
) -> None:
    [(reason, detail)] = _scored(db_path, published=date(2025, 1, 15))
    assert reason is ExclusionReason.BELOW_THRESHOLD
    assert "after 683 days" in detail and "verified" in detail and "decay_rate" in detail
    assert _scored(db_path, published=date(2025, 1, 15), verified=date(2026, 11, 1)) == []
