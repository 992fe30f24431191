"""One JSON shape for every error the HTTP API returns.

::

    {"error": {"status": 400, "code": "invalid_input", "message": "...",
               "field": "policy", "fix": "...", "request_id": "..."}}

assay's own exceptions map to status codes by type (bad input 400, not found 404,
conflict 409, model or storage unavailable 503); FastAPI's body validation becomes 422
in the same shape. Anything unexpected becomes a 500 in :mod:`.middleware`, which
names only the request id, so a stack trace never leaves the server (it goes to the log).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from assay.errors import (
    AssayError,
    ConflictError,
    ForbiddenError,
    InvalidInputError,
    ModelUnavailableError,
    NotFoundError,
    StorageError,
)


class ApiError(Exception):
    """An error the API reports as it is: status, a stable code and a message."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.field, self.headers = field, headers


def error_response(request: Request, error: ApiError, *, fix: str | None = None) -> JSONResponse:
    """The JSON response for ``error``, carrying the request id."""
    body: dict[str, Any] = {
        "status": error.status,
        "code": error.code,
        "message": error.message,
        "field": error.field,
        "fix": fix,
        "request_id": getattr(request.state, "request_id", None),
    }
    return JSONResponse({"error": body}, status_code=error.status, headers=error.headers)


_BY_TYPE: tuple[tuple[type[AssayError], int, str], ...] = (
    (InvalidInputError, 400, "invalid_input"),
    (NotFoundError, 404, "not_found"),
    (ForbiddenError, 403, "forbidden"),
    (ConflictError, 409, "conflict"),
    (ModelUnavailableError, 503, "model_unavailable"),
    (StorageError, 503, "storage_unavailable"),
)

_HTTP_CODES = {
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "request_too_large",
}


def install_error_handlers(app: FastAPI) -> None:
    """Route every kind of failure through :func:`error_response`."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(request, exc)

    @app.exception_handler(AssayError)
    async def assay_error(request: Request, exc: AssayError) -> JSONResponse:
        status, code = 400, "error"
        for kind, kind_status, kind_code in _BY_TYPE:
            if isinstance(exc, kind):
                status, code = kind_status, kind_code
                break
        if isinstance(exc, InvalidInputError):
            error = ApiError(status, code, str(exc), field=exc.field)
            return error_response(request, error, fix=exc.fix)
        return error_response(request, ApiError(status, code, str(exc)))

    @app.exception_handler(RequestValidationError)
    async def invalid_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        message = f"{where}: {first.get('msg', 'is invalid')}"
        problems = len(exc.errors())
        if problems > 1:
            message += f" (and {problems - 1} more problem{'s' if problems > 2 else ''})"
        error = ApiError(422, "invalid_request", message, field=where)
        return error_response(request, error, fix="see the request schema at /docs")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        headers = dict(exc.headers) if exc.headers else None
        return error_response(
            request, ApiError(exc.status_code, code, str(exc.detail), headers=headers)
        )
