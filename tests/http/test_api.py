"""B4: the HTTP API end to end over the demo knowledge base: the same contracts as
the commands, the key as the actor of every audit row, one error shape, limits."""

from __future__ import annotations

import json
from typing import Any

from assay import Assay
from assay.client import Client
from assay.judge.schema import Assessment
from tests.conftest import run_cli, write_jsonl
from tests.http.conftest import Service

AS_OF = "2026-11-29"
QUESTION = "What ambient temperature range is safe for charging the HX-40?"


def _candidates() -> list[dict[str, Any]]:
    return [
        {
            "id": f"c{i}",
            "text": f"The HX-40 charges between 0 and 45 degrees Celsius (passage {i}).",
            "similarity": round(0.9 - i * 0.04, 2),
            "source_id": "halden-sds-2026" if i % 2 else "support-wiki",
            "published": "2026-10-15",
        }
        for i in range(20)
    ]


def _actor(service: Service, event_id: str) -> str | None:
    event = service.client.get(f"/v1/audit/{event_id}", headers=service.headers("auditor"))
    assert event.status_code == 200
    actor: str | None = event.json()["actor"]
    return actor


def _key_id(service: Service, role: str) -> str:
    return service.tokens[role].split("_")[1]


def test_r9_ask_answers_with_confidence_and_the_key_as_actor(service: Service) -> None:
    response = service.client.post(
        "/v1/ask", json={"question": QUESTION, "as_of": AS_OF}, headers=service.headers("reader")
    )
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "answered"
    assert "0 °C" in body["answer"] and "45 °C" in body["answer"]
    assert body["confidence"]["label"] in ("high", "medium", "low")
    assert set(Assessment.model_validate(body["assessment"]).model_dump()) == set(
        body["assessment"]
    )
    assert body["sources"] and any(s["cited"] for s in body["sources"])
    assert _actor(service, body["event_id"]) == _key_id(service, "reader")


