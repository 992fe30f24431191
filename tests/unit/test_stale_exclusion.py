"""An item kept out by age alone says what fixes it: a policy still in force needs a
verified date, not a lower threshold (a 2025 travel policy excluded under financial used
to say only "confidence 0.718 < threshold 0.750")."""

from __future__ import annotations

from dataclasses import replace
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


def test_an_undated_item_names_the_missing_date_unless_its_source_is_a_forum(
    db_path: Path | str,
) -> None:
    """Without any date an item earns the policy's undated freshness credit (0): the
    official text kept out under financial says how to date it; a forum post kept out
    under informational, which a date would let in, is in force nowhere and gets no such
    hint."""
    text, day = "Hotel limit EUR 220 in Paris.", date(2026, 11, 29)
    with Assay(db_path) as engine:
        engine.sources.add("policy", "official")
        engine.sources.add("forum", "unverified")
        official = Candidate("p#1", text, 0.9, source_id="policy")
        post = Candidate("f#1", text, 0.75, source_id="forum")
        [kept_out] = engine.score(
            "hotel limit?", [official], policy="financial", as_of=day
        ).excluded
        [forum] = engine.score("hotel limit?", [post], policy="informational", as_of=day).excluded
        dated = replace(post, verified=date(2026, 11, 1))
        admitted = engine.score("hotel limit?", [dated], policy="informational", as_of=day)
    assert "it has no date" in (kept_out.detail or "") and "--file-dates" in (kept_out.detail or "")
    assert forum.reason is ExclusionReason.BELOW_THRESHOLD and "no date" not in (forum.detail or "")
    assert not admitted.excluded  # a date would have let the post in: the hint is withheld
