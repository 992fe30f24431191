"""Typed audit records (assay.events): every event the product writes reads back as its
kind's record, and writing that record again gives the same bytes the chain hashed."""

from __future__ import annotations

from pathlib import Path

from assay import Assay, Candidate
from assay.events import AskRecord, KeyRecord, ReviewRecord, ScoreRecord
from assay.hashing import canonical_json
from tests.conftest import AS_OF
from tests.e2e.conftest import ask, copy_db


def test_j8_every_event_reads_back_as_its_record_byte_for_byte(
    demo_db: Path, tmp_path: Path
) -> None:
    db = copy_db(demo_db, tmp_path / "events.db")
    ask(db, "What is the maximum charging temperature of the HX-40?")
    ask(db, "Can I store the battery in a car?", "--policy", "safety_critical")
    with Assay(db) as engine:
        engine.assess("How long does a full charge take?", as_of=AS_OF)
        candidate = Candidate("c1", "Charge between 0 and 45 C.", 0.8, source_id="halden-sds-2026")
        engine.score("charging temperature", [candidate], as_of=AS_OF)
        key, _ = engine.keys.create("auditor one", ["auditor"])
        engine.keys.revoke(key.id)
        pending = engine.review.list()
        if pending:
            engine.acting_as(key.id).review.resolve(pending[0].id, "correct")
        events = list(engine.audit.iter_all())
        assert engine.audit.verify().ok
    kinds = {e.kind for e in events}
    assert {"ask", "score", "key"} <= kinds
    for event in events:
        record = event.record()
        assert record.kind == event.kind
        assert canonical_json(record.payload()) == canonical_json(event.payload), event.kind
        assert event.schema_version == 1
    records = [e.record() for e in events]
    answered = [r for r in records if isinstance(r, AskRecord) and r.status is not None]
    assessed = [r for r in records if isinstance(r, AskRecord) and r.status is None]
    assert answered and assessed and all(r.assessment is not None for r in answered)
    assert any(type(r) is ScoreRecord for r in records)
    assert [r.action for r in records if isinstance(r, KeyRecord)] == ["create", "revoke"]
    assert all(r.verdict == "correct" for r in records if isinstance(r, ReviewRecord))
