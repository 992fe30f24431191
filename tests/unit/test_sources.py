"""The source registry (E3): kind defaults, versioned history, reviews, transactions."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ProcessPoolExecutor
from datetime import date
from pathlib import Path

import pytest

from assay import (
    ConflictError,
    InvalidInputError,
    SourceRegistry,
    StorageError,
    UnknownSourceError,
)
from assay.store.sqlite import SQLiteDatabase
from assay.store.sqlite.connection import connect
from assay.store.sqlite.migrations import MIGRATIONS


@pytest.fixture
def registry() -> SourceRegistry:
    return SourceRegistry(SQLiteDatabase(":memory:"))


@pytest.mark.parametrize(
    ("kind", "reliability"),
    [
        ("official", 1.0),
        ("verified_kb", 0.9),
        ("internal_wiki", 0.7),
        ("customer", 0.4),
        ("unverified", 0.3),
    ],
)
def test_e3_reliability_defaults_from_kind(
    registry: SourceRegistry, kind: str, reliability: float
) -> None:
    assert registry.add(f"s-{kind}", kind).reliability == reliability


def test_e3_explicit_reliability_and_metadata_are_kept(registry: SourceRegistry) -> None:
    s = registry.add(
        "uksc-2020-12",
        "official",
        reliability=0.95,
        jurisdiction="UK",
        court_level="supreme",
        overruled=False,
        owner="UKSC",
        metadata={"citation": "[2020] UKSC 12"},
    )
    again = registry.get("uksc-2020-12")
    assert again == s
    assert again.metadata == {"citation": "[2020] UKSC 12"} and again.court_level == "supreme"


def test_e3_every_change_is_versioned_with_a_snapshot(registry: SourceRegistry) -> None:
    registry.add("wiki", "internal_wiki", note="imported")
    registry.update("wiki", reliability=0.6, note="outdated pages found")
    registry.review("wiki", on=date(2026, 11, 1), note="checked")
    history = registry.history("wiki")
    assert [(h.version, h.action) for h in history] == [(1, "add"), (2, "update"), (3, "review")]
    assert history[1].snapshot["reliability"] == 0.6 and history[1].note == "outdated pages found"
    assert history[0].snapshot["reliability"] == 0.7
    assert registry.get("wiki").version == 3


def test_e3_sources_past_their_review_interval_are_flagged(registry: SourceRegistry) -> None:
    registry.add("fresh", "official", reviewed_at="2026-10-01")  # due 2027-10-01
    registry.add("stale", "unverified", reviewed_at="2026-09-01")  # 30 days: due 2026-10-01
    overdue = [s.id for s in registry.list(overdue_on=date(2026, 11, 29))]
    assert overdue == ["stale"]
    registry.review("stale", on=date(2026, 11, 28))
    assert registry.list(overdue_on=date(2026, 11, 29)) == []


def test_e3_a_new_source_is_first_due_for_review_one_interval_after_registration(
    registry: SourceRegistry,
) -> None:
    """Registering a source without ``reviewed_at`` does not make it overdue at once."""
    new = registry.add("new", "customer")
    registered = date.fromisoformat(new.created_at[:10])
    due = new.review_due()
    assert due is not None and (due - registered).days == new.review_interval_days
    assert not new.review_overdue(registered)
    assert not new.review_overdue(due)
    assert new.review_overdue(date.fromordinal(due.toordinal() + 1))
    assert [s.id for s in registry.list(overdue_on=date.fromordinal(due.toordinal() + 1))] == [
        "new"
    ]


def test_user_defined_kind(registry: SourceRegistry) -> None:
    registry.add_kind("regulator", 0.95, review_interval_days=180)
    assert registry.add("fca-handbook", "regulator").reliability == 0.95
    with pytest.raises(ConflictError):
        registry.add_kind("regulator", 0.9)


def test_unknown_kind_lists_the_known_ones(registry: SourceRegistry) -> None:
    with pytest.raises(InvalidInputError) as err:
        registry.add("x", "offical")
    assert (
        "'offical' is not a known source kind; did you mean 'official'? use one of customer,"
        in str(err.value)
    )


def test_duplicate_source_is_a_conflict(registry: SourceRegistry) -> None:
    registry.add("x", "official")
    with pytest.raises(ConflictError, match="already exists"):
        registry.add("x", "customer")


def test_a_setup_run_twice_may_register_its_sources_again(registry: SourceRegistry) -> None:
    """README's first example failed on its second run: the source already existed."""
    first = registry.add("x", "official", owner="Acme", exist_ok=True)
    again = registry.add("x", "official", owner="Someone else", exist_ok=True)
    assert again == first and len(registry.history("x")) == 1  # returned, not changed
    with pytest.raises(ConflictError, match="as kind 'official'"):
        registry.add("x", "customer", exist_ok=True)


