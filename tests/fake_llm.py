"""An OpenAI-compatible chat server in this process that plays back scripted replies.

Tests of everything that talks to an LLM endpoint run against this real HTTP server, so
the client's requests, timeouts, retries and error handling are exercised for real. Each
test module makes its own fixture from :func:`serve`::

    @pytest.fixture
    def endpoint() -> Iterator[Endpoint]:
        with serve() as ep:
            yield ep
"""

from __future__ import annotations

import json
import math
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from assay.models.llm import ChatClient

__all__ = ["Endpoint", "Reply", "logprobs_reply", "serve", "text_reply"]


@dataclass
class Reply:
    """One scripted answer: a status, a JSON body (or raw bytes) and a delay in seconds."""

    body: Any
    status: int = 200
    delay: float = 0.0


@dataclass
class Endpoint:
    """What the fake server was asked, and what it will answer next."""

    base_url: str
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def client(self, **options: Any) -> ChatClient:
        return ChatClient(self.base_url, **{"backoff": 0.01, "timeout": 5.0, **options})

    def messages(self, i: int) -> list[dict[str, str]]:
        """The chat messages of the ``i``-th request the server received."""
        messages: list[dict[str, str]] = self.requests[i]["body"]["messages"]
        return messages


def logprobs_reply(top: dict[str, float], content: str = "yes") -> dict[str, Any]:
    """A chat completion whose first token had these candidate probabilities."""
    candidates = [{"token": t, "logprob": math.log(p), "bytes": None} for t, p in top.items()]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": {
                    "content": [
                        {
                            "token": candidates[0]["token"],
                            "logprob": candidates[0]["logprob"],
                            "top_logprobs": candidates,
                        }
                    ]
                },
                "finish_reason": "length",
            }
        ],
    }


def text_reply(content: str | None) -> dict[str, Any]:
    """A chat completion without log-probabilities."""
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        endpoint = self.server.endpoint
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        endpoint.requests.append(
            {"path": self.path, "headers": dict(self.headers), "body": json.loads(body)}
        )
        reply = endpoint.replies.popleft() if endpoint.replies else Reply(text_reply("yes"))
        if reply.delay:
            endpoint.release.wait(reply.delay)
        data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up waiting
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    endpoint: Endpoint

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and left is expected here


@contextmanager
def serve() -> Iterator[Endpoint]:
    """Run the server on a free port for the duration of the ``with`` block."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.endpoint = Endpoint(f"http://127.0.0.1:{server.server_address[1]}/v1")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server.endpoint
    finally:
        server.endpoint.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
