"""B4: API keys and roles — 401 without a valid key, 403 at every role boundary."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import pytest

from assay import Assay
from assay.errors import InvalidInputError
from assay.keys import Role, parse_roles
from tests.http.conftest import ROLES, Service

OPEN = {"/healthz", "/readyz", "/docs", "/docs/oauth2-redirect", "/openapi.json", "/redoc"}

# the role each guarded route needs; a route missing here fails test_every_route_is_listed
NEEDS: dict[tuple[str, str], str] = {
    ("POST", "/v1/ask"): "reader",
    ("POST", "/v1/chat/completions"): "reader",
    ("GET", "/v1/models"): "reader",
    ("POST", "/v1/score"): "reader",
    ("POST", "/v1/evaluate"): "reader",
    ("POST", "/v1/ingest"): "curator",
    ("GET", "/v1/sources"): "curator",
    ("GET", "/v1/sources/{source_id}"): "curator",
    ("POST", "/v1/sources"): "curator",
    ("POST", "/v1/sources/{source_id}"): "curator",
    ("POST", "/v1/source-reviews/{source_id}"): "curator",
    ("GET", "/v1/documents"): "curator",
    ("GET", "/v1/documents/{document_id}"): "curator",
    ("POST", "/v1/documents/{document_id}/access"): "curator",
    ("GET", "/v1/audit"): "auditor",
    ("GET", "/v1/audit/verify"): "auditor",
    ("GET", "/v1/audit/checkpoint"): "auditor",
    ("GET", "/v1/audit/{event_id}"): "auditor",
    ("GET", "/v1/review"): "auditor",
    ("GET", "/v1/review/{item_id}"): "auditor",
    ("POST", "/v1/review/{item_id}"): "auditor",
    ("GET", "/metrics"): "auditor",
    ("GET", "/v1/monitor"): "auditor",
    ("GET", "/v1/monitor/alerts"): "auditor",
    ("POST", "/v1/monitor/check"): "admin",
    ("GET", "/v1/keys"): "admin",
    ("POST", "/v1/keys"): "admin",
    ("DELETE", "/v1/keys/{key_id}"): "admin",
    ("GET", "/v1/policies"): "admin",
}


def _api_routes(service: Service) -> list[tuple[str, str]]:
    """Every (method, path) the OpenAPI schema lists, but health and the dashboard
    (which redirects to its login page instead; see the browser tests)."""
    paths = service.client.app.openapi()["paths"]  # type: ignore[attr-defined]
    return sorted(
        (method.upper(), path)
        for path, operations in paths.items()
        if path not in OPEN and not path.startswith("/dashboard")
        for method in operations
    )


def _call(service: Service, method: str, path: str, headers: dict[str, str]) -> Any:
    url = re.sub(r"\{[^}]+\}", "nothing-here", path)
    return service.client.request(method, url, headers=headers)


def test_b4_every_route_is_listed(service: Service) -> None:
    """A new route must be given its role here, so the boundary tests cover it."""
    assert set(_api_routes(service)) == set(NEEDS)


@pytest.mark.parametrize("route", sorted(NEEDS))
def test_b4_no_key_is_401(service: Service, route: tuple[str, str]) -> None:
    response = _call(service, *route, headers={})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("route", sorted(NEEDS))
def test_b4_invalid_key_is_401(service: Service, route: tuple[str, str]) -> None:
    bad = service.tokens["admin"][:-4] + "AAAA"
    for token in (bad, "not-a-key", "assay_000000000000_" + "x" * 43):
        response = _call(service, *route, headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_key"


@pytest.mark.parametrize(("route", "role"), [(r, role) for r in sorted(NEEDS) for role in ROLES])
def test_b4_role_boundaries(service: Service, route: tuple[str, str], role: str) -> None:
    """Each role reaches exactly its routes; admin reaches all; the others get 403."""
    response = _call(service, *route, headers=service.headers(role))
    allowed = role in (NEEDS[route], "admin")
    if allowed:
        assert response.status_code not in (401, 403), response.text
    else:
        assert response.status_code == 403
        error = response.json()["error"]
        assert error["code"] == "forbidden"
        assert f"needs the {NEEDS[route]} role" in error["message"]


_REFUSED = [(r, role) for r in sorted(NEEDS) for role in ROLES if role not in (NEEDS[r], "admin")]


@pytest.mark.parametrize(("route", "role"), _REFUSED)
def test_b4_the_role_is_checked_before_the_body_is_read(
    service: Service, route: tuple[str, str], role: str
) -> None:
    """Issue 45: a key without the role and a broken body got 422, the body parsed
    before the role was looked at; now 403 whatever the body holds."""
    method, path = route
    url = re.sub(r"\{[^}]+\}", "nothing-here", path)
    headers = service.headers(role) | {"content-type": "application/json"}
    response = service.client.request(method, url, content=b"{not json", headers=headers)
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "forbidden"


def test_b4_an_upload_without_the_curator_role_is_not_read(service: Service) -> None:
    """A reader's endless multipart upload is refused before a byte of it is parsed."""

    def endless() -> Any:
        while True:
            yield b"x" * 65536

    headers = service.headers("reader") | {"content-type": "multipart/form-data; boundary=b"}
    upload = service.client.post("/v1/ingest", content=endless(), headers=headers)
    assert upload.status_code == 403
    assert "needs the curator role" in upload.json()["error"]["message"]


