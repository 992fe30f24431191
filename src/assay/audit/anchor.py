"""What a running service keeps so that rows cut from the end of its log are noticed (B2).

A hash chain cut at the end is a shorter chain, valid on its own; only something kept
apart from the database knows it was longer. A service keeps two such things:

* :class:`AppendMark`, in memory: the newest row this process committed. Before each
  append the head must still reach it, so a cut while the service runs stops it at
  once, before it seals new rows onto the shortened chain.
* :class:`ServiceAnchor`, on disk (``audit_checkpoint_file``): a checkpoint line after
  every row the service commits, written after the commit. A cut while the service is
  down, even after a crash that left no shutdown checkpoint, is found when the next
  start checks the newest line (:meth:`assay.audit.log.AuditLog.anchor`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from assay.audit.report import GENESIS_HASH
from assay.audit.seal import AuditKey, Checkpoint, append_checkpoint
from assay.errors import InvalidInputError, StorageError

log = logging.getLogger(__name__)


class AppendMark:
    """The newest row this process appended and saw committed: shared by a log's actors
    and by an engine's forks, so that every thread of a service checks the same mark.

    Before each append the head must still reach it, and the row there must still have
    the hash this process gave it: rows this process wrote do not vanish or change by
    themselves. Without the check, someone who cut rows from the end (after the newest
    checkpoint) saw the running service seal new rows onto the shortened chain, and
    ``verify --checkpoint`` found nothing wrong.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seq, self.row_hash = 0, GENESIS_HASH

    def advance(self, seq: int, row_hash: str) -> None:
        """Record a committed row (the higher of it and the mark stays)."""
        with self._lock:
            if seq > self.seq:
                self.seq, self.row_hash = seq, row_hash

    def check(self, head_seq: int, head_hash: str, hash_at: Callable[[int], str | None]) -> None:
        """Refuse to append after a head that has lost or changed a row this process
        committed; ``hash_at`` reads a row's hash (only when other processes appended
        since: the head is the mark's row otherwise)."""
        with self._lock:
            seq, row_hash = self.seq, self.row_hash
        if head_seq > seq and seq:
            head_hash = hash_at(seq) or ""
        if head_seq < seq or (seq and head_hash != row_hash):
            raise StorageError(
                f"audit log tampered with: row {seq}, which this process appended, is "
                f"{'gone' if head_seq < seq else 'rewritten'} (the log now ends at row "
                f"{head_seq}); nothing more is appended. Run `assay audit verify "
                "--checkpoint FILE` with your checkpoints and restore the log before restarting"
            )


class ServiceAnchor:
    """The checkpoint file a service appends to after each row it commits.

    About 250 bytes a row (sealed). Lines are written in order of ``seq``: a checkpoint no newer
    than the newest line is skipped, so a start or a shutdown after no new row adds
    none. Each is sealed when the log has a key.
    """

    def __init__(self, path: Path, *, written: int, sealed_since: int | None) -> None:
        """``written``: the newest ``seq`` the file already holds (-1: none)."""
        self.path = path
        self.sealed_since = sealed_since
        self._lock = threading.Lock()
        self._written = written

    def point(self, seq: int, row_hash: str, key: AuditKey | None, *, sealed: bool) -> Checkpoint:
        """The checkpoint of row ``seq`` (``sealed``: the row carries a seal, and the
        first such row is where the log's seals begin)."""
        with self._lock:
            if self.sealed_since is None and sealed:
                self.sealed_since = seq
            since = self.sealed_since
        return Checkpoint.make(seq, row_hash, key, sealed_since=since)

    def write(self, point: Checkpoint) -> None:
        """Append ``point`` unless one as new is already written."""
        with self._lock:
            if point.seq <= self._written:
                return
            append_checkpoint(self.path, point, setting="audit_checkpoint_file")
            self._written = point.seq

    def write_committed(self, point: Checkpoint) -> None:
        """:meth:`write` for a row already committed: a failed write (disk full) is
        logged, and the next row's line covers this one; the caller's answer is not
        lost for the anchor's sake."""
        try:
            self.write(point)
        except InvalidInputError as exc:
            log.error("audit checkpoint at seq %d not written: %s", point.seq, exc)
