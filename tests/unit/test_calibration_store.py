"""Versioned calibration maps in the database (assay.calibration.store)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from assay.calibration.maps import IsotonicMap, PlattMap, fit_metrics
from assay.calibration.store import CalibrationStore, StoredMap, labels_digest
from assay.errors import InvalidInputError, NotFoundError, StorageError
from assay.store import open_database
from assay.store.sql import calibration as sql_calibration
from tests.rawdb import RawDatabase

SCORES = [0.1, 0.2, 0.35, 0.4, 0.6, 0.7, 0.8, 0.9]
LABELS = [0, 0, 1, 0, 1, 0, 1, 1]
JUDGE = "assay-judge-v1[assay-support@1.0.0]|prompt:none"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
def conn(db_path: Path | str) -> Iterator[RawDatabase]:
    """A second, raw connection to the same database: what someone editing it would hold."""
    open_database(db_path).close()  # created and migrated
    connection = RawDatabase(db_path, triggers=True)
    yield connection
    connection.close()


@pytest.fixture
def store(db_path: Path | str) -> Iterator[CalibrationStore]:
    db = open_database(db_path)
    yield CalibrationStore(db)
    db.close()


def save(
    store: CalibrationStore, target: str = "answer", model_key: str = JUDGE, **kw: Any
) -> StoredMap:
    fitted = kw.pop("fitted_map", IsotonicMap.fit(SCORES, LABELS))
    metrics = fit_metrics(fitted, SCORES, LABELS) if hasattr(fitted, "method") else {}
    args: dict[str, Any] = {
        "n_labels": len(SCORES),
        "metrics": metrics | {"source": "review queue"},
        "labels_sha256": labels_digest(SCORES, LABELS),
        "now": NOW,
    }
    return store.save(target, model_key, fitted, **(args | kw))


def test_versions_count_up_per_target_and_model_key(store: CalibrationStore) -> None:
    first = save(store)
    second = save(store, fitted_map=PlattMap.fit(SCORES, LABELS))
    other_model = save(store, model_key="other|prompt:v2")
    other_target = save(store, target="evidence")
    assert [first.version, second.version, other_model.version, other_target.version] == [
        1,
        2,
        1,
        1,
    ]
    assert second.method == "platt" and first.method == "isotonic"
    assert len({first.id, second.id, other_model.id, other_target.id}) == 4


def test_latest_get_and_list(store: CalibrationStore) -> None:
    assert store.latest("answer", JUDGE) is None
    assert store.list() == []
    first = save(store)
    platt = PlattMap.fit(SCORES, LABELS)
    second = save(store, fitted_map=platt)
    evidence = save(store, target="evidence")
    latest = store.latest("answer", JUDGE)
    assert latest == second and latest is not None
    assert latest.map == platt and latest.apply(0.5) == platt(0.5)
    assert store.latest("set", JUDGE) is None
    assert store.get(first.id) == first
    assert store.list() == [first, second, evidence]
    assert store.list("answer") == [first, second]
    assert store.list("set") == []


def test_a_stored_map_keeps_what_it_was_fitted_on(store: CalibrationStore) -> None:
    fitted = IsotonicMap.fit(SCORES, LABELS)
    saved = save(store, fitted_map=fitted)
    assert saved.map == fitted
    assert saved.apply(0.37) == fitted(0.37)
    assert saved.n_labels == 8
    assert saved.labels_sha256 == labels_digest(SCORES, LABELS)
    assert saved.metrics == fit_metrics(fitted, SCORES, LABELS) | {"source": "review queue"}
    assert saved.created_at == "2026-11-29T12:00:00+00:00"
    assert saved.ref() == {
        "id": saved.id,
        "target": "answer",
        "model_key": JUDGE,
        "version": 1,
        "method": "isotonic",
    }
    assert saved.to_dict()["params"] == fitted.to_dict()


def test_maps_survive_reopening_the_database(db_path: Path | str) -> None:
    first = open_database(db_path)
    saved = save(CalibrationStore(first), fitted_map=PlattMap.fit(SCORES, LABELS))
    first.close()
    again = open_database(db_path)
    try:
        assert CalibrationStore(again).get(saved.id) == saved
    finally:
        again.close()


def test_a_failure_inside_save_leaves_nothing(
    store: CalibrationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(row: dict[str, Any]) -> StoredMap:
        raise RuntimeError("disk on fire")

    with monkeypatch.context() as patch:
        patch.setattr(sql_calibration, "_stored", broken)  # fails after the INSERT
        with pytest.raises(RuntimeError, match="disk on fire"):
            save(store)
    assert store.list() == []
    assert save(store).version == 1


def test_stored_maps_cannot_be_edited_or_deleted(
    store: CalibrationStore, conn: RawDatabase
) -> None:
    saved = save(store)
    with pytest.raises(Exception, match="append-only"):
        conn.execute("UPDATE calibration_maps SET params = '{}' WHERE id = ?", (saved.id,))
    with pytest.raises(Exception, match="append-only"):
        conn.execute("DELETE FROM calibration_maps")
    assert store.get(saved.id) == saved


def test_a_damaged_row_is_refused(store: CalibrationStore, conn: RawDatabase) -> None:
    conn.execute(
        "INSERT INTO calibration_maps (target, model_key, version, method, params, n_labels,"
        " metrics, labels_sha256, created_at) VALUES ('answer', 'm', 1, 'platt',"
        " '{\"method\": \"platt\", \"a\": 1.0}', 4, '{}', 'x', 'now')"
    )
    with pytest.raises(StorageError, match="damaged"):
        store.latest("answer", "m")


UNKNOWN_TARGET: dict[str, Callable[[CalibrationStore], object]] = {
    "save": lambda store: save(store, target="answers"),
    "latest": lambda store: store.latest("answers", JUDGE),
    "list": lambda store: store.list("answers"),
}


@pytest.mark.parametrize("call", UNKNOWN_TARGET)
def test_an_unknown_target_is_refused(store: CalibrationStore, call: str) -> None:
    with pytest.raises(InvalidInputError, match="did you mean 'answer'") as err:
        UNKNOWN_TARGET[call](store)
    assert err.value.field == "target" and err.value.value == "answers"


def test_an_unknown_id_is_not_found(store: CalibrationStore) -> None:
    with pytest.raises(NotFoundError, match="calibration map 999 not found"):
        store.get(999)


@pytest.mark.parametrize(
    ("field", "kw"),
    [
        ("model_key", {"model_key": " "}),
        ("fitted_map", {"fitted_map": {"method": "platt"}}),
        ("n_labels", {"n_labels": 0}),
        ("n_labels", {"n_labels": True}),
        ("labels_sha256", {"labels_sha256": "abc"}),
        ("metrics", {"metrics": {"brier_after": float("nan")}}),
        ("metrics", {"metrics": {"when": NOW}}),
    ],
)
def test_bad_save_arguments_are_refused(
    store: CalibrationStore, field: str, kw: dict[str, Any]
) -> None:
    with pytest.raises(InvalidInputError) as err:
        save(store, **kw)
    assert err.value.field == field
    assert store.list() == []


def test_labels_digest_ignores_order_but_not_content() -> None:
    digest = labels_digest(SCORES, LABELS)
    assert digest == labels_digest(SCORES[::-1], LABELS[::-1])
    assert digest != labels_digest(SCORES, [1 - y for y in LABELS])
    assert len(digest) == 64
    with pytest.raises(InvalidInputError, match="labels"):
        labels_digest(SCORES, LABELS[:-1])


def test_j4_j7_a_map_calibrates_a_judgment_but_never_an_empty_answer(
    store: CalibrationStore,
) -> None:
    from assay.actions import ActionThresholds
    from assay.calibration.apply import Calibrator, answer_key
    from assay.calibration.maps import fit_map
    from assay.judge.base import Judgment, empty_or_refusal

    fitted = fit_map("isotonic", [0.2, 0.2, 0.6, 0.6, 0.9, 0.9], [1, 0, 1, 0, 1, 1])
    store.save(
        "answer", answer_key("j", None), fitted, n_labels=6, metrics={}, labels_sha256="0" * 64
    )
    calibrator = Calibrator(store)
    empty = empty_or_refusal("", "j")
    assert empty is not None
    assert calibrator.judgment(empty, ActionThresholds()) is empty  # 0.0 and suppress stay
    judged = Judgment(empty.assessment.model_copy(update={"confidence_score": 0.6}), "j")
    mapped = calibrator.judgment(judged, ActionThresholds())
    assert mapped.assessment.confidence_score == 0.5
    assert mapped.assessment.recommended_action == "append_caveat"
    assert mapped.calibration is not None and mapped.calibration["raw"] == 0.6
