"""``assay ingest`` and ``assay ask`` end to end on the demo knowledge base, with the real
MiniLM embedder, through the CLI (R1-R7, E3, E4)."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay import Assay
from assay.audit.replay import replay_problems
from tests.conftest import AS_OF, run_cli
from tests.e2e.conftest import KB, ask, copy_db, store_set_map
from tests.fake_llm import Endpoint, Reply, logprobs_reply, serve, text_reply


def test_ingest_reports_and_is_idempotent(demo_db: Path) -> None:
    again = run_cli("ingest", str(KB / "halden-sds-2026.md"), "--json", db=demo_db)
    report = json.loads(again.stdout)
    assert [f["status"] for f in report["files"]] == ["unchanged"]
    with Assay(demo_db) as engine:
        stats = engine.store.stats()
    assert stats.documents == 7 and stats.chunks >= 15
    assert stats.embedder == "all-MiniLM-L6-v2-int8@1.0.0"


def test_ingest_goes_on_past_a_bad_file(demo_db: Path, tmp_path: Path) -> None:
    shutil.copy(KB / "support-wiki" / "charging-faq.md", tmp_path / "faq.md")
    (tmp_path / "broken.jsonl").write_text('{"text": "ok"}\n{not json}\n')
    result = run_cli("ingest", str(tmp_path), "--source", "support-wiki", db=demo_db)
    assert result.exit_code == 1
    assert "broken.jsonl line 2" in result.stderr
    # the other file is read on: a copy of a file the source holds, so it is left out
    assert "0 added, 0 updated, 0 unchanged, 1 duplicate, 1 failed" in result.stdout


def test_r7_answerable_question_uses_the_current_data_sheet(demo_db: Path) -> None:
    out = ask(
        demo_db,
        "What ambient temperature range is safe for charging the HX-40?",
        "--policy",
        "financial",
    )
    sources = {e["source_id"] for e in out["admitted"]}
    assert "halden-sds-2026" in sources
    assert out["decision"] in ("proceed", "hedge")
    assert {"decision", "reasons", "confidence", "signals", "event_id"} <= set(out)
    assert out["signals"]["coverage"] > 0.5


def test_e4_stale_manual_loses_to_the_fresh_data_sheet(demo_db: Path) -> None:
    out = ask(
        demo_db, "How long does a full charge of the HX-40 take?", "--severity", "safety_critical"
    )
    assert "halden-manual-2019" not in {e["source_id"] for e in out["admitted"]}
    stale = [e for e in out["excluded"] if e["source_id"] == "halden-manual-2019"]
    assert stale and all(e["scores"]["freshness"] < 0.01 for e in stale)


def test_r7_out_of_scope_question_is_refused(demo_db: Path) -> None:
    out = ask(demo_db, "What is the capital of Australia?", "--severity", "safety_critical")
    assert out["admitted"] == [] and out["decision"] == "refuse"
    assert "no retrieved evidence cleared the gate" in out["reasons"]


def test_e13_authoritative_passage_with_little_word_overlap_is_kept(demo_db: Path) -> None:
    out = ask(
        demo_db,
        "What happens if the battery pack overheats?",
        "--policy",
        "financial",
    )
    kept = " ".join(e["text"] for e in out["admitted"])
    assert "disconnects the cells" in kept  # shares only "battery" with the question


def test_ask_event_is_audited_and_replays(demo_db: Path) -> None:
    out = ask(demo_db, "Can I charge the HX-40 in a hot car at 70 °C?", "--policy", "informational")
    event = json.loads(run_cli("audit", "show", out["event_id"], "--json", db=demo_db).stdout)
    assert event["kind"] == "ask"
    payload = event["payload"]
    assert payload["route"]["decision"] == out["decision"]
    assert payload["signals"]["composite"] == out["confidence"]["score"]
    assert payload["retrieval"]["embedder"] == "all-MiniLM-L6-v2-int8@1.0.0"
    assert run_cli("audit", "verify", db=demo_db).exit_code == 0


def test_ask_human_output_shows_labels_exclusions_and_decision(demo_db: Path) -> None:
    result = run_cli(
        "ask",
        "What ambient temperature range is safe for charging the HX-40?",
        "--severity",
        "safety_critical",
        "--as-of",
        AS_OF.isoformat(),
        db=demo_db,
    )
    assert result.exit_code == 0
    assert "halden-sds-2026 (official)" in result.stdout
    assert "excluded (" in result.stdout and "decision: " in result.stdout
    assert any(f"[{label} " in result.stdout for label in ("high", "medium"))


def test_ask_bad_input_is_one_line(demo_db: Path) -> None:
    result = run_cli("ask", "charging?", "--policy", "financial", "--category", "tax", db=demo_db)
    assert result.exit_code == 2 and "category='tax' has no routing bands" in result.stderr
    result = run_cli("ask", "   ", db=demo_db)
    assert result.exit_code == 2 and "query" in result.stderr


def test_e9_the_forum_claim_is_labelled_for_information_and_kept_out_of_safety(
    demo_db: Path,
) -> None:
    question = "Can I charge the HX-40 in a hot car at 70 °C?"
    casual = ask(demo_db, question, "--policy", "informational")
    forum = [e for e in casual["admitted"] if e["source_id"] == "community-forum"]
    assert forum and forum[0]["label"] in ("medium", "low")
    assert all(
        f["status"] == "isolated"
        for f in casual["findings"]
        if "community-forum" in f["source_ids"]
    )  # 70 °C corroborates nothing
    strict = ask(demo_db, question, "--severity", "safety_critical")
    assert "community-forum" not in {e["source_id"] for e in strict["admitted"]}
    assert {e["source_id"] for e in strict["admitted"]} == {"halden-sds-2026"}


def test_asking_an_empty_knowledge_base_says_to_ingest_first(tmp_path: Path) -> None:
    missing = run_cli("ask", "anything?", db=tmp_path / "typo.db")
    assert missing.exit_code == 1 and "no assay database at" in missing.stderr
    assert not (tmp_path / "typo.db").exists()  # a read never creates a database
    run_cli("sources", "add", "s", "--kind", "official", db=tmp_path / "empty.db")
    result = run_cli("ask", "anything?", db=tmp_path / "empty.db")
    assert result.exit_code == 2 and "is empty" in result.stderr
    assert "assay ingest" in result.stderr


def test_asking_with_another_embedder_is_refused(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_EMBEDDER", "hashing")
    result = run_cli("ask", "charging?", db=demo_db)
    assert result.exit_code == 2
    assert "embedded with 'all-MiniLM-L6-v2-int8@1.0.0'" in result.stderr


def audited_hits(db: Path, out: dict) -> list[dict]:
    """The retrieval hits recorded in the audit row of an ``ask`` output."""
    with Assay(db) as engine:
        hits: list[dict] = engine.audit.get(out["event_id"]).payload["retrieval"]["hits"]
    return hits


def test_r4_relevance_feeds_similarity_and_the_model_judgment(demo_db: Path) -> None:
    """Every hit is scored by the relevance model; similarity is the documented blend and
    the set's judgment is the best relevance among admitted items (R4)."""
    out = ask(demo_db, "How long does a full charge of the HX-40 take?")
    hits = {h["id"]: h for h in audited_hits(demo_db, out)}
    assert all(0.0 <= h["relevance"] <= 1.0 for h in hits.values())
    for item in out["admitted"] + out["excluded"]:
        hit = hits[item["id"]]
        mapped = min(1.0, max(0.0, (hit["cosine"] - 0.18) / (0.71 - 0.18)))
        assert item["scores"]["similarity"] == pytest.approx(
            0.5 * hit["relevance"] + 0.5 * mapped, abs=2e-6
        )
    best = max(hits[item["id"]]["relevance"] for item in out["admitted"])
    assert out["signals"]["judgment"] == pytest.approx(best)
    assert out["confidence"]["score"] <= best + 1e-6  # the judgment caps the set confidence


