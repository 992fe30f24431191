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
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.errors import InvalidInputError, NotFoundError, did_you_mean
from assay.hashing import canonical_json, sha256_hex
from assay.store.records import StoredMap
from assay.store.repositories import Database

if TYPE_CHECKING:  # numpy loads only where a map is fitted or saved
    from assay.calibration.maps import ScoreMap

__all__ = ["TARGETS", "CalibrationStore", "StoredMap", "labels_digest"]

TARGETS = ("answer", "set", "evidence")  #: the scores a map can be fitted for

_SHA256 = re.compile(r"[0-9a-f]{64}")


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

    def __init__(self, db: Database) -> None:
        self._db = db

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
        from assay.calibration.maps import IsotonicMap, PlattMap

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
        with self._db.unit_of_work():  # the write lock: no other writer picks our version
            map_id = self._db.calibration.add(row)
            stored = self.get(map_id)  # read back inside: a row that cannot be read is not kept
            if on_saved is not None:
                on_saved(stored)
            return stored

    def latest(self, target: str, model_key: str) -> StoredMap | None:
        """The newest version for ``(target, model_key)``, or None when none was fitted."""
        _check_target(target)
        return self._db.calibration.latest(target, model_key)

    def get(self, map_id: int) -> StoredMap:
        """The map with this id (as an audit row's ``ref()`` names it)."""
        found = self._db.calibration.get(map_id)
        if found is None:
            raise NotFoundError(
                f"calibration map {map_id!r} not found in this database; "
                "list the stored calibration maps for their ids"
            )
        return found

    def list(self, target: str | None = None) -> builtins.list[StoredMap]:
        """Every stored map, oldest first; only those of ``target`` when it is given."""
        if target is not None:
            _check_target(target)
        return self._db.calibration.all(target)


def _check_target(target: Any) -> None:
    if target not in TARGETS:
        raise InvalidInputError(
            "target",
            target,
            f"{did_you_mean(target, TARGETS)}use one of: {', '.join(TARGETS)}",
            problem="is not a calibration target",
        )
