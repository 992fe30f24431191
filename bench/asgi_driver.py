"""Drive an ASGI application in this thread, without sockets or a client library.

For measuring what one request costs the application itself: CPU time and profiles of
the service with nothing of the load generator in them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Mapping[str, Any], Receive, Send], Awaitable[None]]


class Driver:
    """Runs ``app``'s lifespan once, then sends it requests one after the other."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._started = asyncio.Event()
        self._lifespan: asyncio.Task[None] | None = None

    async def start(self) -> None:
        async def send(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                self._started.set()

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self._lifespan = asyncio.create_task(self.app(scope, self._inbox.get, send))
        await self._inbox.put({"type": "lifespan.startup"})
        await self._started.wait()

    async def stop(self) -> None:
        await self._inbox.put({"type": "lifespan.shutdown"})
        if self._lifespan is not None:
            await self._lifespan

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: Mapping[str, str] = {}
    ) -> int:
        """The response's status code (its body is read and dropped)."""
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000), "state": {},
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        }  # fmt: skip
        parts = [{"type": "http.request", "body": body, "more_body": False}]
        status = 0

        async def receive() -> Message:
            return parts.pop() if parts else {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])

        await self.app(scope, receive, send)
        return status
