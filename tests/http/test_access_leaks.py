"""Who may see which evidence (issue 44): labels x keys x every route that returns text,
on both backends, and probes that try to learn a hidden document from around the side.

The knowledge base holds a public visitor guide and canteen page, an HR salary page
(``hr``), a legal settlement (``legal``) and a disciplinary procedure shared by both.
Each restricted document carries marker words of its own. A key may read a document
when it has no labels or the key holds one of them; auditors and admins read all. For
every key and route the test asks about every document and checks that no marker, id,
uri or title of a document the key may not read comes back, in any field, while the
documents it may read do come back (the filter must not withhold what is allowed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay import Assay
from assay.access import Access
from assay.ingest.pipeline import IngestOptions
from assay.server import create_app
from assay.settings import load_settings
from tests.conftest import AS_OF, run_cli
from tests.pgcluster import Cluster, fresh_database

DOCUMENTS: dict[str, tuple[tuple[str, ...], str, str]] = {
    # name: (labels, title, body); the body's capitalised code word is its marker
    "visitors": ((), "Visitor guide", "Visitors sign in at the front desk in building A. "
                 "Visitor parking in lot B costs 4 EUR a day. The visitor code is WREN."),
    "canteen": ((), "Canteen", "The canteen opens at 11:30 for staff and visitors. Staff "
                "parking permits for lot B are issued by facilities. The canteen code is ROBIN."),
    "salaries": (("hr",), "Engineering salary bands", "The salary band for grade 7 engineers "
                 "is 91,000 to 104,000 EUR a year. The review code is PELICAN. Visitor parking "
                 "in lot B costs 9 EUR a day from March 2026."),
    "settlement": (("legal",), "Matter 2291 settlement", "The settlement with Orwell Freight "
                   "in matter 2291 is 2.4 million EUR, paid in two parts. The file code is "
                   "OSPREY."),
    "hearings": (("hr", "legal"), "Disciplinary hearings", "A disciplinary hearing is "
                 "chaired by the head of people with counsel present. The hearing code is "
                 "HERON."),
}  # fmt: skip
MARKERS = {
    "visitors": ("WREN",),
    "canteen": ("ROBIN",),
    "salaries": ("PELICAN", "91,000", "9 EUR", "Engineering salary bands", "salaries.md"),
    "settlement": ("OSPREY", "Orwell", "2.4 million", "Matter 2291", "settlement.md"),
    "hearings": ("HERON", "counsel present", "Disciplinary hearings", "hearings.md"),
}
QUESTIONS = {
    "visitors": "What is the visitor code?",
    "canteen": "When does the canteen open?",
    "salaries": "What is the salary band for grade 7 engineers?",
    "settlement": "How much is the settlement with Orwell Freight in matter 2291?",
    "hearings": "Who chairs a disciplinary hearing?",
}
PROBES = (
    "How much does visitor parking cost?",  # the guide and the HR page disagree: a conflict
    "code?",  # too vague: nothing clears the gate, next steps name the question's words
    "visitor parking code grade",  # broadens (feedback phrasings), a conflict for the owner
    "What is the review code PELICAN?",  # names the hidden marker itself
)
#: key name -> (roles, grants)
KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "reader": (("reader",), ()),
    "reader-hr": (("reader",), ("hr",)),
    "reader-legal": (("reader",), ("legal",)),
    "reader-both": (("reader",), ("hr", "legal")),
    "reader-other": (("reader",), ("finance",)),
    "curator": (("curator",), ()),
    "curator-hr": (("curator",), ("hr",)),
    "auditor": (("auditor",), ()),
    "admin": (("admin",), ()),
}


@dataclass
class Deployment:
    client: TestClient
    tokens: dict[str, str]
    key_ids: dict[str, str]
    ids: dict[str, str]  #: document name -> document id
    chunk_ids: dict[str, list[str]]
    db: Path | str
    folder: Path  #: the documents' files

    def headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[key]}"}

    def may_read(self, key: str, document: str) -> bool:
        roles, grants = KEYS[key]
        if "auditor" in roles or "admin" in roles:
            return True
        return Access(frozenset(grants)).may_read(DOCUMENTS[document][0])

    def forbidden(self, key: str) -> list[str]:
        """Every string that would show a document ``key`` may not read."""
        out: list[str] = []
        for name in DOCUMENTS:
            if not self.may_read(key, name):
                out += [*MARKERS[name], self.ids[name], *self.chunk_ids[name]]
        return out


def build(db: Path | str, folder: Path, names: tuple[str, ...] = tuple(DOCUMENTS)) -> None:
    """The knowledge base: each document a Markdown file with its labels in front matter."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        labels, title, body = DOCUMENTS[name]
        access = f"access: {', '.join(labels)}\n" if labels else ""
        text = f"---\ntitle: {title}\npublished: 2026-05-01\n{access}---\n# {title}\n{body}\n"
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    with Assay(db) as engine:
        engine.sources.add("handbook", "official", owner="Acme", reviewed_at="2026-10-01")
        files = [folder / f"{name}.md" for name in names]
        report = engine.ingest(files, options=IngestOptions(source_id="handbook"))
        assert report.count("failed") == 0, report.summary()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def deployment(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("labelled")
    urls: Iterator[str] | None = None
    if request.param == "sqlite":
        db: Path | str = folder / "assay.db"
    else:
        cluster: Cluster = request.getfixturevalue("postgres_cluster")
        urls = fresh_database(cluster)
        db = next(urls)
    build(db, folder / "kb")
    with Assay(db) as engine:
        tokens, key_ids = {}, {}
        for name, (roles, grants) in KEYS.items():
            key, tokens[name] = engine.keys.create(name, roles, grants=grants)
            key_ids[name] = key.id
        ids = {Path(d.uri).stem: d.id for d in engine.documents()}
        chunk_ids = {
            name: [h.chunk.id for h in engine.assess(QUESTIONS[name], record=False).retrieval.hits
                   if h.chunk.document_id == ids[name]]
            for name in DOCUMENTS
        }  # fmt: skip
    assert all(chunk_ids.values())
    app = create_app(load_settings(db=db))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Deployment(client, tokens, key_ids, ids, chunk_ids, db, folder / "kb")
    if urls is not None:
        urls.close()


def _leaks(text: str, forbidden: list[str], question: str = "") -> list[str]:
    """The forbidden strings in ``text``, but those the question itself says (a reply
    may quote its question)."""
    return [w for w in forbidden if w in text and w.lower() not in question.lower()]


READERS = [k for k, (roles, _) in KEYS.items() if {"reader", "admin"} & set(roles)]
CURATORS = [k for k, (roles, _) in KEYS.items() if {"curator", "admin"} & set(roles)]


@pytest.mark.parametrize("key", READERS)
@pytest.mark.parametrize("policy", ["informational", "legal"])
def test_ask_and_chat_return_nothing_the_key_may_not_read(
    deployment: Deployment, key: str, policy: str
) -> None:
    """Answers, evidence, exclusions, conflicts, findings, clarifications, broadening and
    the judge's assessment: the whole reply, through /v1/ask and the OpenAI route."""
    forbidden = deployment.forbidden(key)
    for question in [*QUESTIONS.values(), *PROBES]:
        asked = {"question": question, "policy": policy, "as_of": AS_OF.isoformat()}
        reply = deployment.client.post("/v1/ask", json=asked, headers=deployment.headers(key))
        assert reply.status_code == 200, reply.text
        assert _leaks(reply.text, forbidden, question) == [], (key, question)
        chat = {"model": f"assay/{policy}", "messages": [{"role": "user", "content": question}],
                "assay": {"as_of": AS_OF.isoformat()}}  # fmt: skip
        completion = deployment.client.post(
            "/v1/chat/completions", json=chat, headers=deployment.headers(key)
        )
        assert completion.status_code == 200, completion.text
        assert _leaks(completion.text, forbidden, question) == [], (key, question)


@pytest.mark.parametrize("key", READERS)
def test_what_the_key_may_read_is_found(deployment: Deployment, key: str) -> None:
    """The filter withholds nothing allowed: the chunk answering each question about a
    document the key may read is among the evidence it gets."""
    for name, question in QUESTIONS.items():
        if not deployment.may_read(key, name):
            continue
        asked = {"question": question, "policy": "informational", "as_of": AS_OF.isoformat()}
        reply = deployment.client.post("/v1/ask", json=asked, headers=deployment.headers(key))
        found = {e["id"] for part in ("admitted", "excluded") for e in reply.json()[part]}
        assert found & set(deployment.chunk_ids[name]), (key, name)


@pytest.mark.parametrize("key", CURATORS)
def test_documents_list_and_show_only_what_the_key_may_read(
    deployment: Deployment, key: str
) -> None:
    """A document the key may not read answers as one that does not exist."""
    listed = deployment.client.get("/v1/documents", headers=deployment.headers(key))
    assert listed.status_code == 200
    assert {d["id"] for d in listed.json()["documents"]} == {
        deployment.ids[n] for n in DOCUMENTS if deployment.may_read(key, n)
    }
    nowhere = "0000000000000000deadbeef"
    absent = deployment.client.get(f"/v1/documents/{nowhere}", headers=deployment.headers(key))
    for name, doc_id in deployment.ids.items():
        shown = deployment.client.get(f"/v1/documents/{doc_id}", headers=deployment.headers(key))
        if deployment.may_read(key, name):
            assert shown.status_code == 200
            assert shown.json()["access"] == list(DOCUMENTS[name][0])
            continue
        assert shown.status_code == absent.status_code == 404
        error, expected = shown.json()["error"], absent.json()["error"]
        assert error["message"].replace(doc_id, "X") == expected["message"].replace(nowhere, "X")
        relabel = deployment.client.post(
            f"/v1/documents/{doc_id}/access", json={"access": []}, headers=deployment.headers(key)
        )
        assert relabel.status_code == 404  # nor can it open a document it cannot see


def test_metrics_name_no_document(deployment: Deployment) -> None:
    metrics = deployment.client.get("/metrics", headers=deployment.headers("auditor"))
    assert metrics.status_code == 200
    assert _leaks(metrics.text, deployment.forbidden("reader")) == []


def test_the_audit_row_records_the_grants_and_auditor_reads_are_audited(
    deployment: Deployment,
) -> None:
    asked = {"question": QUESTIONS["salaries"], "as_of": AS_OF.isoformat()}
    reply = deployment.client.post("/v1/ask", json=asked, headers=deployment.headers("reader-hr"))
    event_id = reply.json()["event_id"]
    shown = deployment.client.get(f"/v1/audit/{event_id}", headers=deployment.headers("auditor"))
    assert shown.status_code == 200
    row = shown.json()
    assert row["actor"] == deployment.key_ids["reader-hr"]
    assert row["payload"]["retrieval"]["access"] == {"everything": False, "grants": ["hr"]}
    reads = deployment.client.get(
        "/v1/audit", params={"kind": "read", "limit": 1}, headers=deployment.headers("admin")
    ).json()["events"]
    assert reads[0]["actor"] == deployment.key_ids["auditor"]
    assert reads[0]["payload"] == {
        "what": "audit event", "filters": {"event_id": event_id}, "returned": 1
    }  # fmt: skip


def test_cli_ask_as_a_key_sees_what_the_key_sees(deployment: Deployment) -> None:
    for key in ("reader", "reader-hr"):
        result = run_cli(
            "ask", QUESTIONS["salaries"], "--as-key", deployment.key_ids[key], "--json",
            "--as-of", AS_OF.isoformat(), db=deployment.db,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert bool(_leaks(result.stdout, list(MARKERS["salaries"]))) == (key == "reader-hr")
    narrowed = run_cli(
        "ask", QUESTIONS["salaries"], "--grant", "legal", "--json", "--as-of",
        AS_OF.isoformat(), db=deployment.db,
    )  # fmt: skip
    assert narrowed.exit_code == 0 and not _leaks(narrowed.stdout, list(MARKERS["salaries"]))


def test_a_request_may_narrow_its_grants_never_widen_them(deployment: Deployment) -> None:
    cases = [("reader-hr", ["legal"], False), ("admin", ["hr"], True),
             ("admin", ["legal"], False), ("reader-hr", ["hr"], True)]  # fmt: skip
    for key, grants, sees in cases:
        asked = {"question": QUESTIONS["salaries"], "grants": grants, "as_of": AS_OF.isoformat()}
        reply = deployment.client.post("/v1/ask", json=asked, headers=deployment.headers(key))
        assert reply.status_code == 200
        assert bool(_leaks(reply.text, ["PELICAN", "91,000"])) == sees, (key, grants)


def test_a_hidden_document_changes_nothing_a_key_without_its_label_gets(
    deployment: Deployment, tmp_path: Path
) -> None:
    """The probe: every reply to a key without ``hr`` and ``legal`` is the reply the same
    question gets from a knowledge base that never held the restricted documents --
    decision, status, answer, evidence, exclusions, conflicts, clarification topics and
    broadening phrasings alike (only event ids and times differ)."""
    twin = tmp_path / "twin.db"
    build(twin, deployment.folder, names=("visitors", "canteen"))  # the same file: the same ids
    for question in [*QUESTIONS.values(), *PROBES]:
        with Assay(deployment.db) as engine:
            key = engine.acting_as_key(deployment.key_ids["reader"])
            labelled = key.ask(question, as_of=AS_OF, record=False).as_dict()
        with Assay(twin) as engine:
            plain = engine.ask(question, as_of=AS_OF, record=False).as_dict()
        assert _comparable(labelled) == _comparable(plain), question


def _comparable(reply: dict[str, Any]) -> str:
    """A reply without what differs between two databases by construction (event ids,
    the access record, document ids: the same file under another folder)."""
    reply = {k: v for k, v in reply.items() if k not in ("event_id", "retrieval")}
    return json.dumps(reply, sort_keys=True, default=str)


def test_an_upload_carries_its_labels(deployment: Deployment) -> None:
    """The upload's ``access`` field labels what it holds (run last: it adds a document)."""
    note = (
        "payroll-dates.md",
        b"# Payroll dates\n\nPayroll runs on the 25th. The run code is EGRET.\n",
    )
    uploaded = deployment.client.post(
        "/v1/ingest", files=[("files", note)], data={"source": "handbook", "access": ["hr"]},
        headers=deployment.headers("curator-hr"),
    )  # fmt: skip
    assert uploaded.status_code == 200, uploaded.text
    question = {"question": "When does payroll run?", "as_of": AS_OF.isoformat()}
    for key, sees in [("reader", False), ("reader-legal", False), ("reader-hr", True)]:
        reply = deployment.client.post("/v1/ask", json=question, headers=deployment.headers(key))
        assert ("EGRET" in reply.text) == sees, key
    listed = deployment.client.get("/v1/documents", headers=deployment.headers("curator")).json()
    assert not [d for d in listed["documents"] if d["uri"].endswith("payroll-dates.md")]


def test_a_curator_cannot_overwrite_a_document_it_cannot_read(deployment: Deployment) -> None:
    """An upload under the name of a hidden document fails: it would replace its text."""
    forged = ("hr-rota.md", b"# Rota\n\nThere is no rota.\n")
    with Assay(deployment.db) as owner:
        curator = owner.acting_as_key(deployment.key_ids["curator-hr"])
        report = curator.ingest(
            [deployment.folder / "settlement.md"], options=IngestOptions(source_id="handbook")
        )
        assert report.count("failed") == 1
        assert "may not change" in str(report.files[0].error)
    note = ("hr-rota.md", b"# Rota\n\nThe HR on-call rota starts on Mondays. Code KESTREL.\n")
    first = deployment.client.post(
        "/v1/ingest", files=[("files", note)], data={"source": "handbook", "access": ["hr"]},
        headers=deployment.headers("curator-hr"),
    )  # fmt: skip
    assert first.json()["files"][0]["status"] == "added", first.text
    again = deployment.client.post(  # the same upload name, by a curator without hr
        "/v1/ingest", files=[("files", forged)], data={"source": "handbook"},
        headers=deployment.headers("curator"),
    )  # fmt: skip
    assert again.json()["files"][0]["status"] == "failed", again.text
