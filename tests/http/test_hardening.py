"""B4: what a hostile or careless caller cannot do: write outside the uploads folder,
drive the API with the dashboard's cookie, post a dashboard form from another origin,
make the server read a body without a key, see server paths, or crash a route."""

from __future__ import annotations

import csv
import io
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from assay import Assay
from assay.cli.serve import BLAS_THREADS, blas_threads_per_worker
from assay.errors import InvalidInputError
from assay.server import create_app
from assay.server.access import SESSION_COOKIE
from assay.server.ingest_worker import IngestWorker
from assay.settings import ServeSettings, load_settings
from tests.conftest import run_cli
from tests.e2e.conftest import demo_db  # noqa: F401  (a module-scoped fixture)
from tests.http.conftest import Service


def test_b4_upload_stays_in_its_folder_whatever_the_source_id(service: Service) -> None:
    curator = service.headers("curator")
    source = "x/../../../escape"
    added = service.client.post(
        "/v1/sources", json={"id": source, "kind": "official"}, headers=curator
    )
    assert added.status_code == 201
    upload = ("notes.md", b"# Notes\n\nThe HX-40 ships with a 65 W charger.\n")
    response = service.client.post(
        "/v1/ingest", files=[("files", upload)], data={"source": source}, headers=curator
    )
    assert response.json()["files"][0]["status"] == "added"
    uploads = service.db.parent / "uploads"
    [stored] = [p for p in uploads.rglob("notes.md")]
    assert stored.resolve().is_relative_to(uploads.resolve())
    assert not (service.db.parent.parent / "escape").exists()
    with sqlite3.connect(service.db) as conn:
        uris = [r[0] for r in conn.execute("SELECT uri FROM kb_documents")]
    assert f"upload://{source}/notes.md" in uris
    assert not [u for u in uris if u.startswith("upload://") and str(uploads) in u]
    shown = service.client.get(f"/v1/sources/{quote(source, safe='')}", headers=curator)
    assert shown.status_code == 200 and shown.json()["id"] == source  # '/' in an id
    service.client.post("/v1/sources", json={"id": "gov/eu", "kind": "official"}, headers=curator)
    reviewed = service.client.post(
        "/v1/source-reviews/gov/eu", json={"on": "2026-11-01"}, headers=curator
    )
    assert reviewed.status_code == 200 and reviewed.json()["id"] == "gov/eu"


def dashboard_login(client: TestClient, token: str) -> str:
    """Log in through the dashboard's form; the session cookie it set (kept in ``client``)."""
    response = client.post("/dashboard/login", data={"key": token}, follow_redirects=False)
    assert response.status_code == 303, response.text
    return client.cookies[SESSION_COOKIE]


def test_b4_the_session_cookie_does_not_open_the_api(service: Service) -> None:
    dashboard_login(service.client, service.tokens["admin"])
    try:
        response = service.client.get("/v1/keys")
        assert response.status_code == 401
        assert service.client.get("/dashboard/sources").status_code == 200
    finally:
        service.client.cookies.clear()


def test_b4_a_session_is_not_the_key_and_ends_at_logout(service: Service) -> None:
    """The cookie was the raw API key, with no expiry, valid after logout."""
    client = service.client
    response = client.post(
        "/dashboard/login", data={"key": service.tokens["auditor"]}, follow_redirects=False
    )
    cookie = response.headers["set-cookie"]
    session = client.cookies[SESSION_COOKIE]
    try:
        assert service.tokens["auditor"] not in cookie and "Max-Age=28800" in cookie
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Secure" not in cookie
        assert client.get("/dashboard/audit").status_code == 200
        client.post("/dashboard/logout", follow_redirects=False)
        client.cookies.set(SESSION_COOKIE, session)  # a copy kept from before the logout
        assert client.get("/dashboard/audit", follow_redirects=False).status_code == 303
        client.cookies.set(SESSION_COOKIE, service.tokens["auditor"])  # the key is no session
        assert client.get("/dashboard/audit", follow_redirects=False).status_code == 303
    finally:
        client.cookies.clear()


