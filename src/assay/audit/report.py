"""What :meth:`assay.audit.AuditLog.verify` reports: the chain's state and every break."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

GENESIS_HASH = "0" * 64


@dataclass(frozen=True, slots=True)
class VerifyProblem:
    """One break in the chain: which row and what is wrong with it."""

    seq: int
    event_id: str | None
    problem: str

    def __str__(self) -> str:
        name = f"event {self.event_id} (seq {self.seq})" if self.event_id else f"seq {self.seq}"
        return f"{name}: {self.problem}"


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The outcome of :meth:`AuditLog.verify`.

    ``sealed`` rows carry a seal (checked when a key was given, else counted
    ``unchecked``); ``unsealed`` rows were written before any sealed one (an unkeyed
    log, or rows from before a key was set). ``checkpoints`` were checked against it.
    """

    events: int
    head: str
    problems: list[VerifyProblem] = field(default_factory=list)
    sealed: int = 0
    unsealed: int = 0
    unchecked: int = 0
    checkpoints: int = 0
    key_id: str | None = None

    @property
    def ok(self) -> bool:
        """True when the chain is intact (and, if asked, every score replays)."""
        return not self.problems

    @property
    def keyed(self) -> str:
        """``"sealed"`` (every row), ``"partly sealed"``, or ``"unkeyed"`` (no row)."""
        if self.sealed and not self.unsealed:
            return "sealed"
        return "partly sealed" if self.sealed else "unkeyed"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "ok": self.ok,
            "events": self.events,
            "head": self.head,
            "keyed": self.keyed,
            "sealed": self.sealed,
            "unsealed": self.unsealed,
            "unchecked_seals": self.unchecked,
            "key_id": self.key_id,
            "checkpoints": self.checkpoints,
            "problems": [
                {"seq": p.seq, "event_id": p.event_id, "problem": p.problem} for p in self.problems
            ],
        }
