"""The audit log (E8, J8, B2): append-only, hash-chained, every tampering found and named."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import Assay, Candidate, NotFoundError, StorageError
from assay.audit.log import GENESIS_HASH, _row_hash
from assay.hashing import canonical_json
from tests.conftest import AS_OF, FINANCIAL_VERSION, sqlite_only
from tests.rawdb import RawDatabase


def fill(engine: Assay, n: int = 4) -> list[str]:
    ids = []
    for i in range(n):
        result = engine.score(
            f"question {i}",
            [
                Candidate(
                    f"c{i}",
                    "Charge between 0 and 45 degrees.",
                    0.8,
                    source_id="sds",
                    published="2026-11-01",
                )
            ],
            policy="financial",
            as_of=AS_OF,
        )
        assert result.event_id is not None
        ids.append(result.event_id)
    return ids


def raw(db_path: Path | str) -> RawDatabase:
    """A connection as an attacker with the owner's rights has it: triggers out of the way."""
    return RawDatabase(db_path)


def test_e8_event_holds_query_hash_policy_scores_and_verdicts(engine: Assay) -> None:
    event_id = fill(engine, 1)[0]
    event = engine.audit.get(event_id[:8])
    assert event.event_id == event_id and event.kind == "score"
    assert event.query == "question 0" and len(event.query_hash) == 64
    assert (event.policy_name, event.policy_version) == ("financial", FINANCIAL_VERSION)
    [item] = event.payload["evidence"]
    assert set(item["scores"]) == {"similarity", "source", "freshness"}
    assert item["admitted"] is True and item["label"] in {"high", "medium", "low"}
    assert event.payload["thresholds"] == {"threshold": 0.75, "similarity_floor": 0.45}
    assert event.payload["models"] == {
        "similarity": "caller-supplied",
        "corroboration": "assay.scoring.corroboration.lexical_similarity",
    }
    assert event.payload["assay_version"] == assay.__version__
    assert event.prev_hash == GENESIS_HASH


def test_b2_intact_chain_verifies(engine: Assay) -> None:
    fill(engine)
    report = engine.audit.verify()
    assert report.ok and report.events == 4 and report.head == engine.audit.head()[1]


def test_b2_log_is_append_only(engine: Assay, db_path: Path | str) -> None:
    fill(engine, 1)
    conn = RawDatabase(db_path, triggers=True)
    with pytest.raises(Exception, match="append-only"):
        conn.execute("UPDATE audit_events SET query = 'x'")
    with pytest.raises(Exception, match="append-only"):
        conn.execute("DELETE FROM audit_events")


def test_b2_editing_one_byte_is_found_and_the_row_named(engine: Assay, db_path: Path | str) -> None:
    ids = fill(engine)
    conn = raw(db_path)
    payload = conn.one("SELECT payload FROM audit_events WHERE seq = 3")
    conn.execute(
        "UPDATE audit_events SET payload = ? WHERE seq = 3",
        (payload.replace('"admitted":true', '"admitted":fals', 1) + "e",),
    )
    report = engine.audit.verify()
    assert not report.ok
    assert [(p.seq, p.event_id) for p in report.problems] == [(3, ids[2])]
    assert "row edited" in report.problems[0].problem


def test_b2_deleted_row_is_found(engine: Assay, db_path: Path | str) -> None:
    ids = fill(engine)
    raw(db_path).execute("DELETE FROM audit_events WHERE seq = 2")
    report = engine.audit.verify()
    assert not report.ok
    assert report.problems[0].seq == 3 and report.problems[0].event_id == ids[2]
    assert "seq 2 before it are missing" in report.problems[0].problem


def test_b2_reordered_rows_are_found(engine: Assay, db_path: Path | str) -> None:
    fill(engine)
    conn = raw(db_path)
    conn.execute("UPDATE audit_events SET seq = 99 WHERE seq = 2")
    conn.execute("UPDATE audit_events SET seq = 2 WHERE seq = 3")
    conn.execute("UPDATE audit_events SET seq = 3 WHERE seq = 99")
    report = engine.audit.verify()
    assert {p.seq for p in report.problems} >= {2, 3}


def test_b2_rows_cut_from_the_end_are_found_with_an_anchored_head(
    engine: Assay, db_path: Path
) -> None:
    fill(engine)
    _, head = engine.audit.head()
    raw(db_path).execute("DELETE FROM audit_events WHERE seq = 4")
    assert engine.audit.verify().ok  # a shorter chain is still a valid chain...
    report = engine.audit.verify(expected_head=head)  # ...unless the head was kept elsewhere
    assert not report.ok and "rows removed from the end" in report.problems[0].problem