def test_b4_revoking_the_key_ends_its_sessions_and_sessions_expire(demo_db: Path) -> None:  # noqa: F811
    with Assay(demo_db) as engine:
        key, token = engine.keys.create("short-lived", ["auditor"])
    app = create_app(load_settings(db=demo_db), warm=False, options=ServeSettings(session_hours=1))
    with TestClient(app, base_url="https://testserver") as client:
        response = client.post("/dashboard/login", data={"key": token}, follow_redirects=False)
        assert "Secure" in response.headers["set-cookie"]  # over https
        assert client.get("/dashboard/audit", follow_redirects=False).status_code == 200
        with sqlite3.connect(demo_db) as conn:  # the hour has passed (no sleeping: no race)
            conn.execute("UPDATE dashboard_sessions SET expires_at = '2000-01-01T00:00:00+00:00'")
        assert client.get("/dashboard/audit", follow_redirects=False).status_code == 303
    app = create_app(
        load_settings(db=demo_db), warm=False, options=ServeSettings(secure_cookies=True)
    )
    with TestClient(app) as client:
        response = client.post("/dashboard/login", data={"key": token}, follow_redirects=False)
        cookie = response.headers["set-cookie"]
        assert "Secure" in cookie  # on http, as asked (so the client keeps it to itself)
        client.cookies.set(SESSION_COOKIE, cookie.split(";")[0].partition("=")[2])
        assert client.get("/dashboard/audit", follow_redirects=False).status_code == 200
        with Assay(demo_db) as engine:
            engine.keys.revoke(key.id)
        assert client.get("/dashboard/audit", follow_redirects=False).status_code == 303


def test_b4_dashboard_forms_refuse_other_origins(service: Service) -> None:
    dashboard_login(service.client, service.tokens["auditor"])
    try:
        for headers in ({"Origin": "http://127.0.0.1:3000"}, {"Sec-Fetch-Site": "same-site"}):
            response = service.client.post(
                "/dashboard/review/1", data={"verdict": "correct"}, headers=headers
            )
            assert response.status_code == 403
            assert response.json()["error"]["code"] == "cross_origin"
        same = service.client.post(
            "/dashboard/logout", headers={"Origin": "http://testserver"}, follow_redirects=False
        )
        assert same.status_code == 303
    finally:
        service.client.cookies.clear()


