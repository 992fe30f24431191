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

A key may be granted access labels (``grants``): it then reads the documents without
labels and those holding one of its labels (:mod:`assay.access`); keys with the auditor
or admin role read every document.

A key may carry a severity floor (``min_severity``): it then asks only under policies
of that severity or a stricter one (informational < financial < legal <
safety_critical). A request naming a milder policy or severity is refused (403); one
naming neither is asked under the floor's policy (:func:`assay.policy.check_floor`). A
reader key for a compliance assistant cannot pick ``informational`` to get what
``financial`` would withhold.

Creating and revoking a key are audit events (kind ``key``), in one transaction with
the change.

The dashboard never keeps a key in its cookie: logging in exchanges the key for a
session (:meth:`KeyStore.open_session`), a random id of which only the sha256 is
stored, with an expiry; logging out closes it, and revoking the key ends every
session it opened. A key keeps at most :data:`MAX_SESSIONS` open: a new login closes
its oldest (a script that logs in in a loop cannot fill the table).
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from assay.access import parse_labels
from assay.audit import AuditLog
from assay.errors import ConflictError, InvalidInputError, NotFoundError
from assay.events import KeyRecord, KeyView
from assay.hashing import sha256_hex
from assay.policy import SEVERITIES
from assay.store.records import ApiKey, Role
from assay.store.repositories import Database

__all__ = ["ApiKey", "KeyStore", "Role", "parse_roles"]


#: the open dashboard sessions one key may hold; a new login closes the oldest
MAX_SESSIONS = 16
_TOKEN = re.compile(r"assay_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
_NAME = re.compile(r"[\w .@-]{1,64}")


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

    def __init__(self, db: Database, audit: AuditLog) -> None:
        self._db = db
        self._audit = audit

    def create(
        self,
        name: str,
        roles: Iterable[str | Role],
        *,
        min_severity: str | None = None,
        grants: Iterable[str] = (),
    ) -> tuple[ApiKey, str]:
        """A new key and its token (``assay_<id>_<secret>``): the only time it is shown.
        ``min_severity``: the mildest severity it may ask under (see the module docstring);
        ``grants``: the access labels whose documents it may read besides unlabelled ones
        (keys with the auditor or admin role read every document)."""
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise InvalidInputError("name", name, "use 1-64 letters, digits, spaces or . @ _ -")
        granted = parse_roles(str(r) for r in roles)
        if min_severity is not None:
            min_severity = _severity(min_severity)
        labels = parse_labels(grants, field="grant")
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        key = ApiKey(key_id, name, granted, _now(), min_severity=min_severity, grants=labels)
        with self._db.unit_of_work():
            self._db.keys.add(key, sha256_hex(secret))
            self._event("create", key)
        return key, f"assay_{key_id}_{secret}"

    def list(self, *, include_revoked: bool = True) -> list[ApiKey]:
        """Every key, oldest first."""
        return self._db.keys.all(include_revoked=include_revoked)

    def get(self, key_id: str) -> ApiKey:
        """The key with this id."""
        found = self._db.keys.get(key_id)
        if found is None:
            raise NotFoundError(f"API key {key_id!r} not found; list keys with `assay keys list`")
        return found[0]

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key: it stops working at once and stays listed."""
        with self._db.unit_of_work():
            key = self.get(key_id)
            if not key.active:
                raise ConflictError(f"API key {key_id!r} was already revoked at {key.revoked_at}")
            revoked = replace(key, revoked_at=_now())
            self._db.keys.revoke(key_id, str(revoked.revoked_at))  # and its sessions
            self._event("revoke", revoked)
        return revoked

    def authenticate(self, token: str) -> ApiKey | None:
        """The active key this token belongs to, or ``None`` (malformed, unknown, revoked
        or a wrong secret: the caller cannot tell which, by design)."""
        match = _TOKEN.fullmatch(token.strip()) if isinstance(token, str) else None
        if match is None:
            return None
        found = self._db.keys.get(match.group(1))
        if found is None or not found[0].active:
            return None
        key, secret_sha256 = found
        if not hmac.compare_digest(secret_sha256, sha256_hex(match.group(2))):
            return None
        return key

    def open_session(self, key: ApiKey, lifetime: timedelta) -> str:
        """A new dashboard session for ``key`` lasting ``lifetime``: its token (shown once);
        the key's oldest open sessions beyond :data:`MAX_SESSIONS` are closed."""
        token = "session_" + secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        opened = sha256_hex(token)
        with self._db.unit_of_work():
            self._db.keys.open_session(opened, key.id, _iso(now), _iso(now + lifetime))
            self._db.keys.close_sessions_beyond(key.id, opened, MAX_SESSIONS, _iso(now))
        return token

    def session_key(self, token: str) -> ApiKey | None:
        """The key of an open, unexpired session whose key is not revoked; else ``None``."""
        if not isinstance(token, str) or not token.startswith("session_"):
            return None
        return self._db.keys.session_key(sha256_hex(token), _now())

    def close_session(self, token: str) -> None:
        """End a session (logout); an unknown or closed one is left as it is."""
        if isinstance(token, str):
            with self._db.unit_of_work():
                self._db.keys.close_session(sha256_hex(token), _now())

    def _event(self, action: str, key: ApiKey) -> None:
        record = KeyRecord(action=action, key=KeyView.model_validate(key.to_dict()))
        self._audit.append(record, query="", policy_name="", policy_version="")


def _now() -> str:
    return _iso(datetime.now(UTC))


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _severity(value: str) -> str:
    if value not in SEVERITIES:
        raise InvalidInputError(
            "min_severity", value, f"choose one of {', '.join(SEVERITIES)} (mildest first)"
        )
    return value