def test_b4_score_has_the_cli_contract(service: Service, tmp_path: Any) -> None:
    """/v1/score returns exactly what `assay score --json` prints for the same input."""
    body = {"query": "charging temperature range", "candidates": _candidates(), "as_of": AS_OF}
    http = service.client.post("/v1/score", json=body, headers=service.headers("reader"))
    assert http.status_code == 200
    path = write_jsonl(tmp_path / "c.jsonl", _candidates())
    cli = run_cli(
        "score", "--query", body["query"], "--candidates", str(path), "--as-of", AS_OF,
        "--json", db=service.db,
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    from_cli, from_http = json.loads(cli.stdout), http.json()
    assert from_cli.pop("event_id") != from_http.pop("event_id")
    assert from_http == from_cli
    assert len(from_http["admitted"]) + len(from_http["excluded"]) == 20


def test_b4_score_errors_name_the_candidate(service: Service) -> None:
    candidates = _candidates()
    candidates[3] = {**candidates[3], "similarity": 1.7}
    response = service.client.post(
        "/v1/score",
        json={"query": "q", "candidates": candidates},
        headers=service.headers("reader"),
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input"
    assert error["field"].startswith("candidates[3]")
    assert "1.7" in error["message"] and error["fix"]


def test_j1_evaluate_returns_exactly_the_assessment(service: Service) -> None:
    body = {
        "query": "What is the charging range?",
        "answer": "Charge between 0 °C and 45 °C. [Source: sds]",
        "contexts": [{"id": "sds", "text": "Charge only between 0 °C and 45 °C ambient."}],
        "policy": "safety_critical",
    }
    response = service.client.post("/v1/evaluate", json=body, headers=service.headers("reader"))
    assert response.status_code == 200
    assessment = Assessment.model_validate(response.json())
    assert assessment.confidence_score > 0.5
    empty = service.client.post(
        "/v1/evaluate", json=body | {"answer": ""}, headers=service.headers("reader")
    )
    assert empty.json()["confidence_score"] == 0.0
    assert empty.json()["recommended_action"] == "suppress"


def test_b4_one_error_shape_and_a_request_id(service: Service) -> None:
    headers = service.headers("reader") | {"X-Request-ID": "trace-42"}
    cases = [
        (service.client.post("/v1/ask", json={"questio": "x"}, headers=headers), 422),
        (service.client.post("/v1/ask", json={"question": "x", "policy": "p.toml"},
                             headers=headers), 400),
        (service.client.post("/v1/ask", json={"question": "x", "top_k": 0}, headers=headers), 422),
        (service.client.get("/v1/nowhere", headers=headers), 404),
        (service.client.put("/v1/ask", headers=headers), 405),
    ]  # fmt: skip
    for response, status in cases:
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert set(error) == {"status", "code", "message", "field", "fix", "request_id"}
        assert error["status"] == status and error["message"]
        assert error["request_id"] == "trace-42" == response.headers["x-request-id"]
    generated = service.client.get("/healthz", headers={"X-Request-ID": "bad id with spaces"})
    assert len(generated.headers["x-request-id"]) == 32


def test_b4_bodies_over_the_limit_are_refused(service: Service) -> None:
    big = json.dumps({"question": "x" * (3 << 20)}).encode()
    declared = service.client.post(
        "/v1/ask",
        content=big,
        headers=service.headers("reader") | {"content-type": "application/json"},
    )
    assert declared.status_code == 413
    assert declared.json()["error"]["code"] == "request_too_large"

    def chunks() -> Any:  # no Content-Length: the body is counted as it arrives
        for _ in range(3):
            yield b" " * (1 << 20)

    streamed = service.client.post(
        "/v1/ask",
        content=chunks(),
        headers=service.headers("reader") | {"content-type": "application/json"},
    )
    assert streamed.status_code == 413


def test_b4_ingest_upload_is_idempotent_and_audited_by_source(service: Service) -> None:
    headers = service.headers("curator")
    note = ("hx40-storage.md", b"# HX-40 storage\n\nStore the HX-40 at 40 to 60 percent charge.\n")
    first = service.client.post(
        "/v1/ingest", files=[("files", note)], data={"source": "support-wiki"}, headers=headers
    )
    assert first.status_code == 200, first.text
    assert first.json()["files"][0] | {"chunks": 1} == {
        "path": "hx40-storage.md", "status": "added", "documents": 1, "chunks": 1, "error": None,
        "duplicates": [],
    }  # fmt: skip
    again = service.client.post(
        "/v1/ingest", files=[("files", note)], data={"source": "support-wiki"}, headers=headers
    )
    assert again.json()["files"][0]["status"] == "unchanged"
    answer = service.client.post(
        "/v1/ask",
        json={"question": "At what charge level should the HX-40 be stored?", "as_of": AS_OF},
        headers=service.headers("reader"),
    ).json()
    assert any(s["title"] and "storage" in s["title"] for s in answer["sources"]), answer


def test_b4_ingest_refuses_bad_uploads_and_keeps_nothing(service: Service) -> None:
    headers = service.headers("curator")
    bad_name = service.client.post(
        "/v1/ingest", files=[("files", ("../../etc/passwd", b"x"))], headers=headers
    )
    assert bad_name.status_code == 400 and bad_name.json()["error"]["field"] == "file name"
    unknown = service.client.post(
        "/v1/ingest", files=[("files", ("a.md", b"# A\n\ntext\n"))], data={"source": "nope"},
        headers=headers,
    )  # fmt: skip
    assert unknown.status_code == 400
    broken = service.client.post(
        "/v1/ingest", files=[("files", ("broken.jsonl", b"{not json\n"))],
        data={"source": "community-forum"}, headers=headers,
    )  # fmt: skip
    report = broken.json()
    assert report["failed"] == 1 and report["files"][0]["status"] == "failed"
    assert "broken.jsonl" in report["files"][0]["error"]
    uploads = service.db.parent / "uploads" / "community-forum"
    assert not (uploads / "broken.jsonl").exists()
    assert str(service.db.parent) not in report["files"][0]["error"]


def test_b4_sources_changes_record_the_key(service: Service) -> None:
    headers = service.headers("curator")
    added = service.client.post(
        "/v1/sources",
        json={"id": "vendor-bulletin", "kind": "verified_kb", "owner": "Halden", "note": "new"},
        headers=headers,
    )
    assert added.status_code == 201 and added.json()["reliability"] == 0.9
    duplicate = service.client.post(
        "/v1/sources", json={"id": "vendor-bulletin", "kind": "official"}, headers=headers
    )
    assert duplicate.status_code == 409 and duplicate.json()["error"]["code"] == "conflict"
    updated = service.client.post(
        "/v1/sources/vendor-bulletin", json={"reliability": 0.8}, headers=headers
    )
    assert updated.json()["version"] == 2
    reviewed = service.client.post(
        "/v1/source-reviews/vendor-bulletin", json={"on": "2026-11-01"}, headers=headers
    )
    assert reviewed.json()["review_due"] is not None
    shown = service.client.get("/v1/sources/vendor-bulletin", headers=headers).json()
    assert [h["actor"] for h in shown["history"]] == [_key_id(service, "curator")] * 3
    missing = service.client.get("/v1/sources/nope", headers=headers)
    assert missing.status_code == 400 and "register it first" in missing.json()["error"]["fix"]
    listed = service.client.get("/v1/sources?due=true&as_of=2026-11-29", headers=headers).json()
    assert all(s["review_overdue"] for s in listed["sources"])


def test_curators_link_clear_and_are_refused_a_bad_supersession(service: Service) -> None:
    headers = service.headers("curator")
    for source_id in ("bulletin-2025", "bulletin-2026"):
        body = {"id": source_id, "kind": "official"}
        if source_id == "bulletin-2026":
            body["supersedes"] = "bulletin-2025"
        assert service.client.post("/v1/sources", json=body, headers=headers).status_code == 201
    old = service.client.get("/v1/sources/bulletin-2025", headers=headers).json()
    assert old["superseded_by"] == ["bulletin-2026"] and old["supersedes"] is None
    cycle = service.client.post(
        "/v1/sources/bulletin-2025", json={"supersedes": "bulletin-2026"}, headers=headers
    )
    assert cycle.status_code == 400 and "would make a cycle" in cycle.json()["error"]["message"]
    curator = Client("http://testserver", service.tokens["curator"], http=service.client)
    cleared = curator.update_source("bulletin-2026", supersedes=None, note="both in force")
    assert cleared["supersedes"] is None and cleared["version"] == 2
    shown = curator.source("bulletin-2026")
    assert [h["changed"].get("supersedes") for h in shown["history"]] == ["bulletin-2025", None]


def test_e8_audit_filters_pages_exports_and_verifies(service: Service) -> None:
    headers = service.headers("auditor")
    reader = _key_id(service, "reader")
    for _ in range(3):
        service.client.post(
            "/v1/score",
            json={"query": "charging", "candidates": _candidates()[:3], "as_of": AS_OF},
            headers=service.headers("reader"),
        )
    page = service.client.get(
        f"/v1/audit?actor={reader}&kind=score&limit=2", headers=headers
    ).json()
    assert [e["actor"] for e in page["events"]] == [reader, reader]
    assert page["next_before"] == page["events"][-1]["seq"]
    older = service.client.get(
        f"/v1/audit?actor={reader}&kind=score&limit=2&before={page['next_before']}",
        headers=headers,
    ).json()
    assert older["events"][0]["seq"] < page["events"][-1]["seq"]
    export = service.client.get("/v1/audit?format=jsonl", headers=headers)
    assert export.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in export.text.splitlines()]
    # the whole log, its rows in order: the reads of this test appended since are in it too
    assert [e["seq"] for e in lines] == list(range(1, len(lines) + 1))
    assert len(lines) > page["total_events"] and lines[-1]["kind"] == "read"
    bad = service.client.get("/v1/audit?format=jsonl&since=yesterday", headers=headers)
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "since"
    verify = service.client.get("/v1/audit/verify", headers=headers).json()
    assert verify["ok"] is True and verify["events"] == len(lines)


def held_for_review(service: Service) -> dict[str, Any]:
    """An answer the demo knowledge base holds for human review, asked over HTTP."""
    held: dict[str, Any] = service.client.post(
        "/v1/ask",
        json={"question": "How long does a full charge of the HX-40 take?", "as_of": AS_OF,
              "policy": "informational"},
        headers=service.headers("reader"),
    ).json()  # fmt: skip
    assert held["review_id"] is not None, held["status"]
    return held


def test_j6_review_queue_over_http(service: Service) -> None:
    """An answer held for review is listed, resolved once, and the verdict is audited."""
    held = held_for_review(service)
    headers = service.headers("auditor")
    pending = service.client.get("/v1/review", headers=headers).json()["items"]
    assert held["review_id"] in [item["id"] for item in pending]
    resolved = service.client.post(
        f"/v1/review/{held['review_id']}", json={"verdict": "correct"}, headers=headers
    )
    assert resolved.json()["status"] == "resolved"
    again = service.client.post(
        f"/v1/review/{held['review_id']}", json={"verdict": "incorrect"}, headers=headers
    )
    assert again.status_code == 409
    event = resolved.json()["resolution_event_id"]
    assert _actor(service, event) == _key_id(service, "auditor")
    assert resolved.json()["correction"] is None


def test_j6_a_reviewer_gives_the_right_answer_over_http(service: Service) -> None:
    held = held_for_review(service)
    body = {"verdict": "incorrect", "correction": "About 3 hours from empty."}
    resolved = service.client.post(
        f"/v1/review/{held['review_id']}", json=body, headers=service.headers("auditor")
    )
    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["correction"] == "About 3 hours from empty."


def test_r10_metrics_count_decisions_and_latency(service: Service) -> None:
    service.client.post(
        "/v1/score",
        json={"query": "charging", "candidates": _candidates(), "as_of": AS_OF},
        headers=service.headers("reader"),
    )
    text = service.client.get("/metrics", headers=service.headers("auditor")).text
    assert (
        'assay_http_request_duration_seconds_bucket{le="0.05",method="POST",route="/v1/score"'
        in text
    )
    assert (
        'assay_decisions_total{decision="admitted",endpoint="score",policy="informational"}' in text
    )
    assert 'assay_confidence_bucket{endpoint="score",le="1.0",policy="informational"}' in text


def test_b4_openapi_documents_every_route_and_the_key(service: Service) -> None:
    schema = service.client.get("/openapi.json").json()
    assert "/v1/ask" in schema["paths"] and "/v1/audit/verify" in schema["paths"]
    assert "HTTPBearer" in schema["components"]["securitySchemes"]
    assert service.client.get("/docs").status_code == 200


def test_b4_large_candidate_sets_are_scored_off_the_event_loop(service: Service) -> None:
    """Above INLINE_CANDIDATES the route hands the work to a thread: same contract, same
    audit row with the key as actor."""
    from assay.server.query_routes import INLINE_CANDIDATES

    many = [dict(c, id=f"{c['id']}-{round_}") for round_ in range(4) for c in _candidates()][
        : INLINE_CANDIDATES + 10
    ]
    response = service.client.post(
        "/v1/score",
        json={"query": "charging temperature range", "candidates": many, "as_of": AS_OF},
        headers=service.headers("reader"),
    )
    assert response.status_code == 200
    body = response.json()
    assert len(body["admitted"]) + len(body["excluded"]) == INLINE_CANDIDATES + 10
    assert _actor(service, body["event_id"]) == _key_id(service, "reader")


def test_b2_checkpoint_over_http_then_verify_with_it(service: Service) -> None:
    headers = service.headers("auditor")
    point = service.client.get("/v1/audit/checkpoint", headers=headers).json()
    assert point["seq"] >= 1 and len(point["head"]) == 64
    line = json.dumps(point)
    verify = service.client.get("/v1/audit/verify", params={"checkpoint": line}, headers=headers)
    assert verify.json()["ok"] is True and verify.json()["checkpoints"] == 1
    bad = service.client.get("/v1/audit/verify", params={"checkpoint": "{"}, headers=headers)
    assert bad.status_code == 400 and "checkpoint 1" in bad.json()["error"]["message"]


def test_j1_evaluate_weighs_contexts_by_their_source(service: Service) -> None:
    """/v1/evaluate takes who stated each context and when; a chat message the official
    policy contradicts is not published, and a bad source field names itself."""
    policy = {
        "id": "policy",
        "text": "Business class may be booked only for flights with a scheduled duration "
        "over 6 hours, and always requires written pre-approval from the budget holder.",
        "source_id": "travel-policy",
        "source_kind": "official",
        "published": "2026-01-05",
    }
    slack = {
        "id": "slack",
        "text": "you can still fly business on anything over 4 hours, just book it. Nobody checks.",
        "source_kind": "unverified",
        "published": "2026-11-20",
    }
    answer = "Yes, business class is allowed on any flight over 4 hours, and finance never checks."
    body = {"query": "Can I book business class for a 5-hour flight?", "answer": answer,
            "contexts": [policy, slack], "policy": "informational"}  # fmt: skip
    reader = service.headers("reader")
    judged = service.client.post("/v1/evaluate", json=body, headers=reader)
    assert judged.status_code == 200, judged.text
    assessment = Assessment.model_validate(judged.json())
    assert assessment.recommended_action in ("human_review", "suppress")
    assert assessment.unsupported_claims == [answer]
    bare = [{"id": c["id"], "text": c["text"]} for c in (policy, slack)]
    old_form = service.client.post("/v1/evaluate", json=body | {"contexts": bare}, headers=reader)
    assert old_form.status_code == 200
    assert old_form.json()["recommended_action"] in ("human_review", "suppress")

    with Assay(service.db) as engine:
        if "team_chat" not in engine.sources.kinds():
            engine.sources.add_kind("team_chat", 0.2)
    chat = body | {"contexts": [policy, slack | {"source_kind": "team_chat"}]}
    assert service.client.post("/v1/evaluate", json=chat, headers=reader).status_code == 200

    for context, status, field in [
        (slack | {"source_kind": "chat"}, 400, "contexts[1].source_kind"),
        (slack | {"published": "2026-02-30"}, 422, "contexts.1.published"),
        (slack | {"published": 20261120}, 422, "contexts.1.published"),
        (slack | {"author": "jo"}, 422, "contexts.1.author"),
    ]:
        refused = service.client.post(
            "/v1/evaluate", json=body | {"contexts": [policy, context]}, headers=reader
        )
        assert refused.status_code == status, refused.text
        error = refused.json()["error"]
        assert error["field"] == field and error["message"] and error["fix"]
    assert (
        "assay sources add-kind"
        in service.client.post(
            "/v1/evaluate",
            json=body | {"contexts": [slack | {"source_kind": "chat"}]},
            headers=reader,
        ).json()["error"]["fix"]
    )

    schema = service.client.get("/openapi.json").json()["components"]["schemas"]["Context"]
    assert {"source_id", "source_kind", "published"} <= set(schema["properties"])
    assert set(schema["required"]) == {"id", "text"}


def test_documents_list_and_show_name_each_documents_source_dates_and_chunks(
    service: Service,
) -> None:
    headers = service.headers("curator")
    listed = service.client.get("/v1/documents", headers=headers)
    assert listed.status_code == 200
    documents = listed.json()["documents"]
    assert documents and all(d["source_id"] and d["chunks"] >= 1 for d in documents)
    assert [d["uri"] for d in documents] == sorted(d["uri"] for d in documents)
    first = documents[0]
    one = service.client.get(f"/v1/documents/{first['id']}", headers=headers)
    assert one.status_code == 200 and one.json() == first
    of_source = service.client.get(
        "/v1/documents", params={"source": first["source_id"], "limit": 1}, headers=headers
    )
    assert [d["id"] for d in of_source.json()["documents"]] == [first["id"]]
    missing = service.client.get("/v1/documents/0123456789ab", headers=headers)
    assert missing.status_code == 404 and "assay documents list" in missing.text
    unknown = service.client.get("/v1/documents", params={"source": "nope"}, headers=headers)
    assert unknown.status_code == 400 and "nope" in unknown.text


def test_a_lone_surrogate_in_a_new_source_is_a_400_and_the_registry_stays_readable(
    service: Service,
) -> None:
    headers = service.headers("curator")
    body = '{"id": "bad-unicode", "kind": "customer", "metadata": {"k": "\\ud800"}}'
    bad = service.client.post(
        "/v1/sources", content=body, headers=headers | {"Content-Type": "application/json"}
    )
    assert bad.status_code == 400 and "not valid Unicode" in bad.text
    listed = service.client.get("/v1/sources", headers=headers)
    assert listed.status_code == 200
    assert "bad-unicode" not in {s["id"] for s in listed.json()["sources"]}


def test_an_audit_page_before_a_sequence_number_past_any_integer_is_every_event(
    service: Service,
) -> None:
    """before=2**63 overflowed the database's integer: a 500 (the dashboard's audit trail
    pages through the same AuditLog.list)."""
    headers = service.headers("auditor")
    huge = service.client.get("/v1/audit", params={"before": 2**63, "limit": 5}, headers=headers)
    newest = service.client.get("/v1/audit", params={"limit": 5}, headers=headers)
    assert huge.status_code == 200
    [read, *rest] = newest.json()["events"]  # the one row between: the first page's read
    assert read["kind"] == "read" and rest == huge.json()["events"][:4]
