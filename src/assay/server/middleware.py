"""The ASGI layer around every request, before the app reads a byte of the body.

In order: a request id (``X-Request-ID``, kept if the caller sent a sane one); for the
API (``/v1``, ``/metrics``) a valid key, or 401 at once, the role the route needs, or
403 at once, and a request left in the key's minute (:mod:`assay.server.ratelimit`), or
429 with ``Retry-After``, so that a caller without them cannot make the server read,
parse or spool a body (a reader's broken body to a curator's route is 403, not 422);
for the dashboard's forms, a same-origin check (its session cookie is SameSite=Strict,
but another port of the same host is the same site); the body size limit (413, also
for bodies without a Content-Length); the latency metric; and, for a bug, a 500 in the
API's error shape with the request id, logged with its traceback.

Written as plain ASGI (not ``BaseHTTPMiddleware``) because it runs on every request of
a service whose scoring path is measured in milliseconds.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from assay.keys import ApiKey, Role
from assay.server import metrics
from assay.server.ratelimit import RateLimiter

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("assay.server")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
_CHALLENGE = [(b"www-authenticate", b"Bearer")]


def route_path(scope: Scope) -> str:
    """The request's path without the prefix the app is mounted under (``root_path``,
    e.g. ``uvicorn --root-path /api``): what the routes, and these checks, match."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def header_key(headers: Mapping[str, str]) -> str | None:
    """The API key of ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``, if any."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return headers.get("x-api-key", "").strip() or None


class RequestContext:
    """See the module docstring; ``authenticate`` turns a token into its active key."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        authenticate: Callable[[str], ApiKey | None],
        required_role: Callable[[Scope], Role | None] = lambda scope: None,
        rate_per_minute: int = 0,
        max_body_bytes: int,
        max_upload_bytes: int,
        upload_paths: tuple[str, ...] = ("/v1/ingest",),
        guarded: tuple[str, ...] = ("/v1/", "/metrics"),
    ) -> None:
        self.app = app
        self.authenticate = authenticate
        self.required_role = required_role
        self.limiter = RateLimiter(rate_per_minute)
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes
        self.upload_paths = upload_paths
        self.guarded = guarded

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        offered = headers.get("x-request-id", "")
        request_id = offered if _REQUEST_ID.fullmatch(offered) else uuid.uuid4().hex
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        path = route_path(scope)
        limit = self.max_upload_bytes if path in self.upload_paths else self.max_body_bytes
        status, refused, started_response = 500, False, False

        async def send_with_id(message: Message) -> None:
            nonlocal status, started_response
            if refused:  # the 413 has gone out; what the app says after it is dropped
                return
            if message["type"] == "http.response.start":
                status, started_response = message["status"], True
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode("latin-1")),
                ]
            await send(message)

        async def reply(code: int, error: str, message: str, extra: Any = ()) -> None:
            await _send_error(send_with_id, code, error, message, request_id, list(extra))

        received = 0

        async def counted() -> Message:
            # a body without Content-Length is counted as it arrives; past the limit
            # the caller gets 413 at once and the app sees the client go away
            nonlocal received, refused, status
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                await reply(413, "request_too_large", _too_large_message(limit))
                refused, status = True, 413
                return {"type": "http.disconnect"}
            return message

        declared = headers.get("content-length", "")
        try:
            rejection = self._gate(path, scope, headers, state)
            if rejection is not None:
                await reply(*rejection)
            elif declared.isascii() and declared.isdigit() and int(declared) > limit:
                await reply(413, "request_too_large", _too_large_message(limit))
            else:
                await self.app(scope, counted, send_with_id)
        except Exception:  # a bug: answer in the API's shape, log the traceback
            log.exception("internal error in request %s", request_id)
            if not started_response:
                await reply(
                    500,
                    "internal_error",
                    "internal error; the server log has the details under request id " + request_id,
                )
        finally:
            route = scope.get("route")
            metrics.observe_request(
                scope["method"], getattr(route, "path", "unmatched"), status,
                time.perf_counter() - started,
            )  # fmt: skip

    def _gate(
        self, path: str, scope: Scope, headers: Mapping[str, str], state: dict[str, Any]
    ) -> tuple[int, str, str, list[tuple[bytes, bytes]]] | None:
        """Why the request is refused before the app sees it, or ``None``."""
        method = scope["method"]
        if path.startswith(self.guarded):
            token = header_key(headers)
            if token is None:
                return 401, "unauthenticated", NO_KEY, _CHALLENGE
            key = self.authenticate(token)
            if key is None:
                return 401, "invalid_key", BAD_KEY, _CHALLENGE
            role = self.required_role(scope)
            if role is not None and not key.allows(role):
                return 403, "forbidden", forbidden_message(key, role), []
            wait = self.limiter.take(key.id)
            if wait is not None:
                metrics.RATE_LIMITED.labels(key.id).inc()
                after = RateLimiter.retry_after(wait)
                message = (
                    f"key {key.id} has used its {self.limiter.per_minute} requests a minute; "
                    f"retry after {after} s (the limit is `assay serve --rate-limit`)"
                )
                return 429, "rate_limited", message, [(b"retry-after", after.encode())]
            state["key"] = key
        elif path.startswith("/dashboard") and method in _UNSAFE and _cross_origin(headers):
            return 403, "cross_origin", _CROSS_ORIGIN, []
        return None


NO_KEY = (
    "this endpoint needs an API key: send 'Authorization: Bearer <key>' "
    "(an admin creates one with `assay keys create NAME --role ROLE`)"
)
BAD_KEY = (
    "the API key is not valid (mistyped, unknown or revoked); ask an admin for one "
    "(`assay keys list` shows which exist)"
)


def forbidden_message(key: ApiKey, role: Role) -> str:
    """Why ``key`` may not call a route that needs ``role``, and who can fix it."""
    held = ", ".join(sorted(r.value for r in key.roles))
    return (
        f"key {key.id} ({held}) may not do this: it needs the {role.value} role "
        f"(or admin); ask an admin for a key with --role {role.value}"
    )


_CROSS_ORIGIN = "a dashboard form may only be sent from the dashboard's own pages"


def _cross_origin(headers: Mapping[str, str]) -> bool:
    """Whether a browser says the request comes from another origin (a form elsewhere)."""
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return True
    origin = headers.get("origin")
    return origin is not None and urlsplit(origin).netloc != headers.get("host")


def _too_large_message(limit: int) -> str:
    return (
        f"request body is over the limit of {limit} bytes; send less, or raise the limit "
        "with `assay serve --max-body-mb` (uploads: --max-upload-mb)"
    )


async def _send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    request_id: str,
    headers: list[tuple[bytes, bytes]],
) -> None:
    """An error in the shape of :mod:`assay.server.errors`, sent from here."""
    body = {
        "error": {
            "status": status,
            "code": code,
            "message": message,
            "field": None,
            "fix": None,
            "request_id": request_id,
        }
    }
    raw = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(raw)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": raw})