def test_b2_a_recorded_head_stays_valid_as_the_log_grows(engine: Assay) -> None:
    fill(engine, 2)
    _, head = engine.audit.head()
    fill(engine, 2)
    assert engine.audit.verify(expected_head=head).ok


def test_b2_rehashed_forgery_is_caught_by_replaying_the_scores(
    engine: Assay, db_path: Path
) -> None:
    """Someone who rewrites a score and recomputes every hash still fails verification."""
    fill(engine, 2)
    conn = raw(db_path)
    rows = conn.execute("SELECT * FROM audit_events ORDER BY seq")
    payload = json.loads(rows[0]["payload"])
    payload["evidence"][0]["confidence"] = 0.99
    rows[0]["payload"] = canonical_json(payload)
    prev = GENESIS_HASH
    for row in rows:
        row["prev_hash"] = prev
        row.pop("row_hash")
        row["row_hash"] = prev = _row_hash(row)
        conn.execute(
            "UPDATE audit_events SET payload=:payload, prev_hash=:prev_hash,"
            " row_hash=:row_hash WHERE seq=:seq",
            row,
        )
    assert engine.audit.verify(replay=False).ok
    report = engine.audit.verify()
    assert [p.seq for p in report.problems] == [1]
    assert "confidence 0.99 recomputes as" in report.problems[0].problem


def test_list_filters_and_export_order(engine: Assay) -> None:
    fill(engine, 3)
    engine.score("other", [], policy="legal", as_of=AS_OF)
    assert [e.seq for e in engine.audit.list(limit=2)] == [4, 3]
    assert [e.policy_name for e in engine.audit.list(policy="legal")] == ["legal"]
    assert [e.seq for e in engine.audit.iter_all()] == [1, 2, 3, 4]


def test_unknown_event_id_is_a_clear_error(engine: Assay) -> None:
    with pytest.raises(NotFoundError, match="not found"):
        engine.audit.get("abcdef123")


