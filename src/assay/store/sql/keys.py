"""The ``api_keys`` and ``dashboard_sessions`` tables (secrets and session ids as sha256)."""

from __future__ import annotations

import json

from assay.store.records import ApiKey, Role
from assay.store.sql.session import Row, Session


class SQLKeyRepository:
    """:class:`~assay.store.repositories.KeyRepository` on one session."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

    def add(self, key: ApiKey, secret_sha256: str) -> None:
        self._conn.execute(
            "INSERT INTO api_keys (id, name, roles, secret_sha256, created_at, min_severity,"
            " grants) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                key.id,
                key.name,
                json.dumps(sorted(key.roles)),
                secret_sha256,
                key.created_at,
                key.min_severity,
                json.dumps(sorted(key.grants)),
            ),
        )

    def all(self, *, include_revoked: bool) -> list[ApiKey]:
        sql = "SELECT * FROM api_keys" + ("" if include_revoked else " WHERE revoked_at IS NULL")
        return [_key(row) for row in self._conn.execute(sql + " ORDER BY created_at, id")]

    def get(self, key_id: str) -> tuple[ApiKey, str] | None:
        row = self._conn.execute("SELECT * FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        return None if row is None else (_key(row), str(row["secret_sha256"]))

    def revoke(self, key_id: str, revoked_at: str) -> None:
        self._conn.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ?", (revoked_at, key_id))
        self._conn.execute(
            "UPDATE dashboard_sessions SET closed_at = ? WHERE key_id = ? AND closed_at IS NULL",
            (revoked_at, key_id),
        )

    def open_session(self, id_sha256: str, key_id: str, created_at: str, expires_at: str) -> None:
        self._conn.execute(
            "INSERT INTO dashboard_sessions (id_sha256, key_id, created_at, expires_at)"
            " VALUES (?, ?, ?, ?)",
            (id_sha256, key_id, created_at, expires_at),
        )

    def session_key(self, id_sha256: str, now: str) -> ApiKey | None:
        row = self._conn.execute(
            "SELECT k.* FROM dashboard_sessions s JOIN api_keys k ON k.id = s.key_id"
            " WHERE s.id_sha256 = ? AND s.closed_at IS NULL AND s.expires_at > ?"
            " AND k.revoked_at IS NULL",
            (id_sha256, now),
        ).fetchone()
        return _key(row) if row else None

    def close_sessions_beyond(self, key_id: str, newest: str, keep: int, closed_at: str) -> None:
        self._conn.execute(
            "UPDATE dashboard_sessions SET closed_at = ? WHERE key_id = ? AND closed_at IS NULL"
            " AND id_sha256 != ? AND id_sha256 NOT IN (SELECT id_sha256 FROM dashboard_sessions"
            " WHERE key_id = ? AND closed_at IS NULL AND id_sha256 != ?"
            " ORDER BY created_at DESC, id_sha256 LIMIT ?)",
            (closed_at, key_id, newest, key_id, newest, keep - 1),
        )

    def close_session(self, id_sha256: str, closed_at: str) -> None:
        self._conn.execute(
            "UPDATE dashboard_sessions SET closed_at = ? WHERE id_sha256 = ? AND closed_at IS NULL",
            (closed_at, id_sha256),
        )


def _key(row: Row) -> ApiKey:
    return ApiKey(
        id=row["id"],
        name=row["name"],
        roles=frozenset(Role(r) for r in json.loads(row["roles"])),
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
        min_severity=row["min_severity"],
        grants=frozenset(json.loads(row["grants"])),
    )
