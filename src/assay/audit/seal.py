"""The audit key that seals every row, and checkpoints that anchor the head elsewhere (B2).

The hash chain alone proves order and integrity to someone who trusts the tail: anyone
who can write the database file can append a row with a correctly computed hash, or
rewrite the tail and rehash it. Two things close that gap:

* **Seals.** With an audit key configured (``audit_key_file``: 32 random bytes, hex,
  in a file that lives outside the database and is never written into a row), every
  appended row carries ``seal = hmac-sha256:<key id>:HMAC(key, row_hash)``. The row hash
  covers the previous row's hash, so a seal vouches for the whole chain up to its row.
  Without the key, no new or rewritten row can be sealed.
* **Checkpoints.** ``assay audit checkpoint`` prints the head (sequence number, hash,
  time), sealed when a key is configured, as one JSON line for an operator to ship
  somewhere the database's writers cannot reach (a WORM bucket, a ticket, an email).
  ``assay audit verify --checkpoint FILE`` then reports rows cut from the end below
  it, and any rewrite of the rows it covers, with or without a key.

The key id is the first 16 hex digits of the key's sha256: it names a key without
revealing it, so a row sealed by a retired key is told apart from a forged seal.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeGuard

from assay.errors import InvalidInputError
from assay.hashing import canonical_json, sha256_hex

KEY_BYTES = 32
_SCHEME = "hmac-sha256"


@dataclass(frozen=True, slots=True)
class AuditKey:
    """A secret that seals audit rows and checkpoints; see the module docstring.

    ``sealed_through`` is set on a retired key (``assay audit retire``): the last row it
    sealed before the rotation. A seal of its on a later row is a forgery by whoever
    still holds it, whatever the rows around it say.
    """

    secret: bytes = field(repr=False)
    sealed_through: int | None = None

    @property
    def key_id(self) -> str:
        """A public name for the key: the first 16 hex digits of its sha256."""
        return hashlib.sha256(self.secret).hexdigest()[:16]

    def seal(self, digest: str) -> str:
        """The seal of a row hash (or a checkpoint digest)."""
        mac = hmac.new(self.secret, digest.encode("ascii"), hashlib.sha256).hexdigest()
        return f"{_SCHEME}:{self.key_id}:{mac}"

    def seal_problem(self, digest: str, seal: str) -> str | None:
        """Why ``seal`` does not vouch for ``digest`` under this key; ``None`` if it does."""
        scheme, _, rest = seal.partition(":")
        key_id, _, _ = rest.partition(":")
        if scheme != _SCHEME:
            return f"seal is not an {_SCHEME} seal"
        if key_id != self.key_id:
            return f"sealed with another key (id {key_id[:16]}), not the configured {self.key_id}"
        if not hmac.compare_digest(seal, self.seal(digest)):
            return "seal does not match (written or rehashed without the audit key)"
        return None

    @classmethod
    def load(
        cls, path: Path, *, setting: str = "audit_key_file", retired: bool = False
    ) -> AuditKey:
        """Read a key file written by :meth:`generate` (64 hex digits) and perhaps
        :meth:`retire` (a second line ``sealed-through N``); ``setting`` (a field of
        :class:`assay.settings.Settings`) is what an error names. Only a ``retired`` key
        may carry a cut-off: a retired key made current again would seal past it."""
        variable = f"ASSAY_{setting.upper()}"
        try:
            text, *rest = path.read_text(encoding="ascii").strip().split("\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(
                setting,
                str(path),
                f"point {variable} at key files made by `assay audit keygen FILE`",
                problem=f"cannot be read ({exc})",
            ) from None
        try:
            secret = bytes.fromhex(text)
        except ValueError:
            secret = b""
        if len(secret) != KEY_BYTES:
            raise InvalidInputError(
                setting,
                str(path),
                "make a key with `assay audit keygen FILE`",
                problem=f"does not hold {KEY_BYTES * 2} hex digits",
            )
        try:
            through = _sealed_through(rest)
        except ValueError:
            raise InvalidInputError(
                setting, str(path), "give a file written by `assay audit keygen` or "
                "`assay audit retire`", problem="has a second line other than `sealed-through N`",
            ) from None  # fmt: skip
        if through is not None and not retired:
            raise InvalidInputError(
                setting, str(path), "generate a new key with `assay audit keygen FILE` and "
                "name this one in ASSAY_AUDIT_RETIRED_KEY_FILES",
                problem=f"was retired after row {through}: it seals no new rows",
            )  # fmt: skip
        return cls(secret, through)

    def retire(self, path: Path, last_seq: int) -> AuditKey:
        """This key retired after row ``last_seq``, written back to its file ``path``
        (whole or not at all: a temporary file renamed over it)."""
        retired = replace(self, sealed_through=last_seq)
        temporary = path.with_name(f".{path.name}.retiring")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(f"{self.secret.hex()}\nsealed-through {last_seq}\n")
            temporary.replace(path)
        except OSError as exc:
            raise InvalidInputError(
                "key file", str(path), "retire it where its folder is writable",
                problem=f"cannot be rewritten ({exc})",
            ) from None  # fmt: skip
        return retired

    @classmethod
    def generate(cls, path: Path) -> AuditKey:
        """Write a new random key to ``path`` (readable by its owner only); never overwrites."""
        key = cls(secrets.token_bytes(KEY_BYTES))
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise InvalidInputError(
                "key file", str(path), "choose a new file name: a key is never overwritten",
                problem="already exists",
            ) from None  # fmt: skip
        except OSError as exc:
            raise InvalidInputError(
                "key file", str(path), "write it somewhere writable", problem=f"failed ({exc})"
            ) from None
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(key.secret.hex() + "\n")
        return key


def _sealed_through(lines: list[str]) -> int | None:
    """A key file's cut-off line (``sealed-through N``), if it has one; ``ValueError``
    for any other line."""
    if not lines:
        return None
    word, _, number = lines[0].strip().partition(" ")
    if len(lines) > 1 or word != "sealed-through" or not number.strip().isdigit():
        raise ValueError(lines[0])
    return int(number)


def seal_key_id(seal: str) -> str:
    """The id of the key a seal names (``hmac-sha256:<key id>:<mac>``)."""
    return seal.partition(":")[2].partition(":")[0]


@dataclass(frozen=True, slots=True)
class Keyring:
    """The key that seals new rows, and retired keys that still vouch for old ones.

    Rotating a key: generate a new one, make it ``ASSAY_AUDIT_KEY_FILE``, and name the
    old one in ``ASSAY_AUDIT_RETIRED_KEY_FILES``; rows keep the seal they were written
    with, and each seal is checked with the key its id names.
    """

    current: AuditKey | None = None
    retired: tuple[AuditKey, ...] = ()

    @property
    def empty(self) -> bool:
        """No key at all: seals can be counted, not checked."""
        return self.current is None and not self.retired

    def seal_problem(self, digest: str, seal: str, seq: int | None = None) -> str | None:
        """Why ``seal`` does not vouch for ``digest`` (of row ``seq``, or a checkpoint
        at ``seq``) under the key it names, or ``None``."""
        key_id = seal_key_id(seal)
        for key in (self.current, *self.retired):
            if key is not None and key.key_id == key_id:
                through = key.sealed_through
                if key is not self.current and through is not None and (seq or 0) > through:
                    return (
                        f"sealed with retired key {key_id[:16]}, which sealed its last row at "
                        f"seq {through} (`assay audit retire`): its holder appended or "
                        "rewrote the chain after the rotation"
                    )
                return key.seal_problem(digest, seal)
        return (
            f"sealed with a key that is not configured (id {key_id[:16]}); if it is a "
            "retired key, name its file in ASSAY_AUDIT_RETIRED_KEY_FILES"
        )


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The head of the chain at a moment: ``seq`` rows, the last with hash ``head``.

    ``sealed_since`` is the first sealed row then (``None``: none was), so that seals
    stripped from the rows afterwards are noticed, not taken for an unkeyed log.
    """

    seq: int
    head: str
    created_at: str
    sealed_since: int | None = None
    seal: str | None = None

    def rows_after(self, last: int) -> str:
        """The rows this checkpoint covers beyond row ``last`` ("row 5 is", "rows 4-5
        are"), for a message about rows cut from the end."""
        return f"row {self.seq} is" if self.seq == last + 1 else f"rows {last + 1}-{self.seq} are"

    @property
    def digest(self) -> str:
        """What the seal covers: the checkpoint's other fields."""
        return sha256_hex(canonical_json({k: v for k, v in self.as_dict().items() if k != "seal"}))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form: one line of a checkpoint file."""
        return asdict(self)

    @classmethod
    def make(
        cls,
        seq: int,
        head: str,
        key: AuditKey | None,
        *,
        sealed_since: int | None = None,
        now: datetime | None = None,
    ) -> Checkpoint:
        """A checkpoint of this head, sealed when there is a key."""
        moment = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
        bare = cls(seq, head, moment, sealed_since)
        return bare if key is None else replace(bare, seal=key.seal(bare.digest))

    @classmethod
    def parse(cls, text: str, where: str) -> Checkpoint:
        """A checkpoint from its JSON line; ``where`` (file and line) names a bad one."""
        fix = "give lines written by `assay audit checkpoint`"
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise InvalidInputError(where, text[:60], fix, problem="is not JSON") from None
        if not isinstance(data, dict) or set(data) - set(_CHECKPOINT_FIELDS):
            raise InvalidInputError(where, text[:60], fix, problem="is not a checkpoint")
        seq, head, created_at, since, seal = (data.get(k) for k in _CHECKPOINT_FIELDS)
        if (
            not _count(seq)
            or not (since is None or _count(since))
            or not isinstance(head, str)
            or not isinstance(created_at, str)
            or not (seal is None or isinstance(seal, str))
        ):
            raise InvalidInputError(where, text[:60], fix, problem="is not a checkpoint")
        return cls(seq, head, created_at, since, seal)


_CHECKPOINT_FIELDS = ("seq", "head", "created_at", "sealed_since", "seal")


def _count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def read_checkpoints(path: Path) -> list[Checkpoint]:
    """Every checkpoint in a file of JSON lines (as ``assay audit checkpoint`` appends)."""
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            "--checkpoint", str(path), "give a file written by `assay audit checkpoint`",
            problem=f"cannot be read ({exc})",
        ) from None  # fmt: skip
    found = [
        Checkpoint.parse(line, f"{path} line {number}")
        for number, line in enumerate(lines, 1)
        if line.strip()
    ]
    if not found:
        raise InvalidInputError(
            "--checkpoint", str(path), "give a file written by `assay audit checkpoint`",
            problem="holds no checkpoint",
        )  # fmt: skip
    return found


_TAIL_BYTES = 64 * 1024


def newest_checkpoint(path: Path) -> Checkpoint:
    """The newest checkpoint in a file of JSON lines, reading only its last 64 KiB: a
    service's file gains a line a row (:class:`assay.audit.anchor.ServiceAnchor`), and
    its start must not read gigabytes. Lines are appended in order, so the newest is
    among the last; the whole file is read when the tail holds none."""
    tail, size = b"", 0
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - _TAIL_BYTES))
            tail = handle.read()
    except OSError:
        pass  # read_checkpoints names the problem
    lines = tail.split(b"\n")[0 if len(tail) == size else 1 :]
    try:
        found = [
            Checkpoint.parse(line.decode("utf-8"), f"{path} (end)")
            for line in lines
            if line.strip()
        ]
    except (InvalidInputError, UnicodeDecodeError):
        found = []
    return max(found or read_checkpoints(path), key=lambda c: c.seq)


def append_checkpoint(path: Path, point: Checkpoint, *, setting: str) -> None:
    """Append ``point`` to a checkpoint file as one JSON line; ``setting`` (the option or
    setting that named the file) is what an error names."""
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write(canonical_json(point.as_dict()) + "\n")
    except OSError as exc:
        raise InvalidInputError(
            setting, str(path), "write it somewhere writable", problem=f"failed ({exc})"
        ) from None
