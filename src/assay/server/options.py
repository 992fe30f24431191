"""How ``assay serve`` hands its options to every worker process.

uvicorn starts each worker from an import string, without arguments, so the command
passes its options through the environment: one ``ASSAY_SERVE_*`` variable each, set by
:meth:`ServeOptions.to_environment` and read back, validated with the command's own
bounds, by :meth:`ServeOptions.from_environment`. A bad value (set by hand for a worker
started some other way) fails with the variable's name instead of a bare ``int()`` error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.errors import InvalidInputError

__all__ = ["MIB", "ServeOptions"]

MIB = 1 << 20
_PREFIX = "ASSAY_SERVE_"


class ServeOptions(BaseModel):
    """The options of ``assay serve`` that each worker's app is built with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_body_bytes: int = Field(2 * MIB, ge=10_000, le=1024 * MIB)  #: largest JSON body
    max_upload_bytes: int = Field(64 * MIB, ge=10_000, le=4096 * MIB)  #: largest upload
    monitor_every: float = Field(60.0, ge=0)  #: seconds between drift checks (0: never)
    session_hours: float = Field(8.0, ge=0.01, le=24 * 90)  #: a dashboard login's life
    secure_cookies: bool = False  #: Secure session cookies even on plain http

    def to_environment(self) -> dict[str, str]:
        """The ``ASSAY_SERVE_*`` variables that carry these options to a worker."""
        return {
            f"{_PREFIX}{name.upper()}": ("1" if value else "") if isinstance(value, bool)
            else str(value)
            for name, value in self.model_dump().items()
        }  # fmt: skip

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> ServeOptions:
        """The options in ``environ`` (default: this process's), defaults where unset."""
        env = os.environ if environ is None else environ
        given: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            raw = env.get(f"{_PREFIX}{name.upper()}")
            if raw is not None:
                given[name] = bool(raw) if field.annotation in (bool, "bool") else raw
        try:
            return cls.model_validate(given)
        except ValidationError as exc:
            error = exc.errors()[0]
            name = str(error["loc"][0])
            raise InvalidInputError(
                f"{_PREFIX}{name.upper()}", given.get(name),
                f"give {error['msg'].lower()}, or unset it (`assay serve --help` lists them)",
            ) from None  # fmt: skip
