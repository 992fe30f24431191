"""Small learned heads: pair features -> class probabilities, run with numpy alone.

Two kinds ship as plain arrays, so no learning library is needed at run time:

* :class:`LinearHead`: logistic (or softmax) regression on standardised features;
* :class:`TreeHead`: gradient-boosted decision trees (trained with scikit-learn's
  ``HistGradientBoostingClassifier``, exported node by node), evaluated for all trees
  at once by walking a padded node table one depth level per step.

A head is stored as one ``.npz`` file holding its arrays, the word-piece IDF table the
features need, and a JSON header (kind, feature names, classes, name and version).
Every shipped head is listed with its sha256 in ``manifest.json`` beside it, and
:func:`load_head` refuses a file whose digest differs: a corrupted or swapped
model must fail loudly, not score quietly.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError, ModelUnavailableError

__all__ = [
    "SHIPPED_DIR",
    "Head",
    "LinearHead",
    "TreeHead",
    "load_head",
    "save_head",
    "shipped_head_path",
]

SHIPPED_DIR = Path(__file__).parent / "shipped"
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LinearHead:
    """``softmax(((x - mean) / scale) @ coef.T + intercept)`` over ``classes``.

    A binary head has one row of ``coef`` and two classes; its probability of the
    positive (second) class is the logistic of the single logit.
    """

    name: str
    version: str
    features: tuple[str, ...]
    classes: tuple[str, ...]
    mean: Floats
    scale: Floats
    coef: Floats
    intercept: Floats
    idf: Floats
    info: dict[str, Any]

    @property
    def model_id(self) -> str:
        """``name@version``, recorded in every audit row that used the head."""
        return f"{self.name}@{self.version}"

    def probabilities(self, x: Floats) -> Floats:
        """Class probabilities, one row per feature row of ``x``."""
        standard = (np.atleast_2d(x) - self.mean) / self.scale
        # products summed row by row, not a matrix product: BLAS may round a row
        # differently by its place in the batch, and a passage's score must not depend
        # on the passages scored beside it (R4)
        z = (standard[:, None, :] * self.coef[None, :, :]).sum(axis=2) + self.intercept
        return _class_probabilities(z)


def _class_probabilities(raw: Floats) -> Floats:
    """Logistic of one raw score column (as two classes), or softmax of several."""
    if raw.shape[1] == 1:
        positive = 1.0 / (1.0 + np.exp(-np.clip(raw[:, 0], -40, 40)))
        return np.stack([1.0 - positive, positive], axis=1)
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    result: Floats = e / e.sum(axis=1, keepdims=True)
    return result


@dataclass(frozen=True)
class TreeHead:
    """Boosted trees: ``raw[:, k] = baseline[k] + sum of the leaves of class k's trees``.

    Node tables have one row per tree, padded to the largest tree; a leaf points to
    itself, so walking ``depth`` steps from the root lands every row on its leaf.
    ``x[feature] <= threshold`` goes left, as in scikit-learn.
    """

    name: str
    version: str
    features: tuple[str, ...]
    classes: tuple[str, ...]
    baseline: Floats
    feature: npt.NDArray[np.int64]
    threshold: Floats
    left: npt.NDArray[np.int64]
    right: npt.NDArray[np.int64]
    value: Floats
    tree_class: npt.NDArray[np.int64]
    idf: Floats
    info: dict[str, Any]

    @property
    def model_id(self) -> str:
        """``name@version``, recorded in every audit row that used the head."""
        return f"{self.name}@{self.version}"

    def probabilities(self, x: Floats) -> Floats:
        """Class probabilities, one row per feature row of ``x``."""
        rows = np.atleast_2d(np.asarray(x, dtype=np.float64))
        trees = np.arange(self.feature.shape[0])
        node = np.zeros((rows.shape[0], len(trees)), dtype=np.int64)
        row_index = np.arange(rows.shape[0])[:, None]
        for _ in range(int(self.info.get("depth", 64))):
            goes_left = rows[row_index, self.feature[trees, node]] <= self.threshold[trees, node]
            step = np.where(goes_left, self.left[trees, node], self.right[trees, node])
            if np.array_equal(step, node):
                break
            node = step
        leaves = self.value[trees, node]
        raw = np.tile(self.baseline, (rows.shape[0], 1))
        for k in range(len(self.baseline)):
            raw[:, k] += leaves[:, self.tree_class == k].sum(axis=1)
        return _class_probabilities(raw)


Head = LinearHead | TreeHead
_ARRAYS = {
    "linear": ("mean", "scale", "coef", "intercept"),
    "trees": ("baseline", "feature", "threshold", "left", "right", "value", "tree_class"),
}


def save_head(head: Head, path: Path) -> str:
    """Write ``head`` to ``path`` (``.npz``) and return the file's sha256."""
    kind = "linear" if isinstance(head, LinearHead) else "trees"
    header = {
        "kind": kind,
        "name": head.name,
        "version": head.version,
        "features": list(head.features),
        "classes": list(head.classes),
        "info": head.info,
    }
    arrays = {name: getattr(head, name) for name in _ARRAYS[kind]}
    with path.open("wb") as fh:
        np.savez_compressed(
            fh,
            header=np.asarray(json.dumps(header, sort_keys=True)),
            idf=head.idf.astype(np.float32),
            **arrays,
        )
    return hashlib.sha256(path.read_bytes()).hexdigest()


def shipped_head_path(name: str) -> tuple[Path, str]:
    """(file, expected sha256) of the shipped head ``name``, from ``manifest.json``."""
    manifest_file = SHIPPED_DIR / "manifest.json"
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailableError(
            f"cannot read {manifest_file.name} of the shipped models ({exc}); reinstall assay"
        ) from exc
    entry = manifest.get("models", {}).get(name)
    if entry is None:
        raise InvalidInputError(
            "model", name, f"choose one of: {', '.join(sorted(manifest.get('models', {})))}"
        )
    return SHIPPED_DIR / entry["file"], entry["sha256"]


def load_head(path: Path, sha256: str | None = None) -> Head:
    """Read a head written by :func:`save_head`, checking its digest when given."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelUnavailableError(f"cannot read the model file {path} ({exc})") from exc
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ModelUnavailableError(
            f"{path.name} has sha256 {digest[:12]}..., expected {sha256[:12]}...: the file "
            "is corrupt or was replaced; reinstall assay or retrain with `make train-models`"
        )
    try:
        with np.load(path, allow_pickle=False) as npz:
            header = json.loads(str(npz["header"]))
            arrays = {k: np.asarray(npz[k]) for k in npz.files if k != "header"}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise ModelUnavailableError(
            f"{path.name} is not a model file assay wrote ({exc}); retrain with "
            "`make train-models` or reinstall assay"
        ) from exc
    kind = header.get("kind", "linear")
    common: dict[str, Any] = {
        "name": header["name"],
        "version": header["version"],
        "features": tuple(header["features"]),
        "classes": tuple(header["classes"]),
        "idf": arrays["idf"].astype(np.float64),
        "info": header.get("info", {}),
    }
    if kind == "trees":
        tables: dict[str, Any] = {
            k: arrays[k].astype(np.int64 if arrays[k].dtype.kind in "iu" else np.float64)
            for k in _ARRAYS["trees"]
        }
        return TreeHead(**common, **tables)
    weights: dict[str, Any] = {k: arrays[k].astype(np.float64) for k in _ARRAYS["linear"]}
    return LinearHead(**common, **weights)
