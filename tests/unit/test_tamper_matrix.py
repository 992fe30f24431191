"""The tamper matrix (B2, issue 45): 30 ways someone with write access to the database
(and a leaked retired key) forges the audit log, each on both backends, against a log as
an operator runs it: a key rotated once (the old key retired with its cut-off), a
checkpoint shipped elsewhere, and a service keeping its own checkpoint file.

Three things may catch a forgery: ``verify`` (with the current and retired keys, the
operator's checkpoint and the service's file), the service's ``start`` (its check of the
newest line of its file) and the ``running`` service (its next append). Each case names
which of them must catch it; docs/audit-log.md prints the same table.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from assay import Assay
from assay.audit.log import _row_hash
from assay.audit.seal import AuditKey, Checkpoint, read_checkpoints
from assay.errors import StorageError
from assay.hashing import canonical_json, sha256_hex
from assay.settings import Settings, load_settings
from tests.rawdb import RawDatabase
from tests.unit.test_audit import fill, raw
from tests.unit.test_audit_seal import (
    forged_append,
    new_query,
    rehash_from,
    rewrite,
    rows,
    swap_rows,
)


@dataclass
class Scene:
    """Rows 1-2 sealed by the old key (retired through row 2), rows 3-6 by the new key;
    the operator's checkpoint at row 4; the service's file holds a line at every row from
    its start (row 2) on. ``service`` is the running service's engine (``None`` once it
    has crashed)."""

    db_path: Path | str
    settings: Settings
    leaked: Path  # a copy of the retired key, kept by whoever held it
    anchors: Path
    points: list[Checkpoint]
    service: Assay | None
    conn: RawDatabase = field(init=False)

    def __post_init__(self) -> None:
        self.conn = raw(self.db_path)

    def crash(self) -> None:
        """The service dies without a shutdown checkpoint."""
        if self.service is not None:
            self.service.close()
            self.service = None


@pytest.fixture
def scene(db_path: Path | str, tmp_path: Path) -> Iterator[Scene]:
    old, new = tmp_path / "old.key", tmp_path / "new.key"
    AuditKey.generate(old)
    AuditKey.generate(new)
    with Assay(db_path, settings=load_settings(db=db_path, audit_key_file=old)) as engine:
        engine.sources.add("sds", "official", owner="Acme", reviewed_at="2026-10-01")
        fill(engine, 2)
    leaked = tmp_path / "leaked.key"
    shutil.copy(old, leaked)
    rotated = load_settings(db=db_path, audit_key_file=new, audit_retired_key_files=str(old))
    with Assay(db_path, settings=rotated) as engine:
        engine.audit.retire_key(old)
    service = Assay(db_path, settings=rotated)  # loads the old key with its cut-off
    anchors = tmp_path / "serve-checkpoints.jsonl"
    service.audit.anchor(anchors)
    fill(service, 2)
    points = [service.audit.checkpoint()]
    fill(service, 2)
    made = Scene(db_path, rotated, leaked, anchors, points, service)
    yield made
    made.crash()
    made.conn.close()


def caught_by(scene: Scene) -> set[str]:
    """Which of verify, a restart and the running service notice the forgery."""
    caught = set()
    with Assay(scene.db_path, settings=scene.settings) as verifier:
        report = verifier.audit.verify(
            checkpoints=[*scene.points, *read_checkpoints(scene.anchors)]
        )
        if not report.ok:
            caught.add("verify")
        try:
            verifier.audit.check_anchor(scene.anchors)
        except StorageError:
            caught.add("start")
    if scene.service is not None:
        try:
            fill(scene.service, 1)
        except StorageError:
            caught.add("running")
    return caught


def _sealed_append(scene: Scene, key: AuditKey) -> None:
    last = rows(scene.conn)[-1]
    forged_append(scene.conn)
    row = rows(scene.conn)[-1]
    row["seal"] = key.seal(str(row["row_hash"]))
    rewrite(scene.conn, [row])
    assert last["seq"] + 1 == row["seq"]


def _edit(column: str, value: object, seq: int = 2) -> Callable[[Scene], None]:
    return lambda s: s.conn.execute(
        f"UPDATE audit_events SET {column} = ? WHERE seq = ?", (value, seq)
    )


def _edit_all(column: str, value: object) -> Callable[[Scene], None]:
    return lambda s: s.conn.execute(f"UPDATE audit_events SET {column} = ?", (value,))


def _rehash_row_only(scene: Scene) -> None:
    row = rows(scene.conn)[1]
    row["query"] = "edited"
    row["query_hash"] = sha256_hex("edited")
    row["row_hash"] = _row_hash({k: v for k, v in row.items() if k not in ("row_hash", "seal")})
    rewrite(scene.conn, [row])


def _renumber_after_delete(scene: Scene) -> None:
    scene.conn.execute("DELETE FROM audit_events WHERE seq = 3")
    for seq in range(4, 7):
        scene.conn.execute("UPDATE audit_events SET seq = ? WHERE seq = ?", (seq - 1, seq))


def _insert_in_middle(scene: Scene) -> None:
    for seq in range(6, 2, -1):
        scene.conn.execute("UPDATE audit_events SET seq = ? WHERE seq = ?", (seq + 1, seq))
    row = dict(rows(scene.conn)[1]) | {"seq": 3, "event_id": "e" * 32, "query": "inserted"}
    row["query_hash"] = sha256_hex("inserted")
    row["prev_hash"] = rows(scene.conn)[1]["row_hash"]
    row["row_hash"] = _row_hash({k: v for k, v in row.items() if k not in ("row_hash", "seal")})
    names = ", ".join(row)
    scene.conn.execute(
        f"INSERT INTO audit_events ({names}) VALUES ({', '.join(':' + k for k in row)})", row
    )


def _swap_seals(scene: Scene) -> None:
    three, four = rows(scene.conn)[2:4]
    scene.conn.execute(
        "UPDATE audit_events SET seal = ? WHERE seq = 3", (four["seal"],)
    )  # fmt: skip
    scene.conn.execute("UPDATE audit_events SET seal = ? WHERE seq = 4", (three["seal"],))


def _rewrite_and_present_unsealed_checkpoints(scene: Scene) -> None:
    """The checkpoint store is not write-once after all: the forger rewrites the rows
    after the operator's checkpoint and replaces every checkpoint with one of the new
    head, which cannot be sealed without the key."""
    rehash_from(scene.conn, 4, new_query)
    head = str(rows(scene.conn)[-1]["row_hash"])
    forged = Checkpoint.make(6, head, None, sealed_since=1)
    scene.points = [forged]
    scene.anchors.write_text(canonical_json(forged.as_dict()) + "\n")


def _rewrite_under_leaked_key(scene: Scene) -> None:
    leaked = AuditKey.load(scene.leaked, retired=True)
    rehash_from(scene.conn, 1, new_query)
    resealed = [r | {"seal": leaked.seal(str(r["row_hash"]))} for r in rows(scene.conn)]
    rewrite(scene.conn, resealed)


def _crash_then_cut(scene: Scene) -> None:
    scene.crash()
    scene.conn.execute("DELETE FROM audit_events WHERE seq >= 5")


def _restore_old_backup(scene: Scene) -> None:
    scene.crash()  # stopped, its database swapped for last week's copy (rows 1-3)
    scene.conn.execute("DELETE FROM audit_events WHERE seq >= 4")


def _undecodable(scene: Scene) -> None:
    if isinstance(scene.db_path, str):
        pytest.skip("PostgreSQL's text columns refuse bytes that are not UTF-8")
    scene.conn.execute("UPDATE audit_events SET query = CAST(x'ff' AS TEXT) WHERE seq = 2")


ALL = {"verify", "start", "running"}
VERIFY = {"verify"}

#: each forgery, and what must catch it
MATRIX: dict[str, tuple[Callable[[Scene], None], set[str]]] = {
    "edit a query": (_edit("query", "edited"), VERIFY),
    "edit a payload": (_edit("payload", '{"forged": true}'), VERIFY),
    "backdate a row": (_edit("created_at", "2020-01-01T00:00:00.000000+00:00"), VERIFY),
    "change a row's actor": (_edit("actor", "someone-else"), VERIFY),
    "change a row's policy": (_edit("policy_name", "informational"), VERIFY),
    "edit a query, rehash its row only": (_rehash_row_only, VERIFY),
    "edit a query, keep its query hash": (_edit("query_hash", sha256_hex("x")), VERIFY),
    "bytes that are not UTF-8": (_undecodable, VERIFY),
    "delete a middle row": (
        lambda s: s.conn.execute("DELETE FROM audit_events WHERE seq = 3"),
        VERIFY,
    ),
    "delete a middle row, renumber the rest": (_renumber_after_delete, ALL),
    "insert a row in the middle": (_insert_in_middle, ALL),
    "reorder two rows": (lambda s: swap_rows(s.conn), VERIFY),
    "cut the rows after the operator's checkpoint": (
        lambda s: s.conn.execute("DELETE FROM audit_events WHERE seq >= 5"),
        ALL,
    ),
    "cut rows below the operator's checkpoint": (
        lambda s: s.conn.execute("DELETE FROM audit_events WHERE seq >= 3"),
        ALL,
    ),
    "delete every row": (lambda s: s.conn.execute("DELETE FROM audit_events"), ALL),
    "cut the tail after a crash": (_crash_then_cut, {"verify", "start"}),
    "restore an older backup": (_restore_old_backup, {"verify", "start"}),
    "rehash the tail, seals kept": (lambda s: rehash_from(s.conn, 3, new_query), ALL),
    "rehash after the operator's checkpoint": (lambda s: rehash_from(s.conn, 5, new_query), ALL),
    "strip every seal": (_edit_all("seal", None), VERIFY),
    "strip a middle row's seal": (_edit("seal", None, seq=4), VERIFY),
    "strip the last row's seal": (_edit("seal", None, seq=6), VERIFY),
    "garble a seal": (_edit("seal", "hmac-sha256:0000000000000000:00", seq=3), VERIFY),
    "swap two rows' seals": (_swap_seals, VERIFY),
    "append an unsealed row": (lambda s: forged_append(s.conn), VERIFY),
    "append a row with a copied seal": (
        lambda s: forged_append(s.conn, str(rows(s.conn)[-1]["seal"])),
        VERIFY,
    ),
    "append a row sealed with a key of one's own": (
        lambda s: _sealed_append(s, AuditKey(b"\x01" * 32)),
        VERIFY,
    ),
    "append with the leaked retired key": (
        lambda s: _sealed_append(s, AuditKey.load(s.leaked, retired=True)),
        VERIFY,
    ),
    "rewrite history under the leaked retired key": (_rewrite_under_leaked_key, ALL),
    "rewrite the tail, replace the checkpoints unsealed": (
        _rewrite_and_present_unsealed_checkpoints,
        ALL,
    ),
}


@pytest.mark.parametrize("name", list(MATRIX))
def test_b2_tamper_matrix_with_a_rotated_key_and_checkpoints(scene: Scene, name: str) -> None:
    """Issue 45 target: every one of the 30 forgeries is caught, on both backends."""
    assert caught_by_nothing_before(scene)
    tamper, expected = MATRIX[name]
    tamper(scene)
    assert caught_by(scene) == expected, name


def caught_by_nothing_before(scene: Scene) -> bool:
    """The untouched scene verifies and starts (no false alarm to take credit from)."""
    with Assay(scene.db_path, settings=scene.settings) as verifier:
        points = [*scene.points, *read_checkpoints(scene.anchors)]
        return verifier.audit.verify(checkpoints=points).ok and (
            verifier.audit.check_anchor(scene.anchors) is not None
        )


def test_the_matrix_has_thirty_forgeries() -> None:
    assert len(MATRIX) == 30
