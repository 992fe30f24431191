"""``assay ask`` answers, abstains, clarifies and refuses, through the CLI, on the demo
knowledge base with the real models (G1-G3, R8, R9, J1, J6); the LLM paths run against
an OpenAI-compatible server in this process that plays back scripted replies."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import assay.answer.correctness as correctness_module
from assay.answer.correctness import (
    LLM_FEATURE,
    LLM_STATEMENT,
    SHIPPED_CORRECTNESS_LLM,
    load_correctness_model,
)
from assay.audit.replay import replay_problems
from assay.judge.schema import Assessment
from assay.models.relevance import get_relevance_model
from tests.conftest import AS_OF, run_cli
from tests.e2e.conftest import ask
from tests.fake_llm import Endpoint, Reply, logprobs_reply, serve, text_reply

POLICIES = Path(__file__).resolve().parents[2] / "src" / "assay" / "policies"
SAFE_RANGE = "What ambient temperature range is safe for charging the HX-40?"
HOT_CAR = "Can I charge the HX-40 in a hot car at 70 °C?"
SUMMER_CAR = "Can I charge the HX-40 in my car in summer?"
OUT_OF_SCOPE = "How do I migrate my Python application to a new server?"
R9_KEYS = {
    "answer",
    "status",
    "decision",
    "confidence",
    "sources",
    "fallback_activated",
    "fallback_type",
    "assessment",
}


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    """A scripted LLM endpoint that ``assay ask`` uses as its answerer."""
    with serve() as ep:
        monkeypatch.setenv("ASSAY_LLM_URL", ep.base_url)
        monkeypatch.setenv("ASSAY_ANSWERER", "llm")
        yield ep


def policy_file(tmp_path: Path, routing: dict[str, Any], base: str = "informational") -> Path:
    """The ``base`` policy under another name with the keys of ``routing`` (any key of
    the file) replaced."""
    text = (POLICIES / f"{base}.toml").read_text()
    text = text.replace(f'name = "{base}"', 'name = "test-routing"')
    for key, value in routing.items():
        text = "\n".join(
            f"{key} = {json.dumps(value)}" if line.startswith(f"{key} =") else line
            for line in text.splitlines()
        )
    path = tmp_path / "test-routing.toml"
    path.write_text(text)
    return path


def answerer_only(tmp_path: Path) -> Path:
    """informational without ``llm_judgment``: the scripted endpoint writes the answer and
    is asked nothing else."""
    return policy_file(tmp_path, {"llm_judgment": False})


def check_r9(out: dict[str, Any]) -> Assessment:
    """Every response carries the R9 fields and a valid J1 object."""
    assert set(out) >= R9_KEYS
    assert set(out["confidence"]) == {"score", "label", "raw", "calibrated"}
    assert out["fallback_activated"] == (out["fallback_type"] is not None)
    return Assessment.model_validate(out["assessment"])


def test_g2_g3_r9_an_answer_cites_admitted_evidence_and_is_judged(demo_db: Path) -> None:
    out = ask(demo_db, SAFE_RANGE, "--policy", "legal")  # financial proceeds: no hedge
    assessment = check_r9(out)
    assert out["status"] == "answered" and out["decision"] == "hedge"
    assert out["fallback_type"] == "hedge"
    assert "45 °C" in out["answer"]
    assert out["answer"].startswith("With ")  # R8: the hedge states its confidence first
    cited = [s for s in out["sources"] if s["cited"]]
    assert cited and all(s["source_id"] == "halden-sds-2026" for s in cited)
    assert out["citations"]["ok"] and out["citations"]["invalid"] == []
    assert assessment.recommended_action in ("publish", "append_caveat")  # given
    assert [c["grade"] for c in out["judge"]["claims"]] == ["supported"]


def test_g1_nothing_clears_the_gate_so_retrieval_abstains(demo_db: Path) -> None:
    out = ask(demo_db, OUT_OF_SCOPE, "--severity", "safety_critical")
    assessment = check_r9(out)
    assert (out["status"], out["decision"]) == ("abstained_retrieval", "refuse")
    assert "Next steps" in out["answer"]
    assert assessment.confidence_score == 0.0 and assessment.recommended_action == "suppress"


def test_r8_broadening_that_does_not_lift_the_set_ends_in_a_refusal(demo_db: Path) -> None:
    out = ask(demo_db, SUMMER_CAR, "--severity", "safety_critical")
    check_r9(out)
    assert out["status"] == "refused"
    assert out["fallbacks"] == ["broaden", "refuse"]
    broadening = out["broadening"]
    assert broadening["phrasings"] and broadening["kept"] in ("original", "broadened")
    assert broadening["after"] <= out["confidence"]["score"] + 1e-9 or broadening["kept"] == (
        "original"
    )


def test_g3_the_data_sheets_rule_answers_and_the_forums_contradiction_is_named(
    demo_db: Path,
) -> None:
    """The forum's 70 °C clears an informational gate beside the data sheet's rule; the
    rule answers "at 70 °C?" (the asker's 70 is no figure it must state), the forum's
    claim never reaches the answer, and the disagreement is named with a caveat. Under
    safety_critical the forum never clears the gate, and the rule is never published
    without a caveat: with one, or sent to a person."""
    out = ask(demo_db, HOT_CAR, "--policy", "informational")
    assessment = check_r9(out)
    assert out["status"] == "answered"
    assert assessment.recommended_action == "append_caveat"
    assert "between 0 °C and 45 °C" in out["answer"] and "70 °C" not in out["answer"]
    source = {e["id"]: e["source_id"] for e in out["admitted"]}
    against = {source[c.source_b]: c.nature for c in assessment.source_conflicts}
    assert against.get("community-forum") == "direct contradiction"
    # the reader is told why in words; the rationale's counts and versions stay in J1
    assert "sources disagree on what it states" in out["answer"]
    assert "(s)" not in out["answer"] and "@" not in out["answer"]
    strict = ask(demo_db, HOT_CAR, "--severity", "safety_critical")
    assert "community-forum" not in {e["source_id"] for e in strict["admitted"]}
    assert "70 °C" not in strict["answer"]
    action = check_r9(strict).recommended_action
    if strict["status"] == "answered":
        assert action == "append_caveat" and "between 0 °C and 45 °C" in strict["answer"]
    else:
        assert strict["status"] == "abstained_judge" and strict["review_id"] is not None


def test_j6_two_official_sources_that_disagree_go_to_human_review(demo_db: Path) -> None:
    """Informational admits the 2019 manual's 5 hours beside the data sheet's 3; the
    judge cannot settle that by source strength, so a person decides (and is audited)."""
    out = ask(
        demo_db, "How long does a full charge of the HX-40 take?", "--policy", "informational"
    )
    assessment = check_r9(out)
    assert out["status"] == "abstained_judge"
    assert assessment.recommended_action == "human_review"
    assert out["review_id"] is not None
    shown = json.loads(
        run_cli("review", "show", str(out["review_id"]), "--json", db=demo_db).stdout
    )
    assert shown["event_id"] == out["event_id"] and "3 hours" in shown["answer"]
    # issue 43 (second pass): the reviewer reads the answer, the conflicts and the
    # evidence with the labels `assay ask` printed, not bare ids
    text = run_cli("review", "show", str(out["review_id"]), db=demo_db).stdout
    labels = {s["id"]: f"E{i}" for i, s in enumerate(out["sources"], start=1)}
    cited = next(s for s in out["sources"] if s["cited"])
    assert f"[{labels[cited['id']]}]" in text.split("answer: ", 1)[1].splitlines()[0]
    assert "[Source:" not in text and "evidence (" in text
    assert f"[{labels[cited['id']]}] [" in text and "conflict (" in text
    audited = run_cli("audit", "show", out["event_id"], db=demo_db).stdout  # the same labels
    assert f"[{labels[cited['id']]}]" in audited.split("draft: ", 1)[1].splitlines()[0]
    row = next(line for line in audited.splitlines() if line.startswith(labels[cited["id"]] + " "))
    assert cited["id"][:12] in row and "admitted" in row
    resolved = run_cli(
        "review", "resolve", str(out["review_id"]), "--verdict", "correct", db=demo_db
    )
    assert resolved.exit_code == 0, resolved.output
    assert run_cli("audit", "verify", db=demo_db).exit_code == 0


def test_r7_r8_low_coverage_gets_a_clarifying_question(demo_db: Path, tmp_path: Path) -> None:
    # words decide here: the shipped bar lets a passage the relevance model rates as
    # answering through low coverage (routing.clarify_unless_relevance)
    policy = policy_file(
        tmp_path, {"clarify_below_coverage": 0.99, "clarify_unless_relevance": 1.0}
    )
    on_a_boat = SAFE_RANGE.replace("?", " on a sailing boat?")
    out = ask(demo_db, on_a_boat, "--policy", str(policy))
    assessment = check_r9(out)
    assert (out["status"], out["decision"]) == ("clarification", "clarify")
    assert out["answer"].endswith("?") and "sailing" in out["answer"]
    assert "'safe'" not in out["answer"]  # a word that frames the question is never asked
    assert assessment.recommended_action == "suppress"


def test_g2_an_answer_citing_unknown_evidence_abstains(
    demo_db: Path, endpoint: Endpoint, tmp_path: Path
) -> None:
    endpoint.script(Reply(text_reply("Charge it between 0 °C and 45 °C [Source: S9].")))
    out = ask(demo_db, SAFE_RANGE, "--policy", str(answerer_only(tmp_path)))
    check_r9(out)
    assert out["status"] == "abstained_citation"
    assert out["citations"] == {"ok": False, "valid": [], "invalid": ["S9"]}
    assert out["judge"] is None  # an unchecked citation is never judged


def test_g2_an_llm_answer_with_valid_labels_cites_real_ids(
    demo_db: Path, endpoint: Endpoint, tmp_path: Path
) -> None:
    endpoint.script(Reply(text_reply("Charge it between 0 °C and 45 °C [Source: S1].")))
    out = ask(demo_db, SAFE_RANGE, "--policy", str(answerer_only(tmp_path)))
    check_r9(out)
    assert out["status"] == "answered"
    first = max(out["sources"], key=lambda s: s["confidence"])
    assert out["citations"]["valid"] == [first["id"]]
    assert out["answerer"]["prompt_version"] == "standard-v1"
    event = json.loads(run_cli("audit", "show", out["event_id"], "--json", db=demo_db).stdout)
    assert event["payload"]["draft"]["prompt_version"] == "standard-v1"
    assert event["payload"]["models"]["answerer"].startswith("llm:")


def test_r8_llm_only_is_marked_and_only_where_the_policy_allows_it(
    demo_db: Path, endpoint: Endpoint, tmp_path: Path
) -> None:
    endpoint.script(Reply(text_reply("Copy the files and reinstall the dependencies.")))
    policy = policy_file(tmp_path, {"allow_llm_only": True})
    out = ask(demo_db, OUT_OF_SCOPE, "--policy", str(policy))
    assessment = check_r9(out)
    assert (out["status"], out["decision"], out["fallback_type"]) == (
        "answered", "llm_only", "llm_only",
    )  # fmt: skip
    assert out["answer"].startswith("Not from the knowledge base:")
    assert assessment.confidence_score == 0.0 and assessment.unsupported_claims
    refused = ask(demo_db, OUT_OF_SCOPE, "--policy", "informational")
    assert refused["status"] == "abstained_retrieval"
    assert len(endpoint.requests) == 1  # the policy that forbids it never asked the model


def test_r9_the_human_report_leads_with_the_answer(demo_db: Path) -> None:
    result = run_cli(
        "ask", SAFE_RANGE, "--policy", "legal", "--as-of", AS_OF.isoformat(), db=demo_db
    )
    assert result.exit_code == 0, result.output
    first, *rest = result.stdout.splitlines()
    assert first.startswith("With medium confidence")
    assert any(line.startswith("status: answered; decision: hedge") for line in rest)
    assert any(line.startswith("judge: ") for line in rest)


def test_j8_the_audit_row_holds_the_answer_judgment_and_versions(demo_db: Path) -> None:
    out = ask(demo_db, SAFE_RANGE, "--policy", "financial")
    event = json.loads(run_cli("audit", "show", out["event_id"], "--json", db=demo_db).stdout)
    payload = event["payload"]
    assert payload["status"] == "answered" and payload["answer"] == out["answer"]
    assert payload["assessment"] == out["assessment"]
    assert payload["judgment"]["judge"].startswith("assay-judge-v1[assay-support")
    assert payload["models"]["answerer"].startswith("extractive-v2[assay-relevance")
    assert event["query_hash"]
    assert run_cli("audit", "verify", db=demo_db).exit_code == 0


def test_the_answers_confidence_is_its_rated_correctness_and_replays(demo_db: Path) -> None:
    """The J1 score of an answer is the lower of the shipped correctness model's P(right)
    and the judge's support; the audit row keeps the features, so verify recomputes it
    and a forged feature is caught."""
    out = ask(demo_db, SAFE_RANGE, "--policy", "financial")
    event = json.loads(run_cli("audit", "show", out["event_id"], "--json", db=demo_db).stdout)
    payload = event["payload"]
    rated = payload["judgment"]["correctness"]
    assert rated["model"] == load_correctness_model().ref
    assert rated["features"]["reader_best"] > 0.5  # the reader found the answer
    assert out["assessment"]["confidence_score"] == rated["score"]
    assert rated["score"] == min(rated["probability"], rated["support"])
    assert "probability that the answer is right" in out["assessment"]["score_rationale"]
    assert replay_problems("ask", payload, SAFE_RANGE) == []
    forged = copy.deepcopy(payload)
    forged["judgment"]["correctness"]["features"]["cited_relevance"] = 0.0
    assert any("answer correctness" in p for p in replay_problems("ask", forged, SAFE_RANGE))


def test_with_the_chat_model_it_was_fitted_with_the_answer_is_rated_by_its_belief(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With ASSAY_LLM_URL serving the chat model ``assay-correctness-llm`` was fitted
    with, the offline answer is rated by that model: the endpoint is asked whether the
    cited passage states the answer (``llm_cited``) and whether the answer's first
    statement, read alone, does (``llm_statement``), and the row replays. Another chat
    model leaves the rating to ``assay-correctness``. Only while the model is fitted on
    the shipped relevance model's scores: after a relevance release it is not applied
    until ``make train-correctness-llm`` refits it (the test below)."""
    fitted = load_correctness_model(SHIPPED_CORRECTNESS_LLM)
    shipped = get_relevance_model().name
    if fitted.relevance_model != shipped:
        pytest.skip(f"{fitted.ref} is fitted on {fitted.relevance_model}, not {shipped}")
    assert fitted.answerability is not None
    financial = str(policy_file(tmp_path, {"llm_judgment": False}, base="financial"))
    with serve() as endpoint:
        monkeypatch.setenv("ASSAY_LLM_URL", endpoint.base_url)
        monkeypatch.setenv("ASSAY_LLM_MODEL", fitted.answerability.split(":", 1)[1])
        endpoint.script(
            Reply(logprobs_reply({"No": 0.75, "Yes": 0.25}, "No")),
            Reply(logprobs_reply({"No": 0.4, "Yes": 0.6}, "Yes")),
        )
        doubted = ask(demo_db, SAFE_RANGE, "--policy", financial)
        asked = [endpoint.messages(i)[1]["content"] for i in range(2)]
        assert len(endpoint.requests) == 2
        monkeypatch.setenv("ASSAY_LLM_MODEL", "another-model")
        other = ask(demo_db, SAFE_RANGE, "--policy", financial)
        assert len(endpoint.requests) == 2
    assert SAFE_RANGE in asked[0] and asked[0].startswith("Passage (")  # under its title
    assert asked[1].startswith("Passage: ") and len(asked[1]) < len(asked[0])  # one statement
    event = json.loads(run_cli("audit", "show", doubted["event_id"], "--json", db=demo_db).stdout)
    payload = event["payload"]
    rated = payload["judgment"]["correctness"]
    assert rated["model"] == fitted.ref and rated["features"][LLM_FEATURE] == 0.25
    assert rated["features"][LLM_STATEMENT] == pytest.approx(0.6)
    believed = fitted.probability(rated["features"] | {LLM_FEATURE: 0.95, LLM_STATEMENT: 0.95})
    assert rated["probability"] < believed  # the chat model's doubt lowers P(right)
    assert doubted["assessment"]["confidence_score"] == rated["score"]
    assert replay_problems("ask", payload, SAFE_RANGE) == []
    forged = copy.deepcopy(payload)
    forged["judgment"]["correctness"]["features"][LLM_FEATURE] = 0.95
    assert any("answer correctness" in p for p in replay_problems("ask", forged, SAFE_RANGE))
    assert other["event_id"] != doubted["event_id"]
    shown = json.loads(run_cli("audit", "show", other["event_id"], "--json", db=demo_db).stdout)
    assert shown["payload"]["judgment"]["correctness"]["model"] == load_correctness_model().ref


def test_a_chat_model_correctness_model_fitted_on_another_relevance_model_is_not_applied(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``assay-correctness-llm`` reads the relevance model's scores: fitted on another
    relevance model than the one asking (as after a relevance release, until ``make
    train-correctness-llm`` refits it), it is not applied even with the chat model it was
    fitted with, and ``assay-correctness`` rates the answer, asking the chat model
    nothing."""
    fitted = load_correctness_model(SHIPPED_CORRECTNESS_LLM)
    assert fitted.answerability is not None
    stale = tmp_path / "assay-correctness-llm"
    stale.mkdir()
    model = json.loads((SHIPPED_CORRECTNESS_LLM / "model.json").read_text())
    model["relevance_model"] = "assay-relevance@0.9.0"
    (stale / "model.json").write_text(json.dumps(model))
    monkeypatch.setattr(correctness_module, "SHIPPED_CORRECTNESS_LLM", stale)
    financial = str(policy_file(tmp_path, {"llm_judgment": False}, base="financial"))
    with serve() as endpoint:
        monkeypatch.setenv("ASSAY_LLM_URL", endpoint.base_url)
        monkeypatch.setenv("ASSAY_LLM_MODEL", fitted.answerability.split(":", 1)[1])
        out = ask(demo_db, SAFE_RANGE, "--policy", financial)
        assert endpoint.requests == []
    event = json.loads(run_cli("audit", "show", out["event_id"], "--json", db=demo_db).stdout)
    assert event["payload"]["judgment"]["correctness"]["model"] == load_correctness_model().ref


# -- assay evaluate ----------------------------------------------------------------------

CONTEXTS = [
    {"id": "sds", "text": "Charge the HX-40 only between 0 °C and 45 °C."},
    {"id": "forum", "text": "I charge my HX-40 at 70 °C and it is fine."},
]


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "I don't have enough information to answer this.",
        "Charge it between 0 °C and 45 °C [Source: sds].",
        "You can charge it at 70 °C [Source: forum].",
        "It is made of titanium.",
        "[Source: sds]",
    ],
)
def test_j1_evaluate_prints_exactly_the_j1_object(tmp_path: Path, answer: str) -> None:
    request = {"query": "At what temperature can I charge it?", "answer": answer}
    path = tmp_path / "in.json"
    path.write_text(json.dumps(request | {"contexts": CONTEXTS}))
    result = run_cli("evaluate", "--input", str(path))
    assert result.exit_code == 0, result.output
    assessment = Assessment.model_validate_json(result.stdout)  # nothing else on stdout
    if not answer.replace("[Source: sds]", "").strip() or answer.startswith("I don't"):
        assert assessment.confidence_score == 0.0
        assert assessment.recommended_action == "suppress"


def test_j5_evaluate_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    for request, message in [
        ({"query": "q", "answer": "a", "contexts": []}, "contexts=[] is empty"),
        ({"query": "q", "answer": "a"}, "add contexts"),
        ({"query": "q", "answer": "a", "contexts": [{"id": "x"}]}, 'lacks "text"'),
        (
            {"query": "q", "answer": "a", "contexts": [{"id": "x", "text": "t"}] * 1
             + [{"id": "x", "text": "u"}]},
            "names two different texts",
        ),
    ]:  # fmt: skip
        path.write_text(json.dumps(request))
        result = run_cli("evaluate", "--input", str(path))
        assert result.exit_code == 2 and result.stdout == ""
        assert message in result.stderr and len(result.stderr.splitlines()) == 1
    path.write_text("{not json")
    result = run_cli("evaluate", "--input", str(path))
    assert result.exit_code == 2 and "is not valid JSON" in result.stderr


def test_j6_evaluate_takes_the_action_thresholds_of_a_policy(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    answer = "Charge it between 0 °C and 45 °C [Source: sds]."
    path.write_text(
        json.dumps({"query": "Charging range?", "answer": answer, "contexts": CONTEXTS})
    )
    lenient = json.loads(run_cli("evaluate", "--input", str(path)).stdout)
    strict = json.loads(
        run_cli("evaluate", "--input", str(path), "--policy", "safety_critical").stdout
    )
    assert lenient["confidence_score"] == strict["confidence_score"]
    order = ["suppress", "human_review", "append_caveat", "publish"]
    assert order.index(strict["recommended_action"]) <= order.index(lenient["recommended_action"])


def test_r7_assess_routes_without_answering(demo_db: Path) -> None:
    """``Assay.assess`` stops at the route: for callers who write their own answers."""
    from assay import Assay

    with Assay(demo_db, create=False) as engine:
        result = engine.assess(SAFE_RANGE, policy="legal", as_of=AS_OF)
        event = engine.audit.get(result.event_id or "")
    assert result.route.decision.value == "hedge" and result.scored.admitted
    assert event.kind == "ask" and "answer" not in event.payload
    assert event.payload["route"]["decision"] == "hedge"


def test_r8_a_failing_llm_endpoint_answers_offline_and_is_audited(
    demo_db: Path, tmp_path: Path
) -> None:
    """A model that is down costs the wording, not the request (R8, one audit event)."""
    financial = str(policy_file(tmp_path, {"llm_judgment": False}, base="financial"))
    with serve() as ep:
        ep.script(*[Reply({"error": "down"}, status=500)] * 3)
        env = {"ASSAY_LLM_URL": ep.base_url, "ASSAY_ANSWERER": "llm", "ASSAY_LLM_TIMEOUT": "2"}
        with pytest.MonkeyPatch.context() as mp:
            for key, value in env.items():
                mp.setenv(key, value)
            out = ask(demo_db, SAFE_RANGE, "--policy", financial)
    assert out["status"] == "answered" and "offline_answerer" in out["fallbacks"]
    assert out["problems"] and "failed" in out["problems"][0]
    assert out["answerer"]["answerer"].startswith("extractive-v2")
    event = json.loads(run_cli("audit", "show", out["event_id"], "--json", db=demo_db).stdout)
    assert event["payload"]["problems"] == out["problems"]
