"""The HTTP client of ``assay serve``: every ``/v1`` route, as :class:`Client` or
:class:`AsyncClient`.

::

    from assay.client import Client

    with Client("http://127.0.0.1:8000", api_key="assay_...") as assay:
        reply = assay.ask("Max charging temperature?", policy="financial")
        print(reply["answer"], reply["confidence"], reply["event_id"])

Each method returns the route's JSON object (``/metrics``: its text); ``ask``, ``score``
and ``evaluate`` are typed for a type checker (:mod:`assay.client.replies`). An error reply is
raised as assay's own exception with the service's message, field and fix: a bad input
as an :class:`~assay.errors.InvalidInputError`, a missing record as
:class:`~assay.errors.NotFoundError`, a clash as :class:`~assay.errors.ConflictError`, a
model or database that is down as :class:`~assay.errors.ModelUnavailableError` /
:class:`~assay.errors.StorageError`; a refused key as :class:`AccessDeniedError`; the
rest as :class:`ServiceError`. All of them are :class:`ServiceError`\\ s too, carrying the
status, the error code and the request id. Only replies that say "later" are retried
(429, and a 503 for a busy database), with exponential backoff or the reply's
``Retry-After`` (at most :data:`MAX_WAIT` seconds); uploads never are, because a file
may have landed before the reply. Anything else would repeat a request that already
failed, or already landed.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from assay.client.replies import AskReply, Assessment, ScoreReply
from assay.errors import (
    AssayError,
    ConflictError,
    InvalidInputError,
    ModelUnavailableError,
    NotFoundError,
    StorageError,
)

__all__ = ["AccessDeniedError", "AsyncClient", "Client", "ServiceError"]

MAX_WAIT = 30.0  #: the longest wait before a retry, whatever Retry-After says
Json = Any  #: a route's JSON reply, as the route documents it (docs/service.md)


class ServiceError(AssayError):
    """An error reply of the service: its status, code, field, fix and request id."""

    def __init__(self, status: int, body: Mapping[str, Any]) -> None:
        self.status = status
        self.code = str(body.get("code") or "error")
        self.field = str(body.get("field") or "")  # "" when the error names no field
        self.fix = str(body.get("fix") or "")
        self.request_id = body.get("request_id")
        Exception.__init__(self, str(body.get("message") or f"HTTP {status}"))


class AccessDeniedError(ServiceError):
    """The key is missing, unknown, revoked, or lacks the role the route needs."""


class _InvalidInputError(ServiceError, InvalidInputError):
    def __init__(self, status: int, body: Mapping[str, Any]) -> None:
        super().__init__(status, body)
        self.value, self.problem = None, "is invalid"  # what InvalidInputError.at() reads


class _NotFoundError(ServiceError, NotFoundError):
    pass


class _ConflictError(ServiceError, ConflictError):
    pass


class _ModelUnavailableError(ServiceError, ModelUnavailableError):
    pass


class _StorageUnavailableError(ServiceError, StorageError):
    pass


_BY_CODE: dict[str, type[ServiceError]] = {
    "invalid_input": _InvalidInputError,
    "invalid_request": _InvalidInputError,
    "not_found": _NotFoundError,
    "conflict": _ConflictError,
    "model_unavailable": _ModelUnavailableError,
    "storage_unavailable": _StorageUnavailableError,
    "unauthenticated": AccessDeniedError,
    "invalid_key": AccessDeniedError,
    "forbidden": AccessDeniedError,
}


@dataclass(frozen=True, slots=True)
class _Call:
    """One request to make: the route, its query, body or files, and what it returns."""

    method: str
    path: str
    params: Mapping[str, Any] = field(default_factory=dict)
    json: Any = None
    files: list[tuple[str, tuple[str, bytes]]] | None = None
    data: Mapping[str, Any] | None = None
    text: bool = False
    retry: bool = True


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without the unset options, dates (at any depth) as ISO text."""
    return {k: _json_ready(v) for k, v in values.items() if v is not None}


