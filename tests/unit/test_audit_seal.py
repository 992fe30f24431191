"""Seals and checkpoints (B2): a forger with write access to the file is found out."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay import Assay, InvalidInputError
from assay.audit.log import _row_hash
from assay.audit.seal import AuditKey, Checkpoint, newest_checkpoint, read_checkpoints
from assay.errors import StorageError
from assay.hashing import canonical_json, sha256_hex
from assay.settings import load_settings
from tests.rawdb import RawDatabase
from tests.unit.test_audit import fill, raw

Tamper = Callable[[RawDatabase], None]


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys" / "audit.key"
    path.parent.mkdir()
    AuditKey.generate(path)
    return path


def open_engine(db_path: Path | str, key_file: Path | None) -> Assay:
    engine = Assay(db_path, settings=load_settings(db=db_path, audit_key_file=key_file))
    if "sds" not in {s.id for s in engine.sources.list()}:
        engine.sources.add("sds", "official", owner="Acme", reviewed_at="2026-10-01")
    return engine


@pytest.fixture
def sealed(db_path: Path | str, key_file: Path) -> Iterator[Assay]:
    with open_engine(db_path, key_file) as engine:
        yield engine


def rows(conn: RawDatabase) -> list[dict[str, object]]:
    return conn.execute("SELECT * FROM audit_events ORDER BY seq")


def rewrite(conn: RawDatabase, changed: list[dict[str, object]]) -> None:
    for row in changed:
        names = [k for k in row if k != "seq"]
        sets = ", ".join(f"{k} = :{k}" for k in names)
        conn.execute(f"UPDATE audit_events SET {sets} WHERE seq = :seq", row)


def rehash_from(conn: RawDatabase, start: int, edit: Callable[[dict], None]) -> None:
    """Edit the rows from ``start`` on and recompute every hash, as a careful forger would."""
    all_rows = rows(conn)
    prev = all_rows[start - 2]["row_hash"] if start > 1 else "0" * 64
    for row in all_rows[start - 1 :]:
        edit(row)
        row["query_hash"] = sha256_hex(str(row["query"]))
        row["prev_hash"] = prev
        row["row_hash"] = prev = _row_hash({k: v for k, v in row.items() if k != "row_hash"})
    rewrite(conn, all_rows[start - 1 :])


def forged_append(conn: RawDatabase, seal: str | None = None) -> None:
    last = rows(conn)[-1]
    row = dict(last) | {"seq": last["seq"] + 1, "event_id": "f" * 32, "query": "forged"}
    row |= {"query_hash": sha256_hex("forged"), "prev_hash": last["row_hash"], "seal": seal}
    row["row_hash"] = _row_hash({k: v for k, v in row.items() if k != "row_hash"})
    names = ", ".join(row)
    conn.execute(
        f"INSERT INTO audit_events ({names}) VALUES ({', '.join(':' + k for k in row)})", row
    )


def swap_rows(conn: RawDatabase) -> None:
    two, three = rows(conn)[1:3]
    conn.execute("DELETE FROM audit_events WHERE seq IN (2, 3)")
    for row, seq in ((three, 2), (two, 3)):
        row = row | {"seq": seq}
        conn.execute(
            f"INSERT INTO audit_events ({', '.join(row)}) VALUES "
            f"({', '.join(':' + k for k in row)})",
            row,
        )


def new_query(row: dict) -> None:
    row["query"] = "rewritten"


TAMPERS: dict[str, Tamper] = {
    "edit": lambda c: c.execute("UPDATE audit_events SET query = 'edited' WHERE seq = 2"),
    "delete middle": lambda c: c.execute("DELETE FROM audit_events WHERE seq = 2"),
    "delete tail": lambda c: c.execute("DELETE FROM audit_events WHERE seq >= 3"),
    "truncate": lambda c: c.execute("DELETE FROM audit_events"),
    "reorder": swap_rows,
    "consistent rehash": lambda c: rehash_from(c, 3, new_query),
    "rehash, seals stripped": lambda c: rehash_from(c, 1, lambda r: r.update(seal=None)),
    "forged append": forged_append,
    "forged append, copied seal": lambda c: forged_append(c, str(rows(c)[-1]["seal"])),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_b2_tamper_matrix_every_forgery_is_found_given_a_checkpoint(
    sealed: Assay, db_path: Path | str, name: str
) -> None:
    fill(sealed, 4)
    point = sealed.audit.checkpoint()
    assert sealed.audit.verify(checkpoints=[point]).ok
    TAMPERS[name](raw(db_path))
    report = sealed.audit.verify(checkpoints=[point])
    assert not report.ok, name
    assert all(p.seq >= 0 for p in report.problems)


@pytest.mark.parametrize("name", [n for n in TAMPERS if "forged" not in n and "seal" not in n])
def test_b2_an_unkeyed_log_still_finds_all_but_appends_given_a_checkpoint(
    db_path: Path | str, name: str
) -> None:
    """Without a key only appends after the checkpoint pass; they need a key."""
    with open_engine(db_path, None) as engine:
        fill(engine, 4)
        point = engine.audit.checkpoint()
        assert point.seal is None and point.sealed_since is None
        TAMPERS[name](raw(db_path))
        assert not engine.audit.verify(checkpoints=[point]).ok, name


def test_b2_without_a_checkpoint_a_sealed_log_still_finds_appends_and_rehashes(
    sealed: Assay, db_path: Path
) -> None:
    fill(sealed, 3)
    conn = raw(db_path)
    forged_append(conn)
    [problem] = sealed.audit.verify().problems
    assert problem.seq == 4 and "not sealed, though rows before it are" in problem.problem
    conn.execute("DELETE FROM audit_events WHERE seq = 4")
    rehash_from(conn, 2, new_query)
    problems = sealed.audit.verify().problems
    assert [p.seq for p in problems] == [2, 3]
    assert all("seal does not match" in p.problem for p in problems)


def test_b2_checkpoints_name_the_rows_cut_from_the_end(sealed: Assay, db_path: Path | str) -> None:
    fill(sealed, 4)
    point = sealed.audit.checkpoint()
    raw(db_path).execute("DELETE FROM audit_events WHERE seq >= 3")
    [problem] = sealed.audit.verify(checkpoints=[point]).problems
    assert "rows 3-4 are missing (cut from the end" in problem.problem


def test_b2_a_forged_checkpoint_is_refused(sealed: Assay) -> None:
    fill(sealed, 2)
    point = sealed.audit.checkpoint()
    forged = Checkpoint(point.seq + 5, point.head, point.created_at, point.sealed_since, point.seal)
    [problem] = sealed.audit.verify(checkpoints=[forged]).problems
    assert "seal does not match" in problem.problem


def test_b2_old_unkeyed_rows_verify_and_say_so(db_path: Path | str, key_file: Path) -> None:
    with open_engine(db_path, None) as engine:
        fill(engine, 2)
        report = engine.audit.verify()
        assert report.ok and report.keyed == "unkeyed" and report.unsealed == 2
    with open_engine(db_path, key_file) as engine:
        fill(engine, 2)
        report = engine.audit.verify()
        assert report.ok and report.keyed == "partly sealed"
        assert (report.sealed, report.unsealed, report.unchecked) == (2, 2, 0)
    with open_engine(db_path, None) as engine:  # seals are there, but nothing to check them
        report = engine.audit.verify()
        assert report.ok and report.unchecked == 2


def test_b2_a_row_sealed_by_another_key_is_named(db_path: Path | str, key_file: Path) -> None:
    with open_engine(db_path, key_file) as engine:
        fill(engine, 1)
    other = key_file.with_name("other.key")
    AuditKey.generate(other)
    with open_engine(db_path, other) as engine:
        [problem] = engine.audit.verify().problems
        assert "sealed with a key that is not configured" in problem.problem
        assert AuditKey.load(key_file).key_id in problem.problem


def test_b2_a_rotated_key_still_checks_the_rows_it_sealed(
    db_path: Path | str, key_file: Path, tmp_path: Path
) -> None:
    with open_engine(db_path, key_file) as engine:
        fill(engine, 2)
        old_point = engine.audit.checkpoint()
    new_key = key_file.with_name("new.key")
    AuditKey.generate(new_key)
    settings = load_settings(
        db=db_path, audit_key_file=new_key, audit_retired_key_files=str(key_file)
    )
    with Assay(db_path, settings=settings) as engine:
        fill(engine, 2)
        report = engine.audit.verify(checkpoints=[old_point, engine.audit.checkpoint()])
        assert report.ok and report.sealed == 4 and report.key_id == AuditKey.load(new_key).key_id
        conn = raw(db_path)
        rehash_from(conn, 2, new_query)  # a forger holding neither key
        problems = engine.audit.verify().problems
        assert [p.seq for p in problems] == [2, 3, 4]
        assert all("seal does not match" in p.problem for p in problems)


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("calibration", {}),
        ("calibration", {"map": {"id": "x", "params": 1}}),
        ("ask", {"calibration": {"evidence": 7}}),
        ("ask", {"calibration": {"evidence": {"id": None}}}),
        ("score", []),
        ("review", "not an object"),
    ],
)
def test_b2_verify_reports_a_forged_payload_never_crashes(
    engine: Assay, db_path: Path | str, kind: str, payload: object
) -> None:
    fill(engine, 1)
    conn = raw(db_path)
    forged_append(conn)
    rehash_from(conn, 2, lambda r: r.update(kind=kind, payload=canonical_json(payload)))
    report = engine.audit.verify()
    assert {p.seq for p in report.problems} <= {2}, report.problems


def test_b2_verify_names_a_query_that_does_not_match_its_hash(
    engine: Assay, db_path: Path | str
) -> None:
    fill(engine, 2)
    conn = raw(db_path)
    rehash_from(conn, 2, new_query)
    conn.execute("UPDATE audit_events SET query_hash = 'x' WHERE seq = 2")
    rehash_from(conn, 2, lambda r: None)  # rehash keeps query_hash honest...
    row = rows(conn)[1]
    row["query_hash"] = "0" * 64  # ...so forge it after
    row["row_hash"] = _row_hash({k: v for k, v in row.items() if k != "row_hash"})
    rewrite(conn, [row])
    problems = [p.problem for p in engine.audit.verify().problems if p.seq == 2]
    assert any("query does not match its query_hash" in p for p in problems)


def test_b2_verify_survives_a_dropped_table(engine: Assay, db_path: Path | str) -> None:
    fill(engine, 1)
    raw(db_path).execute("DROP TABLE audit_events")
    [problem] = engine.audit.verify().problems
    assert "audit table cannot be read" in problem.problem


def test_keys_are_never_overwritten_and_only_their_owner_reads_them(key_file: Path) -> None:
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    before = key_file.read_text()
    with pytest.raises(InvalidInputError, match="never overwritten"):
        AuditKey.generate(key_file)
    assert key_file.read_text() == before
    assert AuditKey.load(key_file).key_id == AuditKey.load(key_file).key_id


def test_bad_key_files_and_checkpoint_files_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.key"
    bad.write_text("not hex\n")
    with pytest.raises(InvalidInputError, match="does not hold 64 hex digits"):
        AuditKey.load(bad)
    with pytest.raises(InvalidInputError, match="cannot be read"):
        AuditKey.load(tmp_path / "missing.key")
    key = tmp_path / "current.key"
    AuditKey.generate(key)
    settings = load_settings(
        db=tmp_path / "a.db", audit_key_file=key, audit_retired_key_files=str(tmp_path / "gone.key")
    )
    with pytest.raises(InvalidInputError) as missing:  # the retired key's own setting
        Assay(tmp_path / "a.db", settings=settings)
    assert missing.value.field == "audit_retired_key_files"
    assert "ASSAY_AUDIT_RETIRED_KEY_FILES" in str(missing.value)
    points = tmp_path / "points.jsonl"
    points.write_text(json.dumps({"seq": "3", "head": "x", "created_at": "t"}) + "\n")
    with pytest.raises(InvalidInputError, match=r"line 1.*is not a checkpoint"):
        read_checkpoints(points)
    points.write_text("\n")
    with pytest.raises(InvalidInputError, match="holds no checkpoint"):
        read_checkpoints(points)


def test_b2_a_sealed_log_refuses_unsealed_appends_and_keeps_nothing_of_them(
    db_path: Path | str, key_file: Path
) -> None:
    """A process without the key (another shell, a service started without it) would
    write rows that read as forgeries for good: it is refused, naming the setting."""
    with open_engine(db_path, key_file) as engine:
        fill(engine, 2)
    with open_engine(db_path, None) as engine:
        with pytest.raises(InvalidInputError, match="ASSAY_AUDIT_KEY_FILE") as refused:
            fill(engine, 1)
        assert "sealed (from row 1)" in str(refused.value)
        with pytest.raises(InvalidInputError, match="ASSAY_AUDIT_KEY_FILE"):
            engine.keys.create("ops", ["reader"])
        assert not engine.keys.list()  # the key and its audit row land together, or neither
        with pytest.raises(InvalidInputError, match="sealed"):
            engine.audit.require_key_if_sealed()
    with open_engine(db_path, key_file) as engine:
        fill(engine, 1)
        report = engine.audit.verify()
        assert report.ok and report.sealed == 3 and report.unsealed == 0


def test_b2_an_unsealed_log_takes_rows_without_a_key_and_may_be_sealed_later(
    db_path: Path | str, key_file: Path
) -> None:
    with open_engine(db_path, None) as engine:
        engine.audit.require_key_if_sealed()  # nothing sealed: nothing to refuse
        fill(engine, 2)
    with open_engine(db_path, key_file) as engine:
        engine.audit.require_key_if_sealed()
        fill(engine, 1)
        assert engine.audit.verify().keyed == "partly sealed"


def test_b2_seals_stripped_from_every_row_are_found_without_a_checkpoint(
    sealed: Assay, db_path: Path | str
) -> None:
    """Issue 45: a chain with every seal stripped verified as "unkeyed", rc 0, while the
    key was configured."""
    fill(sealed, 3)
    raw(db_path).execute("UPDATE audit_events SET seal = NULL")  # the seal is outside the hash
    report = sealed.audit.verify()
    assert not report.ok and report.sealed == 0
    assert "no row is sealed though an audit key is configured" in report.problems[0].problem


def test_b2_an_unsealed_checkpoint_of_sealed_rows_is_refused_while_a_key_is_set(
    sealed: Assay, db_path: Path | str, key_file: Path
) -> None:
    fill(sealed, 2)
    seq, head = sealed.audit.head()
    bare = Checkpoint.make(seq, head, None, sealed_since=1)  # written without the key
    [problem] = sealed.audit.verify(checkpoints=[bare]).problems
    assert "not sealed, though it covers sealed rows" in problem.problem
    assert sealed.audit.verify(checkpoints=[sealed.audit.checkpoint()]).ok


def test_b2_an_unsealed_checkpoint_from_before_the_key_still_counts(
    db_path: Path | str, key_file: Path
) -> None:
    with open_engine(db_path, None) as engine:
        fill(engine, 2)
        before = engine.audit.checkpoint()
    with open_engine(db_path, key_file) as engine:
        fill(engine, 1)
        assert engine.audit.verify(checkpoints=[before]).ok


def test_b2_a_retired_key_seals_no_rows_after_the_rotation(
    db_path: Path | str, key_file: Path
) -> None:
    """Issue 45: rows sealed with the retired key after the new key took over verified as
    intact; whoever still holds the old key could append at will."""
    with open_engine(db_path, key_file) as engine:
        fill(engine, 2)
    new_key = key_file.with_name("new.key")
    AuditKey.generate(new_key)
    rotated = load_settings(
        db=db_path, audit_key_file=new_key, audit_retired_key_files=str(key_file)
    )
    with Assay(db_path, settings=rotated) as engine:
        fill(engine, 2)
    with open_engine(db_path, key_file) as engine:  # the old key's holder appends
        fill(engine, 1)
    with Assay(db_path, settings=rotated) as engine:
        [problem] = engine.audit.verify().problems
        assert problem.seq == 5 and "after the current key sealed row 3" in problem.problem


def test_b2_a_retired_key_carries_the_last_row_it_may_seal(
    db_path: Path | str, key_file: Path
) -> None:
    """Issue 45: a retired key had no cut-off, only the rule that it seals nothing after
    the new key's first row; before the new key sealed anything (a rotation over a
    weekend, a quiet service) whoever kept the old key could append at will."""
    with open_engine(db_path, key_file) as engine:
        fill(engine, 2)
    leaked = key_file.with_name("leaked.key")
    leaked.write_text(key_file.read_text())  # a copy the old key's holder kept
    new_key = key_file.with_name("new.key")
    AuditKey.generate(new_key)
    rotated = load_settings(
        db=db_path, audit_key_file=new_key, audit_retired_key_files=str(key_file)
    )
    with Assay(db_path, settings=rotated) as engine:
        assert engine.audit.retire_key(key_file).sealed_through == 2
    assert "sealed-through 2" in key_file.read_text()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    with open_engine(db_path, leaked) as engine:  # no row of the new key yet
        fill(engine, 1)
    with Assay(db_path, settings=rotated) as engine:
        [problem] = engine.audit.verify().problems
        assert problem.seq == 3 and "sealed its last row at seq 2" in problem.problem
        forged = Checkpoint.make(3, engine.audit.head()[1], AuditKey.load(leaked))
        [*_, late] = engine.audit.verify(checkpoints=[forged]).problems
        assert "checkpoint" in late.problem and "sealed its last row at seq 2" in late.problem


def test_b2_a_retired_key_cannot_seal_again_nor_be_retired_twice(
    db_path: Path | str, key_file: Path
) -> None:
    with open_engine(db_path, key_file) as engine:
        fill(engine, 1)
        with pytest.raises(InvalidInputError, match="is the key configured to seal new rows"):
            engine.audit.retire_key(key_file)
    with Assay(db_path, settings=load_settings(db=db_path)) as engine:
        engine.audit.retire_key(key_file)
        with pytest.raises(
            InvalidInputError, match=r"already retired \(it sealed rows up to seq 1"
        ):
            engine.audit.retire_key(key_file)
    with pytest.raises(InvalidInputError, match="was retired after row 1") as made_current:
        open_engine(db_path, key_file)
    assert "ASSAY_AUDIT_RETIRED_KEY_FILES" in made_current.value.fix
    key_file.write_text(key_file.read_text() + "extra\n")
    with pytest.raises(InvalidInputError, match="second line other than"):
        AuditKey.load(key_file, retired=True)


def test_b2_a_running_engine_refuses_to_append_after_its_rows_were_cut(
    sealed: Assay, db_path: Path | str
) -> None:
    """Issue 45: rows cut from the end after the newest checkpoint, the running service
    sealed new rows onto the shortened chain and `verify --checkpoint` said intact. The
    engine remembers the newest row it committed: a head short of it is refused."""
    fill(sealed, 3)
    point = sealed.audit.checkpoint()
    fill(sealed, 2)  # rows 4 and 5, after the newest checkpoint
    raw(db_path).execute("DELETE FROM audit_events WHERE seq >= 4")
    with pytest.raises(StorageError, match=r"row 5, which this process appended, is gone"):
        fill(sealed, 1)
    assert sealed.audit.head()[0] == 3  # nothing was appended
    fork = sealed.fork()  # the other threads of a service share the mark
    with pytest.raises(StorageError, match="tampered"):
        fill(fork, 1)
    fork.close()
    assert sealed.audit.verify(checkpoints=[point]).ok  # what the check above is for


def test_b2_a_rewritten_head_is_refused_too(sealed: Assay, db_path: Path | str) -> None:
    fill(sealed, 2)
    rehash_from(raw(db_path), 2, new_query)  # the head keeps its seq, not its hash
    with pytest.raises(StorageError, match="is rewritten"):
        fill(sealed, 1)


def test_b2_a_rolled_back_append_leaves_the_mark_where_it_was(sealed: Assay) -> None:
    """The mark moves only with a commit: an audit row rolled back with its unit of work
    (a failed ingest, a refused verdict) is not taken for a cut."""
    fill(sealed, 1)
    with pytest.raises(RuntimeError):
        failing_unit_of_work(sealed, lambda: fill(sealed, 1))
    assert sealed.audit.head()[0] == 1
    fill(sealed, 1)  # row 2 again: no false alarm
    assert sealed.audit.head()[0] == 2 and sealed.audit.verify().ok


def test_commit_callbacks_run_after_commit_and_never_after_a_rollback(sealed: Assay) -> None:
    db, ran = sealed.db, []
    db.after_commit(lambda: ran.append("now"))  # no unit of work open: at once
    with db.unit_of_work():
        db.after_commit(lambda: ran.append("outer"))
        with pytest.raises(RuntimeError):  # a savepoint inside it
            failing_unit_of_work(sealed, lambda: db.after_commit(lambda: ran.append("inner")))
        assert ran == ["now"]  # nothing before the commit
    with pytest.raises(RuntimeError):
        failing_unit_of_work(sealed, lambda: db.after_commit(lambda: ran.append("rolled back")))
    assert ran == ["now", "outer"]


def failing_unit_of_work(engine: Assay, work: Callable[[], object]) -> None:
    """Run ``work`` in a unit of work that then fails (and so rolls back)."""
    with engine.db.unit_of_work():
        work()
        raise RuntimeError("the rest of the unit of work failed")


def test_b2_a_service_checkpoint_file_catches_rows_cut_while_it_was_down(
    sealed: Assay, db_path: Path | str, tmp_path: Path
) -> None:
    """Issue 45: the service checks the newest of its own checkpoints before it seals
    anything, and appends one at start and at shutdown."""
    anchors = tmp_path / "serve-checkpoints.jsonl"
    fill(sealed, 2)
    assert sealed.audit.anchor(anchors).seq == 2  # no file yet: nothing to check
    fill(sealed, 2)
    assert sealed.audit.anchor(anchors).seq == 4  # the service stops at row 4
    assert [c.seq for c in read_checkpoints(anchors)] == [2, 3, 4]  # none twice
    raw(db_path).execute("DELETE FROM audit_events WHERE seq >= 3")  # while it is down
    with open_engine(db_path, key_file=None) as restarted:
        restarted.audit.keys = sealed.audit.keys
        with pytest.raises(StorageError, match="rows 3-4 are gone"):
            restarted.audit.check_anchor(anchors)
    assert len(read_checkpoints(anchors)) == 3  # a refused start writes nothing


def test_b2_a_cut_after_a_crash_is_found_at_the_next_start(
    sealed: Assay, db_path: Path | str, tmp_path: Path
) -> None:
    """Issue 45: the service wrote checkpoints at start and shutdown only, so after a
    kill -9 (no shutdown checkpoint) the rows since the start could be cut unseen. It
    now writes one after every row it commits, from every thread."""
    anchors = tmp_path / "serve-checkpoints.jsonl"
    fill(sealed, 1)
    sealed.audit.anchor(anchors)  # the service starts at row 1
    fork = sealed.fork()  # another worker thread
    fill(fork, 2)
    fill(sealed, 1)
    fork.close()
    points = read_checkpoints(anchors)
    assert [c.seq for c in points] == [1, 2, 3, 4]
    assert all(c.seal and c.sealed_since == 1 for c in points)
    # the process dies here: no shutdown checkpoint; then rows 3-4 are cut
    raw(db_path).execute("DELETE FROM audit_events WHERE seq >= 3")
    with open_engine(db_path, key_file=None) as restarted:
        restarted.audit.keys = sealed.audit.keys
        with pytest.raises(StorageError, match="rows 3-4 are gone"):
            restarted.audit.anchor(anchors)


def test_b2_the_shutdown_checkpoint_never_vouches_for_a_cut_made_while_running(
    sealed: Assay, db_path: Path | str, tmp_path: Path
) -> None:
    """A cut while the service runs and appends nothing more: the shutdown checkpoint
    used to certify the shortened head; it is refused like an append."""
    anchors = tmp_path / "serve-checkpoints.jsonl"
    sealed.audit.anchor(anchors)
    fill(sealed, 3)
    raw(db_path).execute("DELETE FROM audit_events WHERE seq >= 2")
    anchors.unlink()  # even with the file's own lines gone, the running process knows
    with pytest.raises(StorageError, match="row 3, which this process appended, is gone"):
        sealed.audit.anchor(anchors)
    assert not anchors.exists()


def test_b2_the_newest_checkpoint_is_read_from_the_end_of_a_long_file(tmp_path: Path) -> None:
    anchors = tmp_path / "serve-checkpoints.jsonl"
    lines = [
        canonical_json(Checkpoint.make(n, f"{n:064x}", None).as_dict()) for n in range(1, 3001)
    ]
    anchors.write_text("\n".join(lines) + "\n")
    assert newest_checkpoint(anchors).seq == 3000
    anchors.write_text(lines[0] + "\n" + "x" * 70_000 + "\n")  # no line in the tail
    with pytest.raises(InvalidInputError, match="is not JSON"):
        newest_checkpoint(anchors)
    anchors.write_text(lines[5] + "\n")
    assert newest_checkpoint(anchors).seq == 6


def test_b2_a_service_checkpoint_file_catches_a_rewritten_row(
    sealed: Assay, db_path: Path | str, tmp_path: Path
) -> None:
    anchors = tmp_path / "serve-checkpoints.jsonl"
    fill(sealed, 3)
    sealed.audit.anchor(anchors)
    rehash_from(raw(db_path), 2, new_query)
    with pytest.raises(StorageError, match="row 3 no longer has the checkpointed hash"):
        sealed.audit.check_anchor(anchors)
    bare = Checkpoint.make(3, sealed.audit.head()[1], None, sealed_since=1)
    anchors.write_text(canonical_json(bare.as_dict()) + "\n")  # forged without the key
    with pytest.raises(StorageError, match="not sealed"):
        sealed.audit.check_anchor(anchors)
