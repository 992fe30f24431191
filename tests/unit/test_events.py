"""Typed audit records (assay.events): the schema of every payload, held against the
readers that still use paths (monitoring's SQL) and against rows written before it."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from pydantic import BaseModel

from assay import Assay, Candidate, InvalidInputError
from assay.audit.log import GENESIS_HASH, _row_hash
from assay.events import RECORDS, AskRecord, ReviewRecord, ScoreRecord, parse_record, record_type
from assay.hashing import canonical_json, sha256_hex
from assay.store.sqlite import monitor as sqlite_monitor
from tests.conftest import AS_OF
from tests.rawdb import RawDatabase


def _resolves(model: type[BaseModel], path: list[str]) -> bool:
    """Whether the JSON path names a field of ``model`` (through nested records, lists,
    optionals and typed dicts)."""
    if not path:
        return True
    field = model.model_fields.get(path[0])
    if field is None:
        return False
    inner = record_type(field.annotation)
    return (
        True
        if inner is None and len(path) == 1
        else inner is not None and _resolves(inner, path[1:])
    )


def test_j8_monitor_sql_paths_are_fields_of_the_records() -> None:
    """Monitoring reads payloads with json_extract for speed: each path it reads must be
    a field of the record it reads it from, so a renamed field fails here, not in prod."""
    pattern = re.compile(r"json_\w+\((payload|e\.value), '\$\.([\w.]+)'")
    item = record_type(ScoreRecord.model_fields["evidence"].annotation)
    read = {
        "ask and score events": (sqlite_monitor._FIELDS + sqlite_monitor._ITEMS, AskRecord),
        "review events": (sqlite_monitor._VERDICTS, ReviewRecord),
    }
    for what, (sql, record) in read.items():
        paths = pattern.findall(sql)
        assert len(paths) >= 2, what
        for source, path in paths:
            target = item if source == "e.value" else record
            assert target is not None and _resolves(target, path.split(".")), (what, path)
    assert not _resolves(AskRecord, ["route", "verdict"])  # the check can fail


def test_b2_rows_written_before_the_schema_version_still_verify(
    engine: Assay, db_path: Path
) -> None:
    """A row of an older release (no schema_version column value, hashed without it)
    keeps verifying beside the new ones."""
    candidate = Candidate("c", "Charge between 0 and 45 degrees.", 0.8, source_id="sds")
    engine.score("q", [candidate], policy="financial", as_of=AS_OF)
    [new] = engine.audit.list()
    old = {
        "seq": 2, "event_id": uuid.uuid4().hex, "created_at": "2026-11-30T00:00:00+00:00",
        "kind": "review", "query": "q", "query_hash": sha256_hex("q"), "policy_name": "p",
        "policy_version": "1", "prev_hash": new.row_hash,
        "payload": canonical_json({
            "review_item": 1, "event_id": new.event_id, "verdict": "correct", "note": None,
            "confidence_score": 0.5,
        }),
    }  # fmt: skip
    old["payload"] = old["payload"].replace('"note":null', '"note":null,"retired_key":1')
    old["row_hash"] = _row_hash(old)  # the formula of the release before the column
    RawDatabase(db_path).execute(
        "INSERT INTO audit_events (seq, event_id, created_at, kind, query, query_hash,"
        " policy_name, policy_version, payload, prev_hash, row_hash) VALUES (:seq, :event_id,"
        " :created_at, :kind, :query, :query_hash, :policy_name, :policy_version, :payload,"
        " :prev_hash, :row_hash)",
        old,
    )
    engine.score("q2", [candidate], policy="financial", as_of=AS_OF)
    assert engine.audit.verify().ok
    versions = [e.schema_version for e in engine.audit.iter_all()]
    assert versions == [1, None, 1]
    assert "schema_version" not in engine.audit.get(old["event_id"]).as_dict()
    assert engine.audit.head()[1] != GENESIS_HASH


def test_j8_a_payload_that_is_not_its_record_is_named(engine: Assay) -> None:
    with pytest.raises(ValueError, match="review payload: verdict"):
        parse_record("review", {"review_item": 1, "event_id": "e", "note": None,
                                "confidence_score": 1})  # fmt: skip
    with pytest.raises(ValueError, match=r"extra"):
        parse_record("review", {"review_item": 1, "event_id": "e", "verdict": "correct",
                                "note": None, "confidence_score": 1, "extra": 1})  # fmt: skip
    with pytest.raises(InvalidInputError, match="event kind='gossip' is unknown"):
        parse_record("gossip", {})
    with pytest.raises(InvalidInputError, match="record"):
        engine.audit.append({"kind": "score"}, query="q", policy_name="p", policy_version="1")  # type: ignore[arg-type]


def test_j8_numbers_keep_their_json_type() -> None:
    """The row hash covers the payload's JSON: 1 must stay 1 and 1.0 stay 1.0."""
    record = ReviewRecord(review_item=1, event_id="e", verdict="correct", note=None,
                          confidence_score=1)  # fmt: skip
    assert json.dumps(record.payload()["confidence_score"]) == "1"
    again = ReviewRecord.model_validate(record.payload() | {"confidence_score": 1.0})
    assert json.dumps(again.payload()["confidence_score"]) == "1.0"
    assert set(RECORDS) == {
        "score",
        "ask",
        "review",
        "key",
        "access",
        "read",
        "alert",
        "policy",
        "calibration",
    }


def test_b2_verify_names_a_review_row_that_is_not_its_record(
    engine: Assay, db_path: Path | str
) -> None:
    """Every kind is read as its record, not only the scoring ones: a rehashed review row
    with a field this version never wrote is named."""
    record = ReviewRecord(review_item=1, event_id="e", verdict="correct", note=None,
                          confidence_score=1)  # fmt: skip
    engine.audit.append(record, query="q", policy_name="p", policy_version="1")
    conn = RawDatabase(db_path)
    row = conn.execute("SELECT * FROM audit_events WHERE seq = 1")[0]
    row["payload"] = canonical_json(json.loads(row["payload"]) | {"bogus": 1})
    row.pop("row_hash")
    row["row_hash"] = _row_hash(row)
    conn.execute("UPDATE audit_events SET payload=:payload, row_hash=:row_hash WHERE seq=1", row)
    [problem] = engine.audit.verify().problems
    assert problem.seq == 1 and "does not match its record" in problem.problem
