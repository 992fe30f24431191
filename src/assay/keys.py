"""API keys of the HTTP service and the roles they grant (B4).

A key is shown once, when it is created, as ``assay_<id>_<secret>``; the database keeps
its id, name, roles and the sha256 of the secret. The id is the lookup, the secret is
compared in constant time. Secrets are 256-bit random, so a plain sha256 is as strong
as a slow password hash here and costs microseconds per request.

Roles::

    reader    ask, score, evaluate
    curator   ingest, sources
    auditor   audit log, review queue, monitoring and calibration views
    admin     keys and policies, and everything the other roles may do

Creating and revoking a key are audit events (kind ``key``), in one transaction with
the change.

The dashboard never keeps a key in its cookie: logging in exchanges the key for a
session (:meth:`KeyStore.open_session`), a random id of which only the sha256 is
stored, with an expiry; logging out closes it, and revoking the key ends every
session it opened.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from assay.audit import AuditLog
from assay.db import transaction
from assay.errors import ConflictError, InvalidInputError, NotFoundError
from assay.hashing import sha256_hex


class Role(StrEnum):
    """What a key may do; ``admin`` may do everything."""

    READER = "reader"
    CURATOR = "curator"
    AUDITOR = "auditor"
    ADMIN = "admin"


_TOKEN = re.compile(r"assay_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
_NAME = re.compile(r"[\w .@-]{1,64}")


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key (never its secret)."""

    id: str
    name: str
    roles: frozenset[Role]
    created_at: str
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        """False once revoked."""
        return self.revoked_at is None

    def allows(self, role: Role) -> bool:
        """Whether this key may act in ``role``."""
        return role in self.roles or Role.ADMIN in self.roles

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "id": self.id,
            "name": self.name,
            "roles": sorted(r.value for r in self.roles),
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "active": self.active,
        }


def parse_roles(values: Iterable[str]) -> frozenset[Role]:
    """Role names (``reader``, ...) as roles; an unknown name is an error naming the choices."""
    roles = set()
    for value in values:
        try:
            roles.add(Role(value.strip().lower()))
        except ValueError:
            raise InvalidInputError(
                "role", value, f"choose from {', '.join(r.value for r in Role)}"
            ) from None
    if not roles:
        raise InvalidInputError("role", "", "give at least one role, e.g. --role reader")
    return frozenset(roles)


class KeyStore:
    """Creates, lists, revokes and checks the API keys of one database."""

    def __init__(self, conn: sqlite3.Connection, audit: AuditLog) -> None:
        self._conn = conn
        self._audit = audit

    def create(self, name: str, roles: Iterable[str | Role]) -> tuple[ApiKey, str]:
        """A new key and its token (``assay_<id>_<secret>``): the only time it is shown."""
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise InvalidInputError("name", name, "use 1-64 letters, digits, spaces or . @ _ -")
        granted = parse_roles(str(r) for r in roles)
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        key = ApiKey(key_id, name, granted, _now())
        with transaction(self._conn):
            self._conn.execute(
                "INSERT INTO api_keys (id, name, roles, secret_sha256, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (key.id, name, json.dumps(sorted(granted)), sha256_hex(secret), key.created_at),
            )
            self._event("create", key)
        return key, f"assay_{key_id}_{secret}"

    def list(self, *, include_revoked: bool = True) -> list[ApiKey]:
        """Every key, oldest first."""
        sql = "SELECT * FROM api_keys" + ("" if include_revoked else " WHERE revoked_at IS NULL")
        return [_key(row) for row in self._conn.execute(sql + " ORDER BY created_at, id")]

    def get(self, key_id: str) -> ApiKey:
        """The key with this id."""
        row = self._conn.execute("SELECT * FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"API key {key_id!r} not found; list keys with `assay keys list`")
        return _key(row)

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key: it stops working at once and stays listed."""
        with transaction(self._conn):
            key = self.get(key_id)
            if not key.active:
                raise ConflictError(f"API key {key_id!r} was already revoked at {key.revoked_at}")
            revoked = ApiKey(key.id, key.name, key.roles, key.created_at, _now())
            self._conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ?", (revoked.revoked_at, key_id)
            )
            self._conn.execute(
                "UPDATE dashboard_sessions SET closed_at = ?"
                " WHERE key_id = ? AND closed_at IS NULL",
                (revoked.revoked_at, key_id),
            )
            self._event("revoke", revoked)
        return revoked

    def authenticate(self, token: str) -> ApiKey | None:
        """The active key this token belongs to, or ``None`` (malformed, unknown, revoked
        or a wrong secret: the caller cannot tell which, by design)."""
        match = _TOKEN.fullmatch(token.strip()) if isinstance(token, str) else None
        if match is None:
            return None
        row = self._conn.execute(
            "SELECT * FROM api_keys WHERE id = ?", (match.group(1),)
        ).fetchone()
        if row is None or row["revoked_at"] is not None:
            return None
        if not hmac.compare_digest(row["secret_sha256"], sha256_hex(match.group(2))):
            return None
        return _key(row)

    def open_session(self, key: ApiKey, lifetime: timedelta) -> str:
        """A new dashboard session for ``key`` lasting ``lifetime``: its token (shown once)."""
        token = "session_" + secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        with transaction(self._conn):
            self._conn.execute(
                "INSERT INTO dashboard_sessions (id_sha256, key_id, created_at, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (sha256_hex(token), key.id, _iso(now), _iso(now + lifetime)),
            )
        return token

    def session_key(self, token: str) -> ApiKey | None:
        """The key of an open, unexpired session whose key is not revoked; else ``None``."""
        if not isinstance(token, str) or not token.startswith("session_"):
            return None
        row = self._conn.execute(
            "SELECT k.* FROM dashboard_sessions s JOIN api_keys k ON k.id = s.key_id"
            " WHERE s.id_sha256 = ? AND s.closed_at IS NULL AND s.expires_at > ?"
            " AND k.revoked_at IS NULL",
            (sha256_hex(token), _now()),
        ).fetchone()
        return _key(row) if row else None

    def close_session(self, token: str) -> None:
        """End a session (logout); an unknown or closed one is left as it is."""
        if isinstance(token, str):
            with transaction(self._conn):
                self._conn.execute(
                    "UPDATE dashboard_sessions SET closed_at = ?"
                    " WHERE id_sha256 = ? AND closed_at IS NULL",
                    (_now(), sha256_hex(token)),
                )

    def _event(self, action: str, key: ApiKey) -> None:
        self._audit.append(
            kind="key",
            query="",
            policy_name="",
            policy_version="",
            payload={"action": action, "key": key.to_dict()},
            join_transaction=True,
        )


def _now() -> str:
    return _iso(datetime.now(UTC))


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _key(row: sqlite3.Row) -> ApiKey:
    return ApiKey(
        id=row["id"],
        name=row["name"],
        roles=frozenset(Role(r) for r in json.loads(row["roles"])),
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
    )
