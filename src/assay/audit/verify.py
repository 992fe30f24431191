"""Check the audit chain row by row, and never stop at a bad one (B2).

Each row is checked for: its place (``seq`` without gaps), its link (``prev_hash`` is the
row before's hash), its content (``row_hash`` and ``query_hash`` recompute), its seal
(when a key is configured; see :mod:`assay.audit.seal`), and, given a row check, that its
scores recompute from the row alone (:mod:`assay.audit.replay` supplies it from above:
this walk imports nothing of the scoring stack). Checkpoints kept
elsewhere catch what the chain cannot show by itself: rows cut from the end and a tail
rewritten and rehashed. Whatever a row holds (a forged payload, bytes that are not
UTF-8, a missing table), the walk reports it as a problem with its sequence number and
goes on: a verifier that crashes on the forgery it should name is no verifier.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from assay.audit.report import GENESIS_HASH, VerifyProblem, VerifyReport
from assay.audit.seal import Checkpoint, Keyring, seal_key_id
from assay.errors import StorageError
from assay.hashing import sha256_hex
from assay.store.records import AuditRow

RowHash = Callable[[AuditRow], str]


class RowCheck(Protocol):
    """Checks what one row holds, in chain order (it may keep state between rows): the
    problems found in an event of ``kind`` with this ``payload`` and ``query``, written
    with ``schema_version`` (``None``: before rows had one)."""

    def __call__(
        self, kind: str, payload: Any, query: str, schema_version: int | None
    ) -> list[str]: ...


class ChainWalk:
    """One pass over the rows, oldest first, collecting every problem."""

    def __init__(
        self,
        row_hash: RowHash,
        *,
        keys: Keyring,
        expected_head: str | None,
        checkpoints: Sequence[Checkpoint],
        check: RowCheck | None,
    ) -> None:
        self.row_hash, self.keys, self.check = row_hash, keys, check
        self.expected_head = expected_head
        self.checkpoints = sorted(checkpoints, key=lambda c: c.seq)
        self.wanted = {c.seq for c in self.checkpoints}
        self.seen: dict[int, str] = {0: GENESIS_HASH}  # hashes at checkpointed seqs
        self.problems: list[VerifyProblem] = []
        self.count = self.sealed = self.unsealed = self.unchecked = 0
        self.first_sealed: int | None = None
        self.first_current: int | None = None  # the first row sealed by the current key
        self.expected_seq, self.prev = 1, GENESIS_HASH
        self.anchored = expected_head in (None, GENESIS_HASH)

    def run(self, rows: Iterable[AuditRow]) -> VerifyReport:
        """Walk ``rows`` (raw: text columns as bytes) and build the report."""
        try:
            for raw in rows:
                self._row(raw)
        except StorageError as exc:  # a dropped or damaged table, whatever the backend
            self._add(self.expected_seq, None, str(exc))
        self._finish()
        return VerifyReport(
            events=self.count,
            head=self.prev,
            problems=self.problems,
            sealed=self.sealed,
            unsealed=self.unsealed,
            unchecked=self.unchecked,
            checkpoints=len(self.checkpoints),
            key_id=self.keys.current.key_id if self.keys.current else None,
        )

    def _add(self, seq: int, event_id: str | None, problem: str) -> None:
        self.problems.append(VerifyProblem(seq, event_id, problem))

    def _row(self, raw: AuditRow) -> None:
        self.count += 1
        columns, undecodable = _decode(raw)
        seq = int(columns["seq"] or 0)  # INTEGER PRIMARY KEY: always a number
        event_id = _text(columns.get("event_id"))
        stored, seal = columns.pop("row_hash", None), columns.pop("seal", None)
        if seq != self.expected_seq:
            gap = f"{self.expected_seq}" + ("" if seq == self.expected_seq + 1 else f"-{seq - 1}")
            self._add(seq, event_id, f"row(s) seq {gap} before it are missing (deleted)")
        if columns.get("prev_hash") != self.prev:
            self._add(
                seq, event_id, "does not link to the row before it (reordered, or a row removed)"
            )
        if undecodable or self.row_hash(columns) != stored:
            self._add(seq, event_id, "content does not match its hash (row edited)")
        elif columns.get("query_hash") != sha256_hex(str(columns.get("query"))):
            self._add(seq, event_id, "query does not match its query_hash (row forged)")
        elif self.check is not None:
            self._check(self.check, seq, event_id, columns)
        self._seal(seq, event_id, str(stored), seal)
        self.anchored = self.anchored or stored == self.expected_head
        if seq in self.wanted:
            self.seen[seq] = str(stored)
        self.expected_seq, self.prev = seq + 1, str(stored)

    def _seal(self, seq: int, event_id: str | None, stored: str, seal: Any) -> None:
        if seal is None:
            if self.sealed:
                self._add(seq, event_id, "not sealed, though rows before it are (forged append)")
            else:
                self.unsealed += 1
            return
        self.sealed += 1
        self.first_sealed = seq if self.first_sealed is None else self.first_sealed
        if self.keys.empty:
            self.unchecked += 1
            return
        problem = self.keys.seal_problem(stored, str(seal), seq)
        if problem:
            self._add(seq, event_id, problem)
            return
        current = self.keys.current
        if current is not None and seal_key_id(str(seal)) == current.key_id:
            self.first_current = seq if self.first_current is None else self.first_current
        elif self.first_current is not None:
            self._add(
                seq,
                event_id,
                f"sealed with retired key {seal_key_id(str(seal))[:16]} after the current key "
                f"sealed row {self.first_current}: a retired key seals no new rows "
                "(its holder appended, or a process still runs with the old key)",
            )

    def _check(self, check: RowCheck, seq: int, event_id: str | None, columns: AuditRow) -> None:
        try:
            payload = json.loads(str(columns["payload"]))
        except (json.JSONDecodeError, RecursionError, TypeError):
            payload = None
        kind, query = str(columns.get("kind")), str(columns.get("query"))
        version = columns.get("schema_version")
        try:
            found = check(kind, payload, query, version if isinstance(version, int) else None)
        except Exception as exc:
            found = [f"payload cannot be checked: {type(exc).__name__}: {exc}"]
        for problem in found:
            self._add(seq, event_id, problem)

    def _finish(self) -> None:
        if self.keys.current is not None and self.count and not self.sealed:
            self._add(
                self.expected_seq - 1,
                None,
                "no row is sealed though an audit key is configured: the seals were "
                "stripped, or the key was set after the last row was written (then the "
                "next row written, an `assay ask` say, is sealed and this clears)",
            )
        if not self.anchored:
            self._add(
                self.expected_seq - 1,
                None,
                f"recorded head {str(self.expected_head)[:16]}... is not in the chain "
                "(rows removed from the end, or the wrong database)",
            )
        last = self.expected_seq - 1
        for point in self.checkpoints:
            self._checkpoint(point, last)

    def _checkpoint(self, point: Checkpoint, last: int) -> None:
        name = f"checkpoint of {point.created_at} (seq {point.seq})"
        covers_sealed = self.first_sealed is not None and self.first_sealed <= point.seq
        if point.seal is None and self.keys.current is not None and covers_sealed:
            self._add(
                point.seq,
                None,
                f"{name}: not sealed, though it covers sealed rows and a key is configured "
                "(forged, or taken in a shell without ASSAY_AUDIT_KEY_FILE: take it again "
                "with the key)",
            )
            return
        if point.seal is not None and not self.keys.empty:
            problem = self.keys.seal_problem(point.digest, point.seal, point.seq)
            if problem:
                self._add(point.seq, None, f"{name}: {problem}")
                return
        if point.sealed_since is not None and (
            self.first_sealed is None or self.first_sealed > point.sealed_since
        ):
            self._add(
                point.sealed_since,
                None,
                f"{name}: rows were sealed from seq {point.sealed_since}, now "
                + (f"only from seq {self.first_sealed}" if self.first_sealed else "none is")
                + " (seals stripped)",
            )
        if point.seq > last:
            self._add(
                last,
                None,
                f"{name}: {point.rows_after(last)} missing (cut from the end after the "
                "checkpoint was taken)",
            )
        elif self.seen.get(point.seq) != point.head:
            self._add(
                point.seq,
                None,
                f"{name}: the row there no longer has the checkpointed hash (chain rewritten)",
            )


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _decode(raw: AuditRow) -> tuple[AuditRow, bool]:
    """Text columns decoded strictly; the flag says whether any byte was not UTF-8."""
    out: AuditRow = {}
    undecodable = False
    for name, value in raw.items():
        if isinstance(value, bytes):
            try:
                out[name] = value.decode("utf-8")
            except UnicodeDecodeError:
                out[name], undecodable = value.decode("utf-8", "replace"), True
        else:
            out[name] = value
    return out, undecodable
