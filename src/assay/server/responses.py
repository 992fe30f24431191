"""The success response of the hot routes."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse


class PlainJSON(JSONResponse):
    """A response whose content is already JSON-ready (the engine's ``as_dict`` output),
    so FastAPI's generic encoder, which costs as much as scoring 20 candidates, is
    skipped; dates and other plain values print as text, as the CLI's ``--json``."""

    def render(self, content: Any) -> bytes:
        return json.dumps(
            content, ensure_ascii=False, allow_nan=False, default=str, separators=(",", ":")
        ).encode("utf-8")