def test_r4_the_answering_chunk_is_the_most_relevant(demo_db: Path) -> None:
    out = ask(demo_db, "How long does a full charge of the HX-40 take?")
    best = max(audited_hits(demo_db, out), key=lambda h: h["relevance"])
    texts = {e["id"]: e["text"] for e in out["admitted"] + out["excluded"]}
    assert "3 hours" in texts[best["id"]] or "5 hours" in texts[best["id"]]


def test_audit_row_names_the_relevance_and_support_models(demo_db: Path) -> None:
    out = ask(demo_db, "What ambient temperature range is safe for charging the HX-40?")
    with Assay(demo_db) as engine:
        payload = engine.audit.get(out["event_id"]).payload
    assert "assay-relevance@" in payload["models"]["similarity"]
    assert "assay-support-stack@" in payload["models"]["corroboration"]
    assert "relevance" in payload["retrieval"]["similarity_mapping"]
    assert all("relevance" in h for h in payload["retrieval"]["hits"])
    assert "conflicts" in payload


def test_relevance_model_none_keeps_the_cosine_mapping(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_RELEVANCE_MODEL", "none")
    monkeypatch.setenv("ASSAY_SUPPORT_MODEL", "none")
    out = ask(demo_db, "How long does a full charge of the HX-40 take?")
    assert all(h["relevance"] is None for h in audited_hits(demo_db, out))
    assert out["signals"]["judgment"] is None


@pytest.fixture
def llm_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    with serve() as endpoint:
        monkeypatch.setenv("ASSAY_LLM_URL", endpoint.base_url)
        yield endpoint


def test_r4_a_policy_that_asks_for_the_cascade_gets_it_where_an_llm_is_configured(
    demo_db: Path, llm_endpoint: Endpoint
) -> None:
    """legal asks for the LLM cascade: the LLM rates the best three chunks, and the audit
    row names the cascade as the model that scored them; financial does not ask."""

    def reranked() -> list[dict]:
        return [r for r in llm_endpoint.requests if "Read the passage and decide" in str(r)]

    question = "How long does a full charge of the HX-40 take?"
    out = ask(demo_db, question, "--policy", "financial")
    assert reranked() == []
    with Assay(demo_db) as engine:
        plain = engine.audit.get(out["event_id"]).payload["models"]["similarity"]
    assert "assay-relevance@" in plain and "cascade(" not in plain
    out = ask(demo_db, question, "--policy", "legal")
    assert 1 <= len(reranked()) <= 3
    with Assay(demo_db) as engine:
        cascade = engine.audit.get(out["event_id"]).payload["models"]["similarity"]
    assert "cascade(assay-relevance@" in cascade and "llm-yes-no" in cascade


def test_r4_without_an_endpoint_the_cascade_policy_uses_the_shipped_model(demo_db: Path) -> None:
    out = ask(demo_db, "How long does a full charge of the HX-40 take?", "--policy", "legal")
    with Assay(demo_db) as engine:
        model = engine.audit.get(out["event_id"]).payload["models"]["similarity"]
    assert "assay-relevance@" in model and "cascade(" not in model


def test_the_human_report_names_evidence_by_one_short_label_everywhere(demo_db: Path) -> None:
    """Citations, conflicts and findings used bare 24-digit ids while the evidence list
    showed none: a reviewer could not match them. Now [E1]... label the evidence list and
    stand for it in the answer, the conflicts and the findings; --json keeps the ids."""
    import re

    question = "What temperature is safe for charging the HX-40?"
    shown = run_cli("ask", question, "--as-of", AS_OF.isoformat(), db=demo_db).stdout
    answer, _, report = shown.partition("\nevidence an answer may use")
    assert "[E1]" in answer and "[Source:" not in answer
    assert re.search(r"\[E1\] \[high [0-9.]+\] halden-sds-2026 \(official\)", report)
    assert re.search(r"conflict \(.+\) E\d+ \(halden-sds-2026\)|E\d+ \(halden-sds-2026\) vs", shown)
    assert re.search(r"finding F\d+ \[E\d+(, E\d+)*\]: ", report)
    hex_ids = re.findall(r"\b[0-9a-f]{24}\b", shown)
    assert not hex_ids  # the audit event id is 32 digits, and no evidence id is shown
    full = ask(demo_db, question)
    assert all(re.fullmatch(r"[0-9a-f]{24}", e["id"]) for e in full["admitted"])


def yes_replies(endpoint: Endpoint, p_yes: float, n: int = 12) -> None:
    """Every request of the next ``n`` answered yes with probability ``p_yes``."""
    endpoint.script(*[Reply(logprobs_reply({"Yes": p_yes, "No": 1 - p_yes})) for _ in range(n)])


def test_r4_with_an_llm_the_set_judgment_is_its_reading_of_the_best_passages(
    demo_db: Path, llm_endpoint: Endpoint
) -> None:
    """informational asks for the LLM's judgment (``[models] llm_judgment``): the chat
    model reads the three most relevant admitted passages, its highest P(yes) is the
    set's judgment, which caps the set confidence, and the audit row names it."""
    question = "How long does a full charge of the HX-40 take?"
    yes_replies(llm_endpoint, 0.9)
    out = ask(demo_db, question, "--policy", "informational")
    read = [r for r in llm_endpoint.requests if "this exact question" in str(r["body"])]
    assert 1 <= len({json.dumps(r["body"]["messages"]) for r in read}) <= 3
    assert "Passage (" in read[0]["body"]["messages"][1]["content"]  # under its title
    assert out["signals"]["judgment"] == pytest.approx(0.9, abs=1e-6)
    with Assay(demo_db) as engine:
        payload = engine.audit.get(out["event_id"]).payload
    assert payload["models"]["judgment"].startswith("answerability-v1:")
    assert replay_problems("ask", payload, question) == []  # the stored reading replays
    forged = copy.deepcopy(payload)
    forged["signals"]["judgment"] = 0.05
    assert any("set confidence" in p for p in replay_problems("ask", forged, question))


def test_r4_an_llm_that_finds_no_answer_keeps_the_question_from_being_answered(
    demo_db: Path, llm_endpoint: Endpoint
) -> None:
    """The same question, answered offline, is not answered when the chat model reads
    none of the best passages as stating the answer: the judgment caps the set."""
    question = "How long does a full charge of the HX-40 take?"
    yes_replies(llm_endpoint, 0.05)
    out = ask(demo_db, question, "--policy", "informational")
    assert out["signals"]["judgment"] == pytest.approx(0.05, abs=1e-6)
    assert out["confidence"]["score"] <= 0.05 + 1e-6
    assert out["status"] != "answered"


def test_r4_an_older_source_the_llm_reads_as_answering_does_not_lead(
    demo_db: Path, llm_endpoint: Endpoint
) -> None:
    """The answerer quotes from the passages the chat model reads as answering, but not
    past the strength of the evidence: however it reads the 2019 manual and the 2026
    data sheet, the data sheet, which answers too, is the one cited (issue 41). The
    two are the first passages read, in the relevance model's order; over the two asks
    each reads once as answering and once not. The audit row keeps each reading beside
    its hit."""
    question = "How long does a full charge of the HX-40 take?"
    for first, second in ((0.05, 0.95), (0.95, 0.05)):
        llm_endpoint.requests.clear()
        llm_endpoint.replies.clear()
        llm_endpoint.script(*[
            Reply(logprobs_reply({"Yes": p, "No": 1 - p})) for p in (first, second, 0.05, 0.9)
        ])  # fmt: skip
        out = ask(demo_db, question, "--policy", "informational")
        read = [r["body"]["messages"][1]["content"] for r in llm_endpoint.requests]
        assert any("(2019 edition)" in r for r in read[:2])
        assert any("Safety Data Sheet" in r for r in read[:2])
        assert [s["source_id"] for s in out["sources"] if s["cited"]] == ["halden-sds-2026"]
        audited = sorted(h["read"] for h in audited_hits(demo_db, out) if "read" in h)
        assert audited == pytest.approx(sorted([first, second, 0.05]), abs=1e-6)


def assert_judged_by_relevance(db: Path, out: dict) -> None:
    """The set's judgment is the best relevance among admitted hits, and the audit row
    names no chat model as its reader."""
    hits = {h["id"]: h for h in audited_hits(db, out)}
    best = max(hits[item["id"]]["relevance"] for item in out["admitted"])
    assert out["signals"]["judgment"] == pytest.approx(best)
    with Assay(db) as engine:
        assert "judgment" not in engine.audit.get(out["event_id"]).payload["models"]


def test_r4_a_policy_without_llm_judgment_keeps_the_relevance_judgment(
    demo_db: Path, llm_endpoint: Endpoint
) -> None:
    yes_replies(llm_endpoint, 0.05)
    out = ask(demo_db, "How long does a full charge of the HX-40 take?", "--policy", "legal")
    assert_judged_by_relevance(demo_db, out)


def test_r4_an_endpoint_that_answers_in_prose_leaves_the_judgment_to_relevance(
    demo_db: Path, llm_endpoint: Endpoint
) -> None:
    """A chat model that answers neither yes nor no (no log-probabilities, a sentence)
    cannot judge: the question is decided as offline, not failed."""
    llm_endpoint.script(*[Reply(text_reply("It depends on the charger.")) for _ in range(12)])
    question = "How long does a full charge of the HX-40 take?"
    out = ask(demo_db, question, "--policy", "informational")
    assert llm_endpoint.requests  # it was asked
    assert_judged_by_relevance(demo_db, out)


def test_r4_a_set_map_fitted_offline_is_not_applied_to_the_llms_judgment(
    demo_db: Path, llm_endpoint: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored set map belongs to the judgment it was fitted on: the LLM's reading caps
    set confidences on another scale, so the offline map is keyed apart from it."""
    db = copy_db(demo_db, tmp_path / "assay.db")
    store_set_map(db, "informational", [0.1, 0.3, 0.5, 0.7, 0.9, 0.95], [0, 0, 1, 1, 1, 1])
    question = "How long does a full charge of the HX-40 take?"
    yes_replies(llm_endpoint, 0.9)
    read = ask(db, question, "--policy", "informational")
    assert (
        read["signals"]["judgment"] == pytest.approx(0.9) and not read["confidence"]["calibrated"]
    )
    monkeypatch.delenv("ASSAY_LLM_URL")
    assert ask(db, question, "--policy", "informational")["confidence"]["calibrated"] is True


def test_the_answer_keeps_to_the_kind_asked_where_the_rules_list_kinds(tmp_path: Path) -> None:
    """ "Can I use a charcoal barbecue?" of house rules that allow "Gas and electric
    barbecues" and forbid charcoal ones: the draft is the charcoal sentence, never the
    sentence about the other kinds (it had been answered from it, hedged)."""
    response = ask_one_document(
        tmp_path,
        "house-rules",
        "---\ntitle: House Rules\npublished: 2026-03-01\n---\n# House Rules\n\n"
        "## Balconies\n\nGas and electric barbecues may be used on balconies. Charcoal "
        "barbecues and fire pits are not allowed anywhere in the building. Do not hang "
        "washing over the balcony rail.\n\n## Pets\n\nCats may be kept with the written "
        "consent of the managing agent. Dogs are not allowed.\n\n## Noise\n\nQuiet hours "
        "are 22:00 to 07:00 on weeknights.\n",
        "Can I use a charcoal barbecue on my balcony?",
    )
    claims = [c["claim"] for c in response["judge"]["claims"]]
    assert claims and all("Charcoal barbecues" in c for c in claims), claims
    assert "Gas and electric" not in response["answer"]


def test_a_fee_table_answers_the_row_the_question_names(tmp_path: Path) -> None:
    """The reader, trained on prose, finds no answer in a table of rents; the row the
    question names is drafted instead of "none of the passages states the price"."""
    response = ask_one_document(
        tmp_path,
        "fees",
        "---\ntitle: Allotment rents 2026\npublished: 2026-02-20\n---\n# Allotment rents "
        "2026\n\n## Plot rents\n\n| Plot size | Standard rent | Concession rent |\n|---|---|---|\n"
        "| Full plot (250 m²) | £96 | £58 |\n| Half plot (125 m²) | £52 | £31 |\n"
        "| Quarter plot (60 m²) | £30 | £18 |\n\nConcession rent applies to tenants over 66."
        "\n\n## Waiting list\n\nNew applicants join the waiting list free of charge.\n",
        "What would a full plot cost me?",
    )
    claims = [c["claim"] for c in (response["judge"] or {}).get("claims", [])]
    assert claims and all("Full plot (250 m²): Standard rent: £96" in c for c in claims), response[
        "answer"
    ]


def ask_one_document(tmp_path: Path, source: str, text: str, question: str) -> dict[str, Any]:
    """``assay ask --json`` of ``question`` against one Markdown document of an official
    source."""
    document = tmp_path / f"{source}.md"
    document.write_text(text)
    db = tmp_path / "assay.db"
    run_cli("sources", "add", source, "--kind", "official", db=db)
    assert run_cli("ingest", str(document), "--source", source, db=db).exit_code == 0
    return ask(db, question)


def test_r4_a_question_with_its_own_figure_is_answered_by_the_rule(tmp_path: Path) -> None:
    """ "Can I fly business class on a 7-hour flight?" of a policy that allows it on
    flights "longer than 6 hours": the asker's 7 is no figure the policy must state, so
    the rule is answered (it was withheld at 0.22, the relevance model reading the 7 as
    missing), and the answer claims no missing figure."""
    response = ask_one_document(
        tmp_path,
        "travel-policy",
        "---\ntitle: Travel policy 2026\npublished: 2026-01-10\n---\n# Travel policy 2026\n\n"
        "## Flights\n\nEconomy class is the default for all flights. Business class may be "
        "booked when the scheduled flight time is longer than 6 hours, with written "
        "pre-approval from the budget holder.\n\n## Hotels\n\nThe nightly hotel cap is EUR "
        "170 in most cities and EUR 220 in Paris and London.\n\n## Meals\n\nEmployees "
        "receive a daily meal allowance of 55 euros for each full day away from home.\n",
        "Can I fly business class on a 7-hour flight?",
    )
    assert response["status"] == "answered", response["answer"]
    assert "longer than 6 hours" in response["answer"]
    assert "the figure 7" not in response["answer"]
