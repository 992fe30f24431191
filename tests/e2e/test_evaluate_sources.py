"""``assay evaluate`` with contexts that say who stated them and when: an answer backed by
a chat message that the official policy contradicts is never published (J1, J2, J5, J6),
through the real command and the shipped models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.judge.schema import Assessment
from tests.conftest import run_cli

POLICIES = ("informational", "financial", "legal", "safety_critical")
QUERY = "Can I book business class for a 5-hour flight?"
ANSWER = "Yes, business class is allowed on any flight over 4 hours, and finance never checks."
POLICY = {
    "id": "policy",
    "text": "Business class may be booked only for flights with a scheduled duration over "
    "6 hours, and always requires written pre-approval from the budget holder.",
}
SLACK = {
    "id": "slack",
    "text": "you can still fly business on anything over 4 hours, just book it. Nobody checks.",
}
SOURCES = {
    "policy": {"source_id": "travel-policy", "source_kind": "official", "published": "2026-01-05"},
    "slack": {"source_id": "slack-general", "source_kind": "unverified", "published": "2026-11-20"},
}


def evaluate(tmp_path: Path, contexts: list[dict[str, Any]], *args: str) -> Assessment:
    path = tmp_path / "ev.json"
    path.write_text(json.dumps({"query": QUERY, "answer": ANSWER, "contexts": contexts}))
    result = run_cli("evaluate", "--input", str(path), *args)
    assert result.exit_code == 0, result.output
    return Assessment.model_validate_json(result.stdout)  # nothing else on stdout


@pytest.mark.parametrize("sourced", [True, False], ids=["with sources", "bare"])
def test_j_a_chat_claim_the_official_policy_contradicts_is_never_published(
    tmp_path: Path, sourced: bool
) -> None:
    contexts = [c | SOURCES[c["id"]] if sourced else c for c in (POLICY, SLACK)]
    for policy in POLICIES:
        assessment = evaluate(tmp_path, contexts, "--policy", policy)
        assert assessment.recommended_action in ("human_review", "suppress"), policy
        assert assessment.confidence_score < 0.5
        if sourced:  # the official policy outweighs the chat: "over 4 hours" against "over 6"
            assert ANSWER in assessment.unsupported_claims
        else:  # nothing says which is official: the chat's support (P 0.50, at the support
            # label's threshold) may stand, but never without the contradiction beside it
            conflicts = {(c.claim, c.source_a, c.source_b) for c in assessment.source_conflicts}
            assert (
                ANSWER in assessment.unsupported_claims or (ANSWER, "slack", "policy") in conflicts
            )


def test_j_the_policy_alone_does_not_support_the_answer(tmp_path: Path) -> None:
    for contexts in ([POLICY], [POLICY | SOURCES["policy"]]):
        assessment = evaluate(tmp_path, contexts, "--policy", "legal")
        assert assessment.unsupported_claims == [ANSWER]
        assert assessment.recommended_action == "suppress"


def test_j_a_chat_supported_claim_is_outweighed_by_the_official_policy(tmp_path: Path) -> None:
    """A claim the chat does back: with no sources it is a conflict nobody settles; with
    them, the official policy's contradiction wins."""
    path = tmp_path / "ev.json"
    answer = "Yes, business class is allowed on any flight over 4 hours."
    outcomes = {}
    for sourced in (False, True):
        contexts = [c | SOURCES[c["id"]] if sourced else c for c in (POLICY, SLACK)]
        path.write_text(json.dumps({"query": QUERY, "answer": answer, "contexts": contexts}))
        result = run_cli("evaluate", "--input", str(path), "--policy", "informational")
        assert result.exit_code == 0, result.output
        outcomes[sourced] = Assessment.model_validate_json(result.stdout)
    for assessment in outcomes.values():
        assert assessment.recommended_action in ("human_review", "suppress")
    assert outcomes[True].confidence_score < 0.2
    assert outcomes[True].unsupported_claims == [answer]


def test_j5_evaluate_refuses_a_bad_source_field_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "ev.json"
    for context, message in [
        (SLACK | {"source_kind": "chat"}, "contexts[1].source_kind='chat' is not a known"),
        (SLACK | {"published": "2026-13-01"}, "contexts[1].published='2026-13-01' is not a date"),
        (SLACK | {"author": "jo"}, "has the unknown key 'author'; give an object with \"id\""),
    ]:
        path.write_text(
            json.dumps({"query": QUERY, "answer": ANSWER, "contexts": [POLICY, context]})
        )
        result = run_cli("evaluate", "--input", str(path))
        assert result.exit_code == 2 and result.stdout == ""
        assert message in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr


def test_j5_evaluate_reads_a_kind_the_database_registers(tmp_path: Path) -> None:
    db = tmp_path / "kinds.db"
    added = run_cli("sources", "add-kind", "team_chat", "--reliability", "0.2", db=db)
    assert added.exit_code == 0, added.output
    chat = SLACK | {"source_kind": "team_chat"}
    assessment = evaluate(tmp_path, [POLICY | SOURCES["policy"], chat], "--db", str(db))
    assert assessment.recommended_action == "suppress"
    path = tmp_path / "ev.json"  # no database here: the kind is unknown, and says how to add it
    refused = run_cli("evaluate", "--input", str(path))
    assert refused.exit_code == 2 and "assay sources add-kind" in refused.stderr
    missing = run_cli("evaluate", "--input", str(path), db=tmp_path / "typo.db")
    assert missing.exit_code != 0 and missing.stdout == ""
