"""Versioned storage of calibration maps (E11/R6/J7), in the ``calibration_maps`` table.

A map is fitted for one *target* (``evidence``, ``set`` or ``answer`` scores) and one
*model key*: the model, its head and the prompt version whose raw scores it maps, e.g.
``"assay-judge-v1[assay-support@1.0.0]|prompt:none"``. Each save stores the next version
for that pair, beside the older ones: rows are never edited (the table refuses UPDATE
and DELETE), because audit rows name the map they applied (:meth:`StoredMap.ref`) and a
replay must find that same map. With the map are stored how many labels it was fitted on,
a digest of those labels (:func:`labels_digest`) and its metrics on them.
"""

from __future__ import annotations

import builtins
import json
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from assay.calibration.maps import IsotonicMap, PlattMap, ScoreMap, map_from_dict
from assay.db import transaction
from assay.errors import InvalidInputError, NotFoundError, StorageError, did_you_mean
from assay.hashing import canonical_json, sha256_hex

__all__ = ["TARGETS", "CalibrationStore", "StoredMap", "labels_digest"]

TARGETS = ("evidence", "set", "answer")

_COLUMNS = (
    "id, target, model_key, version, method, params, n_labels, metrics, labels_sha256, created_at"
)
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class StoredMap:
    """One stored version of a calibration map, with what it was fitted on."""

    id: int
    target: str
    model_key: str
    version: int
    method: str
    map: ScoreMap
    n_labels: int
    metrics: dict[str, Any]
    labels_sha256: str
    created_at: str

    def apply(self, score: float) -> float:
        """The calibrated probability of a raw score."""
        return self.map(score)

    def ref(self) -> dict[str, Any]:
        """What an audit row records to name this map (and a replay to find it again)."""
        return {
            "id": self.id,
            "target": self.target,
            "model_key": self.model_key,
            "version": self.version,
            "method": self.method,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, the map as its parameters (as the CLI would print it)."""
        return {
            **self.ref(),
            "params": self.map.to_dict(),
            "n_labels": self.n_labels,
            "metrics": self.metrics,
            "labels_sha256": self.labels_sha256,
            "created_at": self.created_at,
        }


def labels_digest(scores: Sequence[float], labels: Sequence[int] | Sequence[bool]) -> str:
    """sha256 of the labelled set ``(score, label)`` as canonical JSON, in sorted order:
    the same labels give the same digest whatever order they were collected in."""
    if len(scores) != len(labels):
        raise InvalidInputError(
            "labels", f"{len(labels)} labels for {len(scores)} scores", "give one per score"
        )
    pairs = sorted((float(s), int(y)) for s, y in zip(scores, labels, strict=True))
    return sha256_hex(canonical_json(pairs))


class CalibrationStore:
    """Saves and reads versioned calibration maps on an open assay database."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def save(
        self,
        target: str,
        model_key: str,
        fitted_map: ScoreMap,
        *,
        n_labels: int,
        metrics: Mapping[str, Any],
        labels_sha256: str,
        now: datetime | None = None,
        on_saved: Callable[[StoredMap], None] | None = None,
    ) -> StoredMap:
        """Store ``fitted_map`` as the next version for ``(target, model_key)``.

        ``metrics`` is stored as given: at least :func:`~assay.calibration.maps.fit_metrics`
        (Brier and ECE before and after, on the fitting data), plus anything else the
        caller measured. The version is chosen under the write lock, so two concurrent
        saves get different versions; the whole save lands or none of it does.
        ``on_saved`` runs inside the same transaction (it appends the map's audit event),
        so the map and its record land together.
        """
        _check_target(target)
        if not isinstance(model_key, str) or not model_key.strip():
            raise InvalidInputError(
                "model_key", model_key, 'name the model, head and prompt, e.g. "judge|prompt:v1"'
            )
        if not isinstance(fitted_map, IsotonicMap | PlattMap):
            raise InvalidInputError(
                "fitted_map", fitted_map, "give a map from assay.calibration.maps.fit_map"
            )
        if isinstance(n_labels, bool) or not isinstance(n_labels, int) or n_labels < 1:
            raise InvalidInputError("n_labels", n_labels, "give the number of labels, 1 or more")
        if not isinstance(labels_sha256, str) or not _SHA256.fullmatch(labels_sha256):
            raise InvalidInputError(
                "labels_sha256",
                labels_sha256,
                "give the 64 lowercase hex digits of the labels' sha256 (file or labels_digest)",
            )
        try:
            metrics_json = canonical_json(dict(metrics))
            json.dumps(dict(metrics), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(
                "metrics", metrics, f"give a JSON object of finite numbers and text ({exc})"
            ) from exc
        row = {
            "target": target,
            "model_key": model_key,
            "method": fitted_map.method,
            "params": canonical_json(fitted_map.to_dict()),
            "n_labels": n_labels,
            "metrics": metrics_json,
            "labels_sha256": labels_sha256,
            "created_at": (now or datetime.now(UTC)).astimezone(UTC).isoformat(),
        }
        with transaction(self._conn):  # BEGIN IMMEDIATE: no other writer picks our version
            (version,) = self._conn.execute(
                "SELECT COALESCE(MAX(version), 0) + 1 FROM calibration_maps"
                " WHERE target = ? AND model_key = ?",
                (target, model_key),
            ).fetchone()
            map_id = self._conn.execute(
                "INSERT INTO calibration_maps (target, model_key, version, method, params,"
                " n_labels, metrics, labels_sha256, created_at) VALUES (:target, :model_key,"
                " :version, :method, :params, :n_labels, :metrics, :labels_sha256, :created_at)",
                row | {"version": version},
            ).lastrowid
            assert map_id is not None
            stored = self.get(map_id)  # read back inside: a row that cannot be read is not kept
            if on_saved is not None:
                on_saved(stored)
            return stored

    def latest(self, target: str, model_key: str) -> StoredMap | None:
        """The newest version for ``(target, model_key)``, or None when none was fitted."""
        _check_target(target)
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM calibration_maps WHERE target = ? AND model_key = ?"
            " ORDER BY version DESC LIMIT 1",
            (target, model_key),
        ).fetchone()
        return None if row is None else _stored(dict(row))

    def get(self, map_id: int) -> StoredMap:
        """The map with this id (as an audit row's ``ref()`` names it)."""
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM calibration_maps WHERE id = ?", (map_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(
                f"calibration map {map_id!r} not found in this database; "
                "list the stored calibration maps for their ids"
            )
        return _stored(dict(row))

    def list(self, target: str | None = None) -> builtins.list[StoredMap]:
        """Every stored map, oldest first; only those of ``target`` when it is given."""
        if target is None:
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM calibration_maps ORDER BY id")
        else:
            _check_target(target)
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM calibration_maps WHERE target = ? ORDER BY id", (target,)
            )
        return [_stored(dict(r)) for r in rows]


def _check_target(target: Any) -> None:
    if target not in TARGETS:
        raise InvalidInputError(
            "target",
            target,
            f"{did_you_mean(target, TARGETS)}use one of: {', '.join(TARGETS)}",
            problem="is not a calibration target",
        )


def _stored(row: dict[str, Any]) -> StoredMap:
    """A row as a StoredMap; a damaged row is refused, never applied as some other map."""
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
