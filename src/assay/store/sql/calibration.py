"""The ``calibration_maps`` table: versioned, append-only score maps."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from assay.errors import InvalidInputError, StorageError
from assay.store.records import StoredMap
from assay.store.sql.session import Session

_COLUMNS = (
    "id, target, model_key, version, method, params, n_labels, metrics, labels_sha256, created_at"
)


class SQLCalibrationRepository:
    """:class:`~assay.store.repositories.CalibrationRepository` on one session."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

    def add(self, row: Mapping[str, Any]) -> int:
        version = self._conn.execute(
            "SELECT COALESCE(MAX(version), 0) + 1 AS next FROM calibration_maps"
            " WHERE target = ? AND model_key = ?",
            (row["target"], row["model_key"]),
        ).fetchone()["next"]
        inserted = self._conn.execute(
            "INSERT INTO calibration_maps (target, model_key, version, method, params,"
            " n_labels, metrics, labels_sha256, created_at) VALUES (:target, :model_key,"
            " :version, :method, :params, :n_labels, :metrics, :labels_sha256, :created_at)"
            " RETURNING id",
            dict(row) | {"version": version},
        ).fetchone()
        return int(inserted["id"])

    def latest(self, target: str, model_key: str) -> StoredMap | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM calibration_maps WHERE target = ? AND model_key = ?"
            " ORDER BY version DESC LIMIT 1",
            (target, model_key),
        ).fetchone()
        return None if row is None else _stored(dict(row))

    def get(self, map_id: int) -> StoredMap | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM calibration_maps WHERE id = ?", (map_id,)
        ).fetchone()
        return None if row is None else _stored(dict(row))

    def all(self, target: str | None) -> list[StoredMap]:
        if target is None:
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM calibration_maps ORDER BY id")
        else:
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM calibration_maps WHERE target = ? ORDER BY id", (target,)
            )
        return [_stored(dict(r)) for r in rows]


def _stored(row: dict[str, Any]) -> StoredMap:
    """A row as a StoredMap; a damaged row is refused, never applied as some other map."""
    from assay.calibration.maps import map_from_dict  # numpy only where a map is stored

    try:
        fitted = map_from_dict(json.loads(row["params"]))
        metrics = json.loads(row["metrics"])
        if fitted.method != row["method"] or not isinstance(metrics, dict):
            raise ValueError(f"method {row['method']!r} does not match its params")
    except (ValueError, InvalidInputError) as exc:
        raise StorageError(
            f"calibration map {row['id']} is damaged and cannot be used ({exc}); "
            "fit and save a new version"
        ) from exc
    del row["params"]
    return StoredMap(**(row | {"map": fitted, "metrics": metrics}))