def test_audit_write_failure_rolls_back(engine: Assay, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed append (here: a colliding event id) leaves the log exactly as it was."""
    first = fill(engine, 1)[0]
    monkeypatch.setattr("assay.audit.log.uuid.uuid4", lambda: uuid.UUID(hex=first))
    with pytest.raises(StorageError, match="rolled back"):
        fill(engine, 1)
    assert engine.audit.head()[0] == 1
    assert engine.audit.verify().ok


def test_b2_a_byte_edited_in_the_file_itself_is_named(engine: Assay, db_path: Path | str) -> None:
    """Tampering below SQL (a hex editor on the file) is found too, even invalid UTF-8."""
    db_path = sqlite_only(db_path)
    engine.score("first question", [], policy="financial", as_of=AS_OF)
    target = engine.score("MARKER-QUERY-2", [], policy="financial", as_of=AS_OF).event_id
    engine.score("third question", [], policy="financial", as_of=AS_OF)
    engine.close()  # the last connection checkpoints the WAL into the main file
    blob = bytearray(db_path.read_bytes())
    at = blob.index(b"MARKER-QUERY-2")
    blob[at] = 0xFF  # not valid UTF-8 on its own
    db_path.write_bytes(bytes(blob))
    with Assay(db_path) as reopened:
        report = reopened.audit.verify()
        assert [(p.seq, p.event_id) for p in report.problems] == [(2, target)]
        assert "row edited" in report.problems[0].problem
        assert reopened.audit.get(target).query.endswith("ARKER-QUERY-2")  # still readable


def test_a_damaged_payload_is_shown_not_refused(engine: Assay, db_path: Path | str) -> None:
    event_id = fill(engine, 1)[0]
    raw(db_path).execute("UPDATE audit_events SET payload = substr(payload, 1, 40)")
    event = engine.audit.get(event_id)
    assert set(event.payload) == {"unreadable_payload"}
    assert [e.event_id for e in engine.audit.iter_all()] == [event_id]
    assert not engine.audit.verify().ok


@pytest.mark.parametrize(
    "payload",
    [
        '{"x": ' + "9" * 5000 + "}",  # past Python's digit limit for int()
        '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}",  # past the parser's depth
        '{"x": "\\ud800"}',  # a lone surrogate, which no output encodes
    ],
    ids=["5000 digits", "nested 100k deep", "lone surrogate"],
)
def test_a_payload_no_parser_or_output_takes_is_shown_not_refused(
    engine: Assay, db_path: Path | str, payload: str
) -> None:
    """Issue 45: `audit list/show/export` exited 70 on such rows, though the docs say a
    damaged row is shown."""
    event_id = fill(engine, 1)[0]
    raw(db_path).execute("UPDATE audit_events SET payload = ?", (payload,))
    event = engine.audit.get(event_id)
    assert event.payload == {"unreadable_payload": payload}
    assert [e.event_id for e in engine.audit.list()] == [event_id]
    [exported] = engine.audit.iter_all()
    assert json.dumps(exported.payload, ensure_ascii=False).encode("utf-8")
    assert not engine.audit.verify().ok


def test_j8_caller_names_the_models_behind_the_scores(engine: Assay) -> None:
    result = engine.score(
        "q", [], policy="legal", as_of=AS_OF, models={"similarity": "acme-embed v3 cosine"}
    )
    assert result.event_id is not None
    models = engine.audit.get(result.event_id).payload["models"]
    assert models["similarity"] == "acme-embed v3 cosine"
    assert models["corroboration"].endswith("lexical_similarity")


def test_b2_a_rewritten_routing_decision_is_caught(tmp_path: Path) -> None:
    """An ask event whose decision was changed (and every hash recomputed) fails replay."""
    from assay.ingest.pipeline import IngestOptions, ingest

    doc = tmp_path / "kb.md"
    doc.write_text("# Charging\n\nCharge the pack between 0 and 45 degrees.\n")
    db = tmp_path / "ask.db"
    with Assay(settings=assay.load_settings(db=db, embedder="hashing")) as engine:
        engine.sources.add("sds", "official")
        ingest(
            [doc],
            store=engine.store,
            embedder=engine.embedder,
            registry=engine.sources,
            options=IngestOptions(source_id="sds", published=AS_OF),
        )
        result = engine.ask("charging temperature degrees", policy="informational", as_of=AS_OF)
        assert engine.audit.verify().ok
    conn = raw(db)
    row = conn.execute("SELECT * FROM audit_events WHERE seq = 1")[0]
    payload = json.loads(row["payload"])
    forged = "refuse" if result.decision.value != "refuse" else "proceed"
    payload["route"]["decision"] = forged
    row["payload"] = canonical_json(payload)
    row.pop("row_hash")
    row["row_hash"] = _row_hash(row)
    conn.execute("UPDATE audit_events SET payload=:payload, row_hash=:row_hash WHERE seq=1", row)
    with Assay(db) as engine:
        [problem] = engine.audit.verify().problems
    assert f"decision {forged} recomputes as {result.decision.value}" in problem.problem


def test_b4_actor_is_recorded_and_sealed_by_the_hash(engine: Assay, db_path: Path | str) -> None:
    """An API key's id is the event's actor; editing or erasing it breaks the chain,
    while rows without an actor keep the hash they had before the column existed."""
    fill(engine, 1)
    fill(engine.acting_as("0123456789ab"), 2)  # the acting key is per call, not a mutation
    assert engine.audit.actor is None
    events = engine.audit.list()
    assert [e.actor for e in events] == ["0123456789ab", "0123456789ab", None]
    assert [e.seq for e in engine.audit.list(actor="0123456789ab")] == [3, 2]
    first = events[-1].as_dict()
    columns = {k: v for k, v in first.items() if k not in ("row_hash", "actor")}
    columns["payload"] = canonical_json(columns["payload"])
    assert _row_hash(columns) == first["row_hash"]  # the pre-actor formula still holds
    assert engine.audit.verify().ok
    conn = raw(db_path)
    conn.execute("UPDATE audit_events SET actor = 'someone-else' WHERE seq = 2")
    conn.execute("UPDATE audit_events SET actor = NULL WHERE seq = 3")
    problems = engine.audit.verify().problems
    assert [(p.seq, "row edited" in p.problem) for p in problems] == [(2, True), (3, True)]


def _asked_row(tmp_path: Path, heading: str, text: str, question: str) -> dict[str, Any]:
    """The audit payload of ``question`` asked (informational) of one document."""
    from assay.ingest.pipeline import IngestOptions

    doc = tmp_path / "kb.md"
    doc.write_text(f"# {heading}\n\n{text}\n")
    db = tmp_path / "ask.db"
    with Assay(settings=assay.load_settings(db=db, embedder="hashing")) as engine:
        engine.sources.add("kb", "official")
        engine.ingest([doc], options=IngestOptions(source_id="kb", published=AS_OF))
        engine.ask(question, policy="informational", as_of=AS_OF)
    row = raw(db).execute("SELECT payload FROM audit_events WHERE seq = 1")[0]
    payload: dict[str, Any] = json.loads(row["payload"])
    return payload


def _replays_with_earlier_coverage(payload: dict[str, Any], question: str, legacy: float) -> None:
    """A row whose coverage an earlier release computed as ``legacy`` (and its composite
    with it) verifies; a coverage that no release gives is still caught."""
    from assay.audit.replay import replay_problems
    from assay.policy import policy_from_mapping
    from assay.scoring.signals import SIGNAL_NAMES, set_confidence

    signals = payload["signals"]
    weights = policy_from_mapping(payload["policy"], origin="test").signals.weights
    assert signals["coverage"] == 1.0 and legacy < 1.0
    for coverage, problems in ((legacy, 0), (0.123, 1)):
        signals["coverage"] = coverage
        signals["composite"] = set_confidence(
            {k: signals[k] for k in SIGNAL_NAMES}, weights, signals["judgment"]
        )
        found = replay_problems("ask", payload, question)
        assert len([p for p in found if "coverage" in p]) == problems, found


def test_b2_rows_whose_coverage_counted_the_askers_figures_still_replay(tmp_path: Path) -> None:
    """Coverage leaves the asker's own figures out since assay-relevance 1.1.0; a row
    written before, whose coverage counted the "14" of "a group of 14", still verifies."""
    from assay.scoring.signals import coverage_score
    from assay.types import round_score

    rule = "Groups of more than 10 people must book 48 hours ahead."
    question = "We are a group of 14. Must we book?"
    payload = _asked_row(tmp_path, "Groups", rule, question)
    legacy = coverage_score(question, [f"Groups\n{rule}"], own_figures=True)[0]
    _replays_with_earlier_coverage(payload, question, round_score(legacy))


def test_b2_rows_whose_coverage_counted_frame_words_still_replay(tmp_path: Path) -> None:
    """Coverage counts the question's subject since issue 41; a row written before, whose
    coverage counted words such as 'temperature' and 'safe', still verifies, and a
    coverage that neither way gives is still caught."""
    from assay.scoring.signals import coverage_score
    from assay.types import round_score

    text = "Charge the pack between 0 and 45 degrees."
    question = "What temperature is safe for charging the pack?"
    payload = _asked_row(tmp_path, "Charging", text, question)
    legacy = coverage_score(question, [f"Charging\n{text}"], subject_only=False)[0]
    _replays_with_earlier_coverage(payload, question, round_score(legacy))


@pytest.mark.parametrize(
    ("heading", "text", "question", "before"),
    [
        # "Boxing Day" read as "26 December" since 2026-12-07
        ("Holidays", "There are no collections on 25 and 26 December.",
         "Are there collections on Boxing Day?", {"holidays": False}),
        # "France" read as one of "EU countries" since 2026-12-07
        ("Driving abroad", "Cars may be taken to EU countries for a foreign use fee of £60.",
         "Can I take the car to France?", {"places": False}),
        # "evening" read as "18:00" since 2026-12-07, later
        ("Opening hours", "The shop closes at 6pm from Monday to Saturday.",
         "What time does the shop close in the evening?", {"times": False}),
        # "am" a stopword since 2026-12-07, later
        ("Late fees", "A late fee of £15 is charged for every 15 minutes.",
         "Am I charged a late fee?", {"keep": frozenset({"am"})}),
        # "check" read in "Check-in" since 2026-12-07, later still
        ("Arriving", "Check-in opens at 3pm.", "Can I check in in the afternoon?",
         {"compounds": False}),
        # "bike" read as "bicycle" since 2026-12-07, later still
        ("Sports equipment", "Bicycles must be booked 48 hours before departure.",
         "Must bikes be booked before departure?", {"clippings": False}),
        # the asker's people read as frame since 2026-12-07, later still
        ("Membership", "Members must be at least 16 years old to join.",
         "My son is 16. Can he join as a member?", {"askers_words": False}),
        # "kilos" read as "kg" since 2026-12-07, later still
        ("Programme chart", "Wool wash: maximum load 2 kg, 55 minutes.",
         "How many kilos of wool can I wash?", {"everyday": False}),
        # "bring" read as frame since 2026-12-08
        ("Drinks", "You may serve your own drinks free of charge to guests.",
         "Can we bring our own drinks?", {"carrying_words": False}),
    ],
)  # fmt: skip
def test_b2_rows_whose_coverage_missed_a_day_or_place_in_other_words_still_replay(
    tmp_path: Path, heading: str, text: str, question: str, before: dict[str, bool]
) -> None:
    """A row written before coverage read a holiday by its date, a country by its group
    or a part of the day by its clock times, or a word by its hyphenated compound, whose
    coverage missed it, still verifies."""
    from assay.scoring.signals import coverage_score
    from assay.types import round_score

    payload = _asked_row(tmp_path, heading, text, question)
    legacy = coverage_score(question, [f"{heading}\n{text}"], **before)[0]
    _replays_with_earlier_coverage(payload, question, round_score(legacy))
