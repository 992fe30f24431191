"""assay.client against the service: every route reachable, errors raised as assay's own
exceptions, and retries only where the service says "later" (429, 503)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from assay import InvalidInputError, ModelUnavailableError, NotFoundError
from assay.client import AccessDeniedError, AsyncClient, Client, ServiceError
from tests.http.conftest import Service

QUESTION = "What is the maximum ambient temperature for charging the HX-40?"


def _client(service: Service, role: str) -> Client:
    return Client("http://testserver", service.tokens[role], http=service.client)


def test_b6_the_client_reaches_the_routes_of_each_role(service: Service, tmp_path: Path) -> None:
    reader, curator = _client(service, "reader"), _client(service, "curator")
    auditor, admin = _client(service, "auditor"), _client(service, "admin")
    reply = reader.ask(QUESTION, policy="financial", as_of="2026-11-29")
    assert "45" in reply["answer"] and reply["event_id"]
    scored = reader.score(
        "charging range",
        [{"id": "c1", "text": "Charge between 0 and 45 °C.", "similarity": 0.9,
          "source_id": "halden-sds-2026", "published": "2026-10-15"}],
        as_of="2026-11-29",
    )  # fmt: skip
    assert [e["id"] for e in scored["admitted"]] == ["c1"]
    judged = reader.evaluate("q?", "Between 0 and 45 °C.", [{"id": "c", "text": "0 to 45 °C."}])
    assert "recommended_action" in judged
    note = tmp_path / "client-note.md"
    note.write_text("# Client note\n\nThe HX-40 pack weighs 2.1 kg.\n")
    ingested = curator.ingest(note, source="support-wiki")  # one path, or several
    assert ingested["files"][0]["status"] == "added"
    with pytest.raises(InvalidInputError, match=r"a/\.\./\.\./keys"):  # escaped: one id,
        curator.source("a/../../keys")  # never a path to the /v1/keys route
    assert curator.source("support-wiki")["id"] == "support-wiki"
    assert any(s["id"] == "halden-sds-2026" for s in curator.sources()["sources"])
    assert auditor.audit_event(reply["event_id"])["event_id"] == reply["event_id"]
    assert auditor.verify(replay=False)["ok"] is True
    exported = auditor.audit_export(kind="ask")
    assert reply["event_id"] in [e["event_id"] for e in exported]
    assert "assay_decisions_total" in auditor.metrics()
    assert "policies" in admin.policies()


def test_b6_errors_are_assays_own_exceptions(service: Service) -> None:
    reader, auditor = _client(service, "reader"), _client(service, "auditor")
    with pytest.raises(InvalidInputError) as bad:
        reader.ask(QUESTION, policy="no-such-policy")
    assert isinstance(bad.value, ServiceError) and bad.value.status == 400
    assert bad.value.field and bad.value.fix and bad.value.request_id
    with pytest.raises(NotFoundError):
        auditor.audit_event("ffffffffffff")
    with pytest.raises(AccessDeniedError) as denied:
        reader.keys()
    assert denied.value.status == 403 and "admin" in str(denied.value)
    with pytest.raises(AccessDeniedError):
        Client("http://testserver", "not-a-key", http=service.client).ask(QUESTION)
    with pytest.raises(InvalidInputError, match="base_url"):
        Client("127.0.0.1:8000", "k")
    with pytest.raises(InvalidInputError) as unread:  # FastAPI's own 422, mapped too
        reader.ask(QUESTION, top_k=500)
    assert unread.value.status == 422 and unread.value.code == "invalid_request"


def test_b6_only_429_and_503_are_retried() -> None:
    seen: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(1)
        if len(seen) < 3:
            return httpx.Response(503, headers={"Retry-After": "0"}, json={"error": {}})
        return httpx.Response(200, json={"answer": "ok"})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    assert Client("http://x", "k", http=http, backoff=0).ask("q") == {"answer": "ok"}
    assert len(seen) == 3
    failing = httpx.Client(transport=httpx.MockTransport(
        lambda r: httpx.Response(500, json={"error": {"code": "internal", "message": "boom"}})
    ))  # fmt: skip
    with pytest.raises(ServiceError, match="boom") as info:
        Client("http://x", "k", http=failing, backoff=0).ask("q")
    assert info.value.status == 500 and info.value.code == "internal"
    calls: list[int] = []

    def model_down(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, json={"error": {"code": "model_unavailable"}})

    down = httpx.Client(transport=httpx.MockTransport(model_down))
    with pytest.raises(ModelUnavailableError):
        Client("http://x", "k", http=down, backoff=0).ask("q")
    with pytest.raises(ServiceError):
        Client("http://x", "k", http=down, backoff=0).ingest([])  # uploads: never retried
    assert len(calls) == 2  # one each: a model that cannot load does not come back


def test_b6_the_async_client_is_the_same_api(service: Service) -> None:
    """The AsyncClient over the app's ASGI transport, as a server of asyncio code sees it."""
    transport = httpx.ASGITransport(app=service.client.app)  # type: ignore[arg-type]

    async def ask() -> dict[str, object]:
        async with AsyncClient(
            "http://testserver", service.tokens["reader"],
            http=httpx.AsyncClient(transport=transport),
        ) as client:  # fmt: skip
            with pytest.raises(AccessDeniedError):
                await client.keys()
            reply: dict[str, object] = await client.ask(QUESTION, as_of="2026-11-29")
            return reply

    reply = asyncio.run(ask())
    assert reply["event_id"] and isinstance(reply["answer"], str)
