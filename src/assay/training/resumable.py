"""What the long LLM jobs share: the endpoint they ask, and the JSON-lines files they
append to and resume from (:mod:`.teach`, :mod:`.written_questions`).

A labelling or writing job may be stopped at any moment, mid-line included. Reading
skips a line cut short; appending first ends such a line, so the next row is not glued
to it and lost.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Any

from assay.models.llm import ChatClient, client_from_environment

__all__ = ["append_to", "endpoint_client", "read_rows"]


def endpoint_client(timeout: float) -> ChatClient | None:
    """The environment's endpoint with a job's per-request ``timeout``; ``None``, after
    saying how to start one, when none is configured."""
    client = client_from_environment()
    if client is None:
        print("set ASSAY_LLM_URL (and ASSAY_LLM_MODEL) to the LLM endpoint; `make llm` starts "
              "the local one", file=sys.stderr)  # fmt: skip
        return None
    return ChatClient(client.base_url, client.model, client.api_key, timeout=timeout)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows written so far (a line cut short by a stop is skipped)."""
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def append_to(path: Path) -> IO[str]:
    """``path`` opened for appending, after ending a line a stop cut short."""
    if path.is_file() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, 2)
            cut = f.read(1) != b"\n"
        if cut:
            with path.open("a") as f:
                f.write("\n")
    return path.open("a")
