"""The human-review queue (J6): queueing, verdicts, their audit events and the labels."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from assay import Assay, Candidate
from assay.errors import ConflictError, InvalidInputError, NotFoundError, StorageError
from assay.events import ReviewRecord
from assay.judge.schema import Assessment
from assay.review import ReviewItem
from tests.conftest import AS_OF
from tests.rawdb import RawDatabase


def assessment(score: float = 0.42, action: str = "human_review") -> dict[str, Any]:
    """A valid J1 object (checked by the schema) with the given score and action."""
    return Assessment.model_validate(
        {
            "confidence_score": score,
            "score_rationale": "one claim rests on a single customer post",
            "evidence_sufficiency": {
                "is_sufficient": False,
                "missing_information": ["the charging limit below 0 degrees"],
            },
            "source_conflicts": [],
            "unsupported_claims": ["charging below zero is safe"],
            "speculation_flags": [],
            "recommended_action": action,
        }
    ).to_dict()


def ask_event(engine: Assay, query: str = "may I charge below zero?") -> str:
    """A real audit event standing in for the ask that produced the answer."""
    result = engine.score(
        query,
        [Candidate("c1", "Charge between 0 and 45 degrees.", 0.8, source_id="sds")],
        policy="financial",
        as_of=AS_OF,
    )
    assert result.event_id is not None
    return result.event_id


def enqueue(
    engine: Assay, query: str = "may I charge below zero?", score: float = 0.42
) -> ReviewItem:
    return engine.review.add(
        event_id=ask_event(engine, query),
        query=query,
        answer="Yes, charging below zero is safe.",
        reason="recommended_action human_review",
        assessment=assessment(score),
        policy_name="financial",
        policy_version="1",
    )


def test_j6_a_human_review_answer_is_queued_pending_with_its_assessment(engine: Assay) -> None:
    item = enqueue(engine)
    assert item.status == "pending" and item.verdict is None and item.resolved_at is None
    assert item.confidence_score == 0.42
    assert item.assessment == assessment()
    assert engine.audit.get(item.event_id).kind == "score"
    assert engine.review.get(item.id) == item
    assert item.to_dict()["assessment"]["recommended_action"] == "human_review"


def test_j6_list_is_newest_first_and_filters_by_status(engine: Assay) -> None:
    queue = engine.review
    first, second, third = (enqueue(engine, f"question {i}") for i in range(3))
    queue.resolve(second.id, "correct")
    assert [i.id for i in queue.list()] == [third.id, first.id]
    assert [i.id for i in queue.list("resolved")] == [second.id]
    assert [i.id for i in queue.list("all")] == [third.id, second.id, first.id]
    assert [i.id for i in queue.list("all", limit=1)] == [third.id]


@pytest.mark.parametrize(
    ("change", "field", "shown"),
    [
        ({"assessment": {"score_rationale": "no score"}}, "confidence_score", "None"),
        ({"assessment": assessment() | {"confidence_score": 1.5}}, "confidence_score", "1.5"),
        ({"assessment": assessment() | {"confidence_score": "0.4"}}, "confidence_score", "'0.4'"),
        ({"assessment": assessment() | {"confidence_score": True}}, "confidence_score", "True"),
        ({"assessment": [0.4]}, "assessment", "[0.4]"),
        ({"event_id": ""}, "event_id", "''"),
    ],
)
def test_j6_add_refuses_a_bad_assessment_naming_the_value(
    engine: Assay, change: dict[str, Any], field: str, shown: str
) -> None:
    arguments: dict[str, Any] = {
        "event_id": "abc123",
        "query": "q",
        "answer": "a",
        "reason": "recommended_action human_review",
        "assessment": assessment(),
        "policy_name": "financial",
        "policy_version": "1",
    } | change
    with pytest.raises(InvalidInputError) as caught:
        engine.review.add(**arguments)
    assert field in caught.value.field and f"={shown} " in str(caught.value)
    assert engine.review.list("all") == []


def test_j6_list_refuses_an_unknown_status_or_limit(engine: Assay) -> None:
    with pytest.raises(InvalidInputError, match=r"status='pendng'.*did you mean 'pending'"):
        engine.review.list("pendng")
    with pytest.raises(InvalidInputError, match="limit=0"):
        engine.review.list(limit=0)


def test_unknown_item_is_not_found_with_a_hint(engine: Assay) -> None:
    with pytest.raises(NotFoundError, match=r"review item 99 not found.*assay review list"):
        engine.review.get(99)
    with pytest.raises(NotFoundError):
        engine.review.resolve(99, "correct")
    assert engine.audit.head()[0] == 0


def test_j6_resolve_records_the_verdict_and_audits_it(engine: Assay) -> None:
    item = enqueue(engine)
    at = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    done = engine.review.resolve(item.id, "incorrect", note="below zero is forbidden", now=at)
    assert (done.status, done.verdict, done.note) == (
        "resolved",
        "incorrect",
        "below zero is forbidden",
    )
    assert done.resolved_at == "2026-12-01T09:30:00.000000+00:00"
    event = engine.audit.get(str(done.resolution_event_id))
    assert event.kind == "review" and event.query == item.query
    assert (event.policy_name, event.policy_version) == ("financial", "1")
    assert event.payload == {
        "review_item": item.id,
        "event_id": item.event_id,
        "verdict": "incorrect",
        "note": "below zero is forbidden",
        "confidence_score": 0.42,
        "correction": None,
    }
    assert engine.audit.list(limit=1)[0].event_id == event.event_id
    report = engine.audit.verify()  # as `assay audit verify` runs it, replay included
    assert report.ok, report.problems
    assert report.events == 2


def test_j6_a_bad_verdict_is_refused_naming_it(engine: Assay) -> None:
    item = enqueue(engine)
    with pytest.raises(InvalidInputError, match=r"verdict='corect'.*did you mean 'correct'"):
        engine.review.resolve(item.id, "corect")
    assert engine.review.get(item.id).status == "pending"
    assert engine.audit.head()[0] == 1


def test_j6_a_resolved_item_cannot_be_resolved_again(engine: Assay) -> None:
    item = enqueue(engine)
    engine.review.resolve(item.id, "correct")
    events = engine.audit.head()[0]
    with pytest.raises(ConflictError, match=f"review item {item.id} was already resolved"):
        engine.review.resolve(item.id, "incorrect")
    assert engine.review.get(item.id).verdict == "correct"
    assert engine.audit.head()[0] == events


def test_j6_a_failure_after_the_audit_append_leaves_no_verdict_and_no_event(
    engine: Assay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict and its audit event land together or not at all."""
    item = enqueue(engine)
    head = engine.audit.head()
    real_append = engine.audit.append

    def append_then_fail(*args: Any, **kwargs: Any) -> Any:
        real_append(*args, **kwargs)
        raise RuntimeError("crash after the audit append")

    monkeypatch.setattr(engine.audit, "append", append_then_fail)
    with pytest.raises(RuntimeError, match="crash after"):
        engine.review.resolve(item.id, "correct")
    monkeypatch.undo()
    assert engine.audit.head() == head
    assert engine.review.get(item.id) == item
    assert engine.review.labels() == []
    assert engine.audit.verify().ok
    assert engine.review.resolve(item.id, "correct").verdict == "correct"  # not wedged