def test_b4_x_api_key_header_works_too(service: Service) -> None:
    response = service.client.get("/v1/sources", headers={"X-API-Key": service.tokens["curator"]})
    assert response.status_code == 200


def test_b4_health_is_open(service: Service) -> None:
    assert service.client.get("/healthz").json()["status"] == "ok"
    ready = service.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"models_loaded": True, "database": True}


def test_b4_revoked_key_stops_at_once(service: Service) -> None:
    created = service.client.post(
        "/v1/keys",
        json={"name": "short-lived", "roles": ["reader"]},
        headers=service.headers("admin"),
    )
    assert created.status_code == 201
    token = created.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    body = {"query": "q", "answer": "", "contexts": [{"id": "a", "text": "t"}]}
    assert service.client.post("/v1/evaluate", json=body, headers=auth).status_code == 200
    key_id = created.json()["id"]
    revoked = service.client.delete(f"/v1/keys/{key_id}", headers=service.headers("admin"))
    assert revoked.json()["active"] is False
    assert service.client.post("/v1/evaluate", json=body, headers=auth).status_code == 401
    listed = service.client.get("/v1/keys", headers=service.headers("admin")).json()["keys"]
    assert {k["id"]: k["active"] for k in listed}[key_id] is False
    assert all("token" not in k and "secret" not in str(k) for k in listed)


def test_b4_keys_are_stored_hashed(service: Service) -> None:
    rows = sqlite3.connect(service.db).execute("SELECT * FROM api_keys").fetchall()
    stored = " ".join(str(tuple(r)) for r in rows)
    for token in service.tokens.values():
        assert token.split("_", 2)[2] not in stored


def test_b4_key_creation_and_revocation_are_audited(tmp_path: Any) -> None:
    with Assay(tmp_path / "k.db") as engine:
        store = engine.keys
        key, _ = store.create("ops", ["auditor", "curator"])
        store.revoke(key.id)
        kinds = [(e.kind, e.payload["action"]) for e in engine.audit.list(kind="key")]
        assert kinds == [("key", "revoke"), ("key", "create")]
        assert key.allows(Role.AUDITOR) and not key.allows(Role.ADMIN)


@pytest.mark.parametrize("bad", [[], ["root"], ["reader", "superuser"]])
def test_b4_unknown_roles_are_refused(bad: list[str]) -> None:
    with pytest.raises(InvalidInputError, match="role"):
        parse_roles(bad)


def test_b4_a_key_with_a_severity_floor_asks_under_no_milder_policy(service: Service) -> None:
    """Issue 45: any reader picked the loosest policy. A key created with
    ``min_severity`` is refused a milder policy or severity on every route that takes
    one, and a request naming none is asked under its floor."""
    created = service.client.post(
        "/v1/keys",
        json={"name": "compliance bot", "roles": ["reader"], "min_severity": "financial"},
        headers=service.headers("admin"),
    )
    assert created.status_code == 201 and created.json()["min_severity"] == "financial"
    auth = {"Authorization": f"Bearer {created.json()['token']}"}
    question = "What ambient temperature range is safe for charging the HX-40?"
    context = [{"id": "a", "text": "Charge between 0 and 45 °C."}]
    refused = [
        ("/v1/ask", {"question": question, "policy": "informational"}),
        ("/v1/ask", {"question": question, "severity": "informational"}),
        ("/v1/evaluate", {"query": "q", "answer": "a", "contexts": context,
                          "policy": "informational"}),
        ("/v1/chat/completions", {"model": "assay/informational",
                                  "messages": [{"role": "user", "content": question}]}),
    ]  # fmt: skip
    for path, body in refused:
        response = service.client.post(path, json=body, headers=auth)
        assert response.status_code == 403, (path, response.text)
        assert "severity financial or stricter" in response.json()["error"]["message"]
    plain = service.client.post("/v1/ask", json={"question": question}, headers=auth).json()
    assert plain["policy"]["name"] == "financial"  # named none: asked under the floor
    stricter = {"question": question, "policy": "legal"}
    assert service.client.post("/v1/ask", json=stricter, headers=auth).status_code == 200
    bad = {"name": "x", "roles": ["reader"], "min_severity": "lenient"}
    wrong = service.client.post("/v1/keys", json=bad, headers=service.headers("admin"))
    assert wrong.status_code == 400 and "informational, financial" in wrong.text
