"""Canonical JSON and sha256: the one way assay serialises what it hashes.

Policies, audit rows and their replay must hash the same bytes for the same value,
so every digest in assay goes through these two functions. Shipped model files are
checked against the sha256 their ``model.json`` lists with :func:`mismatched_file`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    """Hex sha256 of a UTF-8 string."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def mismatched_file(folder: Path, digests: Mapping[str, str]) -> tuple[Path, str, str] | None:
    """The first file of ``folder`` whose sha256 is not the one ``digests`` (file name ->
    hex digest) names, as (path, actual, expected); ``None`` when all match."""
    for name, expected in digests.items():
        actual = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        if actual != expected:
            return folder / name, actual, expected
    return None