def test_b4_no_key_no_body_read(service: Service) -> None:
    """Without a key the answer is 401 before the body is parsed: a malformed body
    still gets 401, not 422, and an oversized upload is not read."""
    bad_json = service.client.post(
        "/v1/ask", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad_json.status_code == 401

    def endless() -> Any:
        while True:
            yield b"x" * 65536

    upload = service.client.post(
        "/v1/ingest", content=endless(), headers={"content-type": "multipart/form-data; boundary=b"}
    )
    assert upload.status_code == 401


def test_b4_a_crash_is_a_500_with_the_request_id(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(Assay, "ask", boom)
    response = service.client.post(
        "/v1/ask",
        json={"question": "anything"},
        headers=service.headers("reader") | {"X-Request-ID": "crash-1"},
    )
    assert response.status_code == 500
    assert response.headers["x-request-id"] == "crash-1"
    error = response.json()["error"]
    assert error["code"] == "internal_error" and error["request_id"] == "crash-1"
    assert "secret" not in response.text
    metrics = service.client.get("/metrics", headers=service.headers("auditor")).text
    assert 'route="/v1/ask",status="500"' in metrics


def test_b4_huge_ids_are_client_errors(service: Service) -> None:
    huge = 2**70
    for method, path in (("GET", f"/v1/review/{huge}"), ("POST", f"/v1/review/{huge}")):
        response = service.client.request(
            method, path, json={"verdict": "correct"}, headers=service.headers("auditor")
        )
        assert response.status_code == 422


def test_b4_no_server_path_in_answers(tmp_path: Path, service: Service) -> None:
    from fastapi.testclient import TestClient

    from assay.server import create_app
    from assay.settings import load_settings

    db = tmp_path / "empty.db"
    with Assay(db) as engine:
        _, token = engine.keys.create("r", ["reader"])
    app = create_app(load_settings(db=db), warm=False, options=ServeSettings(monitor_every=0))
    with TestClient(app) as client:
        response = client.post(
            "/v1/ask", json={"question": "q"}, headers={"Authorization": f"Bearer {token}"}
        )
    assert response.status_code == 400
    assert str(tmp_path) not in response.text and "empty.db" in response.text


def test_b1_b4_api_docs_work_offline(service: Service) -> None:
    page = service.client.get("/docs").text
    assert "/docs/static/swagger-ui-bundle.js" in page and "cdn" not in page.lower()
    assert service.client.get("/docs/static/swagger-ui-bundle.js").status_code == 200
    assert service.client.get("/docs/static/swagger-ui.css").status_code == 200


def test_b4_a_failed_upload_keeps_the_stored_version(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing half written: an ingest that crashes leaves the file the store's documents
    came from, and no partial or temporary file."""
    from assay.errors import ModelUnavailableError

    curator = service.headers("curator")
    first = ("kept.md", b"# Kept\n\nVersion one of the note.\n")
    assert service.client.post(
        "/v1/ingest", files=[("files", first)], data={"source": "support-wiki"}, headers=curator
    ).json()["ok"]

    async def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise ModelUnavailableError("the embedder's files are missing")

    monkeypatch.setattr(IngestWorker, "ingest", unavailable)
    second = ("kept.md", b"# Kept\n\nVersion two, never stored.\n")
    failed = service.client.post(
        "/v1/ingest", files=[("files", second)], data={"source": "support-wiki"}, headers=curator
    )
    assert failed.status_code == 503
    [folder] = [p.parent for p in (service.db.parent / "uploads").rglob("kept.md")]
    assert (folder / "kept.md").read_bytes() == first[1]
    assert [p.name for p in folder.iterdir()] == ["kept.md"]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("broken.pdf", b"%PDF-1.4 not a pdf"),
        ("empty.md", b""),
        ("latin1.txt", b"caf\xe9 au lait"),
        ("blank.html", b"<html></html>"),
    ],
)
def test_b4_a_failed_upload_names_the_upload_not_the_server_path(
    service: Service, name: str, data: bytes
) -> None:
    """Issue 45: the error named the staging file, a server path cut short
    (``file='/srv/.../uploads/x/.0eed...ba...``), which a replace could not find."""
    response = service.client.post(
        "/v1/ingest",
        files=[("files", (name, data))],
        data={"source": "support-wiki"},
        headers=service.headers("curator"),
    )
    [outcome] = response.json()["files"]
    assert outcome["status"] == "failed"
    assert f"upload://support-wiki/{name}" in outcome["error"]
    uploads = service.db.parent / "uploads"
    assert str(uploads) not in outcome["error"] and str(service.db.parent) not in outcome["error"]
    assert "/" + "tmp" not in outcome["error"].replace("upload://", "")


def test_b4_staging_files_left_by_a_killed_server_are_swept(service: Service) -> None:
    """``kill -9`` skips the cleanup of the file being ingested; the next upload to that
    folder removes staging files older than any ingest may take, and only those."""
    curator = service.headers("curator")

    def upload(name: str) -> None:
        response = service.client.post(
            "/v1/ingest", files=[("files", (name, b"# Note\n\nA note.\n"))],
            data={"source": "support-wiki"}, headers=curator,
        )  # fmt: skip
        assert response.json()["ok"], response.text

    upload("one.md")
    folder = next((service.db.parent / "uploads").rglob("one.md")).parent
    stale, fresh = folder / ".staged-0123.left.md", folder / ".staged-4567.running.md"
    stale.write_text("left by a killed server")
    fresh.write_text("an upload another worker is ingesting")
    long_ago = time.time() - 7 * 24 * 3600
    os.utime(stale, (long_ago, long_ago))
    upload("two.md")
    assert not stale.exists() and fresh.exists()


def test_b4_a_crash_while_checking_the_key_is_a_shaped_500(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from assay.keys import KeyStore

    def locked(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(KeyStore, "authenticate", locked)
    response = service.client.get("/v1/sources", headers=service.headers("curator"))
    assert response.status_code == 500 and response.json()["error"]["code"] == "internal_error"
    assert response.headers["x-request-id"] == response.json()["error"]["request_id"]


def test_b4_source_ids_ending_in_review_are_their_own(service: Service) -> None:
    curator = service.headers("curator")
    for source in ("team", "team/review"):
        service.client.post("/v1/sources", json={"id": source, "kind": "customer"}, headers=curator)
    changed = service.client.post(
        "/v1/sources/team/review", json={"owner": "QA"}, headers=curator
    ).json()
    assert changed["id"] == "team/review" and changed["owner"] == "QA"
    assert service.client.get("/v1/sources/team", headers=curator).json()["owner"] is None


def test_b4_checks_hold_under_a_root_path(demo_db: Path) -> None:  # noqa: F811
    """Behind a path prefix (uvicorn --root-path) the key is still checked before the
    body and the dashboard still refuses forms from other origins."""
    from fastapi.testclient import TestClient

    from assay.server import create_app
    from assay.settings import load_settings

    app = create_app(load_settings(db=demo_db), warm=False, options=ServeSettings(monitor_every=0))
    with TestClient(app, root_path="/api") as client:
        keyless = client.post(
            "/api/v1/score", content=b"{broken", headers={"content-type": "application/json"}
        )
        assert keyless.status_code == 401
        forged = client.post(
            "/api/dashboard/login", data={"key": "x"}, headers={"Origin": "http://evil.example"}
        )
        assert forged.status_code == 403


def test_b4_inputs_that_were_500s_are_client_errors(service: Service) -> None:
    """A 400-digit similarity, a lone surrogate, JSON nested 100,000 deep: all 4xx."""
    headers = service.headers("reader") | {"Content-Type": "application/json"}
    candidate = '{"id": "a", "text": "t", "source_id": "halden-sds-2026", "similarity": %s}'
    bodies = {
        "/v1/score": [
            '{"query": "q", "candidates": [%s]}' % (candidate % ("1" + "0" * 400)),
            '{"query": "q", "jurisdiction": "\\ud800", "candidates": [%s]}' % (candidate % "0.5"),
            '{"query": "q", "candidates": %s}' % ("[" * 100_000 + "]" * 100_000),
        ],
        "/v1/ask": [
            '{"question": "How long does charging take?", "jurisdiction": "\\ud800"}',
            '{"question": %s}' % ("[" * 100_000 + "]" * 100_000),
        ],
    }
    for path, items in bodies.items():
        for body in items:
            response = service.client.post(path, content=body, headers=headers)
            assert 400 <= response.status_code < 500, (path, body[:80], response.text[:300])
            assert response.json()["error"]["message"]
    # found by the fuzz run: a limit past any stored integer reached the SQL as a 500
    curator = service.headers("curator")
    huge = service.client.get("/v1/documents?limit=99999999999999999999", headers=curator)
    assert huge.status_code == 422 and "limit" in huge.text


def test_b4_uploads_survive_the_ingestion_process_being_killed(service: Service) -> None:
    """Uploads run in a process of their own: once it has died (killed, out of memory),
    the file sent to it fails with a message, nothing of it is kept, and the next upload
    gets a fresh process."""
    curator = service.headers("curator")

    def upload(name: str, text: str) -> dict[str, Any]:
        response = service.client.post(
            "/v1/ingest",
            files=[("files", (name, text.encode()))],
            data={"source": "support-wiki"},
            headers=curator,
        )
        assert response.status_code == 200, response.text
        return response.json()["files"][0]

    assert upload("first.md", "# First\n\nThe first note.\n")["status"] == "added"
    worker: IngestWorker = service.client.app.state.ingest_worker  # type: ignore[attr-defined]
    executor = worker._executor
    assert executor is not None
    for process in list(executor._processes.values()):  # the pool's own worker
        os.kill(process.pid, signal.SIGKILL)
    time.sleep(0.5)
    lost = upload("second.md", "# Second\n\nThe second note.\n")
    assert lost["status"] == "failed" and "ingestion process stopped" in lost["error"]
    folder = next((service.db.parent / "uploads").rglob("first.md")).parent
    assert not (folder / "second.md").exists()
    assert upload("third.md", "# Third\n\nThe third note.\n")["status"] == "added"


def test_b4_workers_share_the_cores_among_their_blas_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """numpy's OpenBLAS starts a thread per core in every worker; workers sharing the
    cores then wait on each other's threads. ``assay serve --workers N`` gives each
    worker its share of the cores (at least one thread), unless the user set one."""
    assert [blas_threads_per_worker(w, cores=2) for w in (1, 2, 4)] == [2, 1, 1]
    assert blas_threads_per_worker(2, cores=8) == 4
    started: list[dict[str, str]] = []
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: started.append(dict(os.environ)))
    for name in (*BLAS_THREADS, "ASSAY_DB", "PROMETHEUS_MULTIPROC_DIR"):
        monkeypatch.delenv(name, raising=False)  # restored after the test, as serve sets them
    for name in ServeSettings().to_environment():
        monkeypatch.delenv(name, raising=False)
    run_cli("serve", "--workers", "1", db=tmp_path / "a.db")
    assert not set(BLAS_THREADS) & set(started[-1])  # one worker: the library's own choice
    run_cli("serve", "--workers", "2", db=tmp_path / "a.db")
    assert started[-1]["OPENBLAS_NUM_THREADS"] == str(blas_threads_per_worker(2))
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    run_cli("serve", "--workers", "2", db=tmp_path / "a.db")
    assert started[-1]["OPENBLAS_NUM_THREADS"] == "3"


def test_b4_serve_options_travel_to_workers_and_a_bad_one_is_named() -> None:
    """``assay serve`` hands its options to each worker through ``ASSAY_SERVE_*``; a
    value set by hand that the command would refuse fails with the variable's name."""
    options = ServeSettings(max_body_bytes=3_000_000, session_hours=2, secure_cookies=True)
    assert ServeSettings.from_environment(options.to_environment()) == options
    assert ServeSettings.from_environment({}) == ServeSettings()
    assert (
        ServeSettings.from_environment({"ASSAY_SERVE_SECURE_COOKIES": ""}).secure_cookies is False
    )
    with pytest.raises(InvalidInputError, match="ASSAY_SERVE_SESSION_HOURS='-1'"):
        ServeSettings.from_environment({"ASSAY_SERVE_SESSION_HOURS": "-1"})
    with pytest.raises(InvalidInputError, match="ASSAY_SERVE_MAX_BODY_BYTES='2MB'"):
        ServeSettings.from_environment({"ASSAY_SERVE_MAX_BODY_BYTES": "2MB"})


def test_b4_a_key_holds_a_bounded_number_of_sessions(tmp_path: Path) -> None:
    """Issue 45: sessions per key were unbounded (a login loop filled the table). A new
    login closes the key's oldest beyond MAX_SESSIONS, never itself."""
    from datetime import timedelta

    from assay.keys import MAX_SESSIONS

    with Assay(tmp_path / "s.db") as engine:
        key, _ = engine.keys.create("ops", ["auditor"])
        tokens = [engine.keys.open_session(key, timedelta(hours=1)) for _ in range(40)]
        open_ = [t for t in tokens if engine.keys.session_key(t) is not None]
        assert len(open_) == MAX_SESSIONS and tokens[-1] in open_


def test_b4_a_key_past_its_rate_limit_gets_429_with_retry_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: there was no rate limiting; one key could take the service."""
    # a test of `assay serve --workers` before this one may leave it set in the process
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    db = tmp_path / "limited.db"
    with Assay(db) as engine:
        _, reader = engine.keys.create("busy", ["reader"])
        _, other = engine.keys.create("quiet", ["reader"])
        _, auditor = engine.keys.create("metrics", ["auditor"])
    options = ServeSettings(monitor_every=0, rate_limit=3)
    app = create_app(load_settings(db=db), warm=False, options=options)
    with TestClient(app) as client:
        busy = {"Authorization": f"Bearer {reader}"}
        assert [client.get("/v1/models", headers=busy).status_code for _ in range(3)] == [200] * 3
        refused = client.get("/v1/models", headers=busy)
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        quiet = client.get("/v1/models", headers={"Authorization": f"Bearer {other}"})
        assert quiet.status_code == 200
        text = client.get("/metrics", headers={"Authorization": f"Bearer {auditor}"}).text
        assert "assay_rate_limited_total{" in text


def test_the_dashboard_exports_the_filtered_audit_trail_as_csv(service: Service) -> None:
    """Issue 43: the dashboard had no CSV export. A cell a spreadsheet would run as a
    formula (a question starting with "=") is written as text."""
    with Assay(service.db) as engine:
        engine.score('=HYPERLINK("http://evil.example","charging")', [], policy="legal")
        wanted = [e.event_id for e in engine.audit.iter_all(kind="score")]
    client = service.client
    try:
        dashboard_login(client, service.tokens["auditor"])
        page = client.get("/dashboard/audit?kind=score").text
        assert 'href="/dashboard/audit.csv?kind=score"' in page
        response = client.get("/dashboard/audit.csv?kind=score")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(response.text)))
        assert [r["event_id"] for r in rows] == wanted and {r["kind"] for r in rows} == {"score"}
        assert rows[-1]["query"].startswith("'=HYPERLINK(")
        assert rows[-1]["outcome"] == "0 admitted, 0 excluded"
        client.cookies.clear()
        dashboard_login(client, service.tokens["reader"])
        refused = client.get("/dashboard/audit.csv", follow_redirects=False)
        assert refused.status_code == 403
    finally:
        client.cookies.clear()


def test_the_calibration_page_shows_how_reviewed_confidence_held(tmp_path: Path) -> None:
    """Issue 43: the dashboard had no calibration plots of live verdicts."""
    from tests.unit.test_review import enqueue

    db = tmp_path / "reviewed.db"
    with Assay(db) as engine:
        engine.sources.add("sds", "official")
        _, auditor = engine.keys.create("auditor", ["auditor"])
        for score, verdict in ((0.42, "correct"), (0.47, "incorrect"), (0.81, "correct")):
            engine.review.resolve(enqueue(engine, score=score).id, verdict)
    app = create_app(load_settings(db=db), warm=False, options=ServeSettings(monitor_every=0))
    with TestClient(app) as client:
        dashboard_login(client, auditor)
        page = client.get("/dashboard/calibration").text
    assert 'data-chart="review-reliability"' in page and page.count('class="point"') == 2
    assert '<strong data-stat="reviewed">3</strong>' in page
