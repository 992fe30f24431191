"""The ASGI layer around every request: request id, body size limit, latency metric.

Written as plain ASGI (not ``BaseHTTPMiddleware``) because it runs on every request of
a service whose scoring path is measured in milliseconds.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from assay.server import metrics

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RequestContext:
    """Gives each request an id (``X-Request-ID``, kept if the caller sent a sane one),
    refuses bodies over the size limit with 413, and times the request."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        max_upload_bytes: int,
        upload_paths: tuple[str, ...] = ("/v1/ingest",),
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes
        self.upload_paths = upload_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        offered = headers.get("x-request-id", "")
        request_id = offered if _REQUEST_ID.fullmatch(offered) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        limit = self.max_upload_bytes if scope["path"] in self.upload_paths else self.max_body_bytes
        status, refused = 500, False

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if refused:  # the 413 has gone out; what the app says after it is dropped
                return
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", request_id.encode("latin-1")),
                ]
            await send(message)

        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _too_large(send_with_id, request_id, limit)
        else:
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
                    await _too_large(send_with_id, request_id, limit)
                    refused, status = True, 413
                    return {"type": "http.disconnect"}
                return message

            await self.app(scope, counted, send_with_id)
        route = scope.get("route")
        metrics.observe_request(
            scope["method"],
            getattr(route, "path", "unmatched"),
            status,
            time.perf_counter() - started,
        )


def _too_large_message(limit: int) -> str:
    return (
        f"request body is over the limit of {limit} bytes; send less, or raise the limit "
        "with `assay serve --max-body-mb` (uploads: --max-upload-mb)"
    )


async def _too_large(send: Send, request_id: str, limit: int) -> None:
    body = {
        "error": {
            "status": 413,
            "code": "request_too_large",
            "message": _too_large_message(limit),
            "field": None,
            "fix": None,
            "request_id": request_id,
        }
    }
    raw = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(raw)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": raw})