def test_unknown_source_says_how_to_register_it(registry: SourceRegistry) -> None:
    with pytest.raises(UnknownSourceError, match="assay sources add"):
        registry.get("missing")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"reliability": 1.5}, "reliability"),
        ({"overruled": "yes"}, "overruled"),
        ({"review_interval_days": 0}, "review_interval_days"),
        ({"colour": "red"}, "colour"),
        ({"reviewed_at": "soon"}, "reviewed_at"),
    ],
)
def test_invalid_update_changes_nothing(
    registry: SourceRegistry, changes: dict[str, object], field: str
) -> None:
    registry.add("x", "official")
    with pytest.raises(InvalidInputError, match=field):
        registry.update("x", **changes)
    assert registry.get("x").version == 1
    assert len(registry.history("x")) == 1


def test_bad_source_id_is_refused(registry: SourceRegistry) -> None:
    with pytest.raises(InvalidInputError, match="source id"):
        registry.add("has space", "official")


def test_failed_write_rolls_back_the_whole_change(
    registry: SourceRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The source row and its history entry land together or not at all."""
    registry.add("x", "official")

    def broken_log(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("disk full")

    monkeypatch.setattr(registry, "_log", broken_log)
    with pytest.raises(StorageError, match="rolled back: disk full"):
        registry.update("x", reliability=0.5)
    monkeypatch.undo()
    assert registry.get("x").reliability == 1.0 and registry.get("x").version == 1


def test_changing_kind_resets_reliability_and_interval_unless_given(
    registry: SourceRegistry,
) -> None:
    registry.add("x", "official")
    demoted = registry.update("x", kind="unverified")
    assert (demoted.reliability, demoted.review_interval_days) == (0.3, 30)
    promoted = registry.update("x", kind="verified_kb", reliability=0.85)
    assert (promoted.reliability, promoted.review_interval_days) == (0.85, 180)


def test_review_cannot_be_dated_in_the_future(registry: SourceRegistry) -> None:
    registry.add("x", "official")
    with pytest.raises(InvalidInputError, match="cannot be dated after today"):
        registry.review("x", on=date(2999, 1, 1))


def test_zero_review_interval_is_refused_not_defaulted(registry: SourceRegistry) -> None:
    with pytest.raises(InvalidInputError, match="review_interval_days=0"):
        registry.add("x", "official", review_interval_days=0)


def test_listing_an_unknown_kind_is_an_error(registry: SourceRegistry) -> None:
    with pytest.raises(InvalidInputError, match="'bogus' is not a known source kind"):
        registry.list(kind="bogus")


def test_source_history_is_append_only(tmp_path: Path) -> None:
    SourceRegistry(SQLiteDatabase(tmp_path / "s.db")).add("x", "official")
    conn = sqlite3.connect(tmp_path / "s.db")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE source_history SET note = 'rewritten'")


def _open_fresh(path: str) -> int:

    return len(connect(path).execute("SELECT name FROM _assay_migrations").fetchall())


def test_concurrent_first_opens_migrate_once(tmp_path: Path) -> None:
    """Several processes opening a new database at once must not run a migration twice."""
    path = str(tmp_path / "race.db")
    with ProcessPoolExecutor(max_workers=6) as pool:
        counts = list(pool.map(_open_fresh, [path] * 12))
    assert set(counts) == {len(MIGRATIONS)}


def test_text_that_is_not_unicode_is_refused_and_nothing_is_written(
    registry: SourceRegistry,
) -> None:
    """A lone surrogate in metadata used to be committed; every later read of the
    registry then failed (`sources list` printed "internal error")."""
    for attributes in ({"owner": "Acme\ud800"}, {"metadata": {"k": ["ok", "\udfff"]}},
                       {"metadata": {"\ud800": 1}}, {"note": "checked\ud800"}):  # fmt: skip
        with pytest.raises(InvalidInputError, match="not valid Unicode"):
            registry.add("x", "official", **attributes)  # type: ignore[arg-type]
    assert registry.list() == []
    registry.add("x", "official")
    with pytest.raises(InvalidInputError, match="not valid Unicode"):
        registry.update("x", name="n\ud800")
    assert registry.get("x").version == 1 and len(registry.history("x")) == 1