def _json_ready(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    return value


def _id(value: str | int) -> str:
    """A path segment: ids may hold ``/`` or ``.``, which must not become path steps."""
    return quote(str(value), safe="")


def _many(values: str | Path | Iterable[Any]) -> list[Any]:
    """One value or several: a lone string is one, not its characters."""
    return [values] if isinstance(values, str | Path) else list(values)


class _Routes:
    """Every route, once: each builds its call and hands it to ``_send``."""

    def _send(self, call: _Call) -> Any:
        raise NotImplementedError

    # -- reader -----------------------------------------------------------------
    def ask(self, question: str, **options: Any) -> Any:
        """``POST /v1/ask``: options ``policy``, ``severity``, ``top_k``, ``category``,
        ``as_of``, ``jurisdiction``."""
        return self._send(_Call("POST", "/v1/ask", json=_drop_none({"question": question,
                                                                     **options})))  # fmt: skip

    def score(self, query: str, candidates: Iterable[Mapping[str, Any]], **options: Any) -> Any:
        """``POST /v1/score``: candidates as dicts (id, text, similarity, source_id, ...)."""
        body = _drop_none({"query": query, "candidates": list(candidates), **options})
        return self._send(_Call("POST", "/v1/score", json=body))

    def evaluate(
        self, query: str, answer: str, contexts: Iterable[Mapping[str, str]], **options: Any
    ) -> Any:
        """``POST /v1/evaluate``: the J1 assessment of ``answer`` against ``contexts``."""
        body = _drop_none({"query": query, "answer": answer, "contexts": list(contexts),
                           **options})  # fmt: skip
        return self._send(_Call("POST", "/v1/evaluate", json=body))

    # -- curator ------------------------------------------------------------------
    def ingest(self, paths: str | Path | Iterable[str | Path], **options: Any) -> Any:
        """``POST /v1/ingest``: upload files; options ``source``, ``published``,
        ``verified``, ``max_tokens``, ``overlap``."""
        files = [("files", (Path(p).name, Path(p).read_bytes())) for p in _many(paths)]
        return self._send(
            _Call("POST", "/v1/ingest", files=files, data=_drop_none(options), retry=False)
        )

    def sources(self, **filters: Any) -> Any:
        """``GET /v1/sources``: filters ``kind``, ``due``, ``as_of``."""
        return self._send(_Call("GET", "/v1/sources", params=_drop_none(filters)))

    def source(self, source_id: str) -> Any:
        """``GET /v1/sources/{id}``: one source and its history."""
        return self._send(_Call("GET", f"/v1/sources/{_id(source_id)}"))

    def add_source(self, source_id: str, kind: str, **fields: Any) -> Any:
        """``POST /v1/sources``."""
        body = _drop_none({"id": source_id, "kind": kind, **fields})
        return self._send(_Call("POST", "/v1/sources", json=body))

    def update_source(self, source_id: str, **changes: Any) -> Any:
        """``POST /v1/sources/{id}``: a new version of the source (``supersedes=None``
        clears the source it supersedes; other ``None`` values are left out)."""
        body = _drop_none(changes)
        if "supersedes" in changes and changes["supersedes"] is None:
            body["supersedes"] = None
        return self._send(_Call("POST", f"/v1/sources/{_id(source_id)}", json=body))

    def review_source(self, source_id: str, **review: Any) -> Any:
        """``POST /v1/source-reviews/{id}``: ``on``, ``reliability``, ``note``."""
        body = _drop_none(review)
        return self._send(_Call("POST", f"/v1/source-reviews/{_id(source_id)}", json=body))

    # -- auditor ------------------------------------------------------------------
    def audit(self, **filters: Any) -> Any:
        """``GET /v1/audit``: ``kind``, ``policy``, ``since``, ``until``, ``actor``,
        ``limit``, ``before``."""
        return self._send(_Call("GET", "/v1/audit", params=_drop_none(filters)))

    def audit_export(self, **filters: Any) -> Any:
        """``GET /v1/audit?format=jsonl``: every matching event, oldest first, as a list."""
        text = self._send(
            _Call("GET", "/v1/audit", params=_drop_none(filters) | {"format": "jsonl"}, text=True)
        )
        return _lines(text) if isinstance(text, str) else _alines(text)

    def audit_event(self, event_id: str) -> Any:
        """``GET /v1/audit/{id}``."""
        return self._send(_Call("GET", f"/v1/audit/{_id(event_id)}"))

    def verify(self, **options: Any) -> Any:
        """``GET /v1/audit/verify``: ``expect_head``, ``checkpoint`` (a list), ``replay``."""
        return self._send(_Call("GET", "/v1/audit/verify", params=_drop_none(options)))

    def checkpoint(self) -> Any:
        """``GET /v1/audit/checkpoint``."""
        return self._send(_Call("GET", "/v1/audit/checkpoint"))

    def review_queue(self, status: str = "pending", limit: int = 50) -> Any:
        """``GET /v1/review``."""
        return self._send(_Call("GET", "/v1/review", params={"status": status, "limit": limit}))

    def review_item(self, item_id: int) -> Any:
        """``GET /v1/review/{id}``."""
        return self._send(_Call("GET", f"/v1/review/{_id(item_id)}"))

    def resolve(self, item_id: int, verdict: str, note: str | None = None) -> Any:
        """``POST /v1/review/{id}``: ``correct`` or ``incorrect``."""
        body = _drop_none({"verdict": verdict, "note": note})
        return self._send(_Call("POST", f"/v1/review/{_id(item_id)}", json=body))

    def monitor(self, **options: Any) -> Any:
        """``GET /v1/monitor``: ``policy``, ``window``, ``since``."""
        return self._send(_Call("GET", "/v1/monitor", params=_drop_none(options)))

    def alerts(self, **options: Any) -> Any:
        """``GET /v1/monitor/alerts``: ``include_closed``, ``policy``."""
        return self._send(_Call("GET", "/v1/monitor/alerts", params=_drop_none(options)))

    def metrics(self) -> Any:
        """``GET /metrics``: the Prometheus text."""
        return self._send(_Call("GET", "/metrics", text=True))

    # -- admin --------------------------------------------------------------------
    def check_drift(self) -> Any:
        """``POST /v1/monitor/check``."""
        return self._send(_Call("POST", "/v1/monitor/check"))

    def keys(self) -> Any:
        """``GET /v1/keys``."""
        return self._send(_Call("GET", "/v1/keys"))

    def create_key(self, name: str, roles: str | Iterable[str]) -> Any:
        """``POST /v1/keys``: the new key and its token (shown only now)."""
        return self._send(_Call("POST", "/v1/keys", json={"name": name, "roles": _many(roles)}))

    def revoke_key(self, key_id: str) -> Any:
        """``DELETE /v1/keys/{id}``."""
        return self._send(_Call("DELETE", f"/v1/keys/{_id(key_id)}"))

    def policies(self) -> Any:
        """``GET /v1/policies``."""
        return self._send(_Call("GET", "/v1/policies"))


class _Base(_Routes):
    def __init__(
        self, base_url: str, api_key: str, *, retries: int = 3, backoff: float = 0.5
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InvalidInputError(
                "base_url", base_url, "give the service's URL, e.g. http://127.0.0.1:8000"
            )
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise InvalidInputError("retries", retries, "give 0 or a positive whole number")
        self.base_url, self.retries, self.backoff = base_url.rstrip("/"), retries, backoff
        self.headers = {"Authorization": f"Bearer {api_key}"}

    def _wait(self, call: _Call, reply: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying ``reply`` (``None``: do not retry)."""
        if not call.retry or attempt >= self.retries or not _later(reply):
            return None
        after = reply.headers.get("Retry-After", "")
        wait = float(after) if after.replace(".", "", 1).isdigit() else self.backoff * 2**attempt
        return min(wait, MAX_WAIT)

    @staticmethod
    def _result(call: _Call, reply: httpx.Response) -> Any:
        if reply.is_success:
            return reply.text if call.text else reply.json()
        try:
            body = reply.json().get("error") or {}
        except ValueError:
            body = {"message": f"HTTP {reply.status_code}: {reply.text[:200]}"}
        raise _BY_CODE.get(str(body.get("code")), ServiceError)(reply.status_code, body)

    @staticmethod
    def _options(call: _Call) -> dict[str, Any]:
        return {"params": call.params, "json": call.json, "files": call.files, "data": call.data}


class Client(_Base):
    """A blocking client (httpx); close it, or use it as a context manager."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        http: httpx.Client | None = None,
    ) -> None:
        """``http`` is an ``httpx.Client`` of your own (proxies, TLS, a test transport);
        it stays yours to close."""
        super().__init__(base_url, api_key, retries=retries, backoff=backoff)
        self._owned = http is None
        self._http = http or httpx.Client(timeout=timeout)

    if TYPE_CHECKING:  # the same routes, their replies typed

        def ask(self, question: str, **options: Any) -> AskReply: ...

        def score(
            self, query: str, candidates: Iterable[Mapping[str, Any]], **options: Any
        ) -> ScoreReply: ...

        def evaluate(
            self, query: str, answer: str, contexts: Iterable[Mapping[str, str]], **options: Any
        ) -> Assessment: ...

    def _send(self, call: _Call) -> Any:
        for attempt in range(self.retries + 1):
            reply = self._http.request(
                call.method, self.base_url + call.path, headers=self.headers, **self._options(call)
            )
            wait = self._wait(call, reply, attempt)
            if wait is None:
                return self._result(call, reply)
            time.sleep(wait)
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Release the connections (of a client this one made)."""
        if self._owned:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncClient(_Base):
    """An asyncio client (httpx): every method is a coroutine; ``async with`` it."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        """``http`` is an ``httpx.AsyncClient`` of your own; it stays yours to close."""
        super().__init__(base_url, api_key, retries=retries, backoff=backoff)
        self._owned = http is None
        self._http = http or httpx.AsyncClient(timeout=timeout)

    if TYPE_CHECKING:  # the same routes, their replies typed

        async def ask(self, question: str, **options: Any) -> AskReply: ...

        async def score(
            self, query: str, candidates: Iterable[Mapping[str, Any]], **options: Any
        ) -> ScoreReply: ...

        async def evaluate(
            self, query: str, answer: str, contexts: Iterable[Mapping[str, str]], **options: Any
        ) -> Assessment: ...

    async def _send(self, call: _Call) -> Any:
        for attempt in range(self.retries + 1):
            reply = await self._http.request(
                call.method, self.base_url + call.path, headers=self.headers, **self._options(call)
            )
            wait = self._wait(call, reply, attempt)
            if wait is None:
                return self._result(call, reply)
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        """Release the connections (of a client this one made)."""
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


def _later(reply: httpx.Response) -> bool:
    """Whether the service said "later": 429, or 503 for a busy database (a model that
    cannot load does not come back by itself)."""
    if reply.status_code == 429:
        return True
    if reply.status_code != 503:
        return False
    try:
        code = (reply.json().get("error") or {}).get("code")
    except ValueError:
        return True
    return code != "model_unavailable"


def _lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def _alines(text: Any) -> list[Any]:
    return _lines(await text)