def test_j6_a_failed_row_update_rolls_back_the_audit_event(engine: Assay) -> None:
    """A database error on the queue row (after the event is written) undoes both."""
    item = enqueue(engine)
    head = engine.audit.head()
    if engine.settings.database_url:
        RawDatabase(engine.settings.db).execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'refused by test'; END $$;"
            " CREATE TRIGGER refuse_verdict BEFORE UPDATE ON review_queue"
            " FOR EACH ROW EXECUTE FUNCTION refuse()"
        )
    else:
        RawDatabase(engine.settings.db).execute(
            "CREATE TRIGGER refuse_verdict BEFORE UPDATE ON review_queue"
            " BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
        )
    with pytest.raises(StorageError, match="rolled back"):
        engine.review.resolve(item.id, "incorrect")
    assert engine.audit.head() == head
    assert engine.review.get(item.id).status == "pending"


def test_j6_verdicts_are_kept_as_calibration_labels(engine: Assay) -> None:
    queue = engine.review
    right = enqueue(engine, "first", score=0.8)
    wrong = enqueue(engine, "second", score=0.35)
    enqueue(engine, "still pending", score=0.5)
    queue.resolve(right.id, "correct")
    queue.resolve(wrong.id, "incorrect")
    assert queue.labels() == [(0.8, True, right.event_id), (0.35, False, wrong.event_id)]


def test_a_unit_of_work_joins_the_writes_inside_it(engine: Assay) -> None:
    """An audit event and a queued item written in one unit of work land together, and a
    failure after both rolls both back."""

    def both_then_fail() -> None:
        with engine.db.unit_of_work():
            verdict = ReviewRecord(
                review_item=0, event_id="e", verdict="correct", note=None, confidence_score=1
            )
            event = engine.audit.append(verdict, query="q", policy_name="p", policy_version="1")
            engine.review.add(
                event_id=event.event_id, query="q", answer="a", reason="r",
                assessment=assessment(), policy_name="p", policy_version="1",
            )  # fmt: skip
            assert engine.review.counts()["all"] == 1
            raise RuntimeError("failed after both writes")

    with pytest.raises(RuntimeError, match="after both"):
        both_then_fail()
    assert engine.audit.head()[0] == 0
    assert engine.review.counts()["all"] == 0


def test_the_queue_survives_reopening_the_database(engine: Assay, db_path: Path) -> None:
    item = enqueue(engine)
    engine.review.resolve(item.id, "correct", note="checked")
    engine.close()
    with Assay(db_path, create=False) as reopened:
        again = reopened.review.get(item.id)
        assert (again.verdict, again.note) == ("correct", "checked")
        assert reopened.audit.verify().ok


def test_j6_counts_by_status(engine: Assay) -> None:
    assert engine.review.counts() == {"pending": 0, "resolved": 0, "all": 0}
    first, _ = enqueue(engine), enqueue(engine, "second?")
    engine.review.resolve(first.id, "correct")
    assert engine.review.counts() == {"pending": 1, "resolved": 1, "all": 2}


def test_a_failed_inner_unit_of_work_is_undone_alone(engine: Assay) -> None:
    """A unit of work inside another is a savepoint: when it fails and the outer one
    carries on, only the inner writes are undone."""
    verdict = ReviewRecord(
        review_item=0, event_id="e", verdict="correct", note=None, confidence_score=1
    )

    def inner_fails() -> None:
        with engine.db.unit_of_work():
            engine.audit.append(verdict, query="undone", policy_name="p", policy_version="1")
            raise RuntimeError("the inner unit fails")

    with engine.db.unit_of_work():
        engine.audit.append(verdict, query="kept", policy_name="p", policy_version="1")
        with pytest.raises(RuntimeError):
            inner_fails()
        engine.audit.append(verdict, query="also kept", policy_name="p", policy_version="1")
    assert [e.query for e in engine.audit.iter_all()] == ["kept", "also kept"]
    assert engine.audit.verify().ok
