"""The managed source registry (E3, E9).

Each source has a kind (official, verified_kb, internal_wiki, customer, unverified,
or a kind the user adds), a reliability in [0, 1] that defaults from its kind, and
metadata that legal and compliance work needs (jurisdiction, court level, whether
it was overruled, owner). Every add, update and review bumps the source's version
and appends a full snapshot to ``source_history`` in the same transaction, so the
registry's past is always reconstructable. A source whose last review is older
than its review interval is flagged as overdue.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import fields, replace
from datetime import UTC, date, datetime
from typing import Any

from assay.errors import ConflictError, InvalidInputError, UnknownSourceError, did_you_mean
from assay.store.records import Source, SourceChange, SourceKind
from assay.store.repositories import Database
from assay.types import check_unit_interval, parse_date

__all__ = ["MAX_REVIEW_DAYS", "Source", "SourceChange", "SourceKind", "SourceRegistry"]

MAX_REVIEW_DAYS = 36_500  # a century: anything longer is a typo
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$")


_EDITABLE = (
    "kind",
    "reliability",
    "name",
    "owner",
    "jurisdiction",
    "court_level",
    "overruled",
    "retired",
    "review_interval_days",
    "reviewed_at",
    "metadata",
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SourceRegistry:
    """Sources and source kinds persisted in the assay database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- kinds ---------------------------------------------------------------
    def kinds(self) -> dict[str, SourceKind]:
        """Every known kind, built-in and user-defined, by name."""
        return self._db.sources.kinds()

    def kind(self, name: str) -> SourceKind:
        """The kind called ``name``, or an error listing the known kinds."""
        kinds = self.kinds()
        if name not in kinds:
            raise InvalidInputError(
                "source_kind",
                name,
                f"{did_you_mean(name, kinds)}use one of {', '.join(kinds)} "
                "or add it with `assay sources add-kind`",
                problem="is not a known source kind",
            )
        return kinds[name]

    def add_kind(self, name: str, reliability: float, review_interval_days: int = 90) -> SourceKind:
        """Define a new source kind with its default reliability."""
        _check_id("kind", name)
        reliability = check_unit_interval("reliability", reliability)
        _check_interval(review_interval_days)
        kind = SourceKind(name, reliability, review_interval_days, False)
        with self._db.unit_of_work():
            if name in self._db.sources.kinds():
                raise ConflictError(f"source kind {name!r} already exists")
            self._db.sources.add_kind(kind, _now())
        return kind

    # -- sources -------------------------------------------------------------
    def add(
        self,
        source_id: str,
        kind: str,
        *,
        reliability: float | None = None,
        review_interval_days: int | None = None,
        actor: str | None = None,
        note: str | None = None,
        **attributes: Any,
    ) -> Source:
        """Register a source; reliability and review interval default from its kind."""
        _check_id("source id", source_id)
        kind_info = self.kind(kind)
        source = Source(
            id=source_id,
            kind=kind,
            reliability=kind_info.reliability if reliability is None else reliability,
            review_interval_days=(
                kind_info.review_interval_days
                if review_interval_days is None
                else review_interval_days
            ),
        )
        source = _validated(source, attributes)
        now = _now()
        source = replace(source, version=1, created_at=now, updated_at=now)
        with self._db.unit_of_work():
            if self._find(source_id) is not None:
                raise ConflictError(
                    f"source {source_id!r} already exists; change it with `assay sources update`"
                )
            self._write(source, insert=True)
            self._log(source, "add", actor, note)
        return source

    def get(self, source_id: str) -> Source:
        """The source with this id, or :class:`~assay.errors.UnknownSourceError`."""
        source = self._find(source_id)
        if source is None:
            raise UnknownSourceError(source_id)
        return source

    def list(self, *, kind: str | None = None, overdue_on: date | None = None) -> list[Source]:
        """All sources by id; optionally one kind, or only those overdue for review."""
        if kind is not None:
            self.kind(kind)
        sources = self._db.sources.all()
        if kind is not None:
            sources = [s for s in sources if s.kind == kind]
        if overdue_on is not None:
            sources = [s for s in sources if not s.retired and s.review_overdue(overdue_on)]
        return sources

    def update(
        self, source_id: str, *, actor: str | None = None, note: str | None = None, **changes: Any
    ) -> Source:
        """Change some attributes of a source; a new version is recorded.

        A change of kind also resets reliability and review interval to the new kind's
        defaults, unless the same call sets them: an "unverified" source must not keep
        the reliability it had as "official".
        """
        if not changes:
            raise InvalidInputError(
                "changes",
                changes,
                f"name at least one of {', '.join(_EDITABLE)}",
                problem="are empty",
            )
        with self._db.unit_of_work():
            current = self.get(source_id)
            if "kind" in changes:
                kind = self.kind(changes["kind"])
                changes.setdefault("reliability", kind.reliability)
                changes.setdefault("review_interval_days", kind.review_interval_days)
            updated = _validated(current, changes)
            updated = replace(updated, version=current.version + 1, updated_at=_now())
            self._write(updated, insert=False)
            self._log(updated, "update", actor, note)
        return updated

    def review(
        self,
        source_id: str,
        *,
        on: date,
        reliability: float | None = None,
        actor: str | None = None,
        note: str | None = None,
    ) -> Source:
        """Record that a person reviewed the source on ``on`` (optionally re-rating it)."""
        today = datetime.now(UTC).date()
        if on > today:
            raise InvalidInputError(
                "review date", on.isoformat(), f"a review cannot be dated after today ({today})"
            )
        changes: dict[str, Any] = {"reviewed_at": on}
        if reliability is not None:
            changes["reliability"] = reliability
        with self._db.unit_of_work():
            current = self.get(source_id)
            updated = replace(
                _validated(current, changes), version=current.version + 1, updated_at=_now()
            )
            self._write(updated, insert=False)
            self._log(updated, "review", actor, note)
        return updated

    def history(self, source_id: str) -> builtins.list[SourceChange]:
        """Every recorded change of a source, oldest first."""
        self.get(source_id)
        return self._db.sources.history(source_id)

    # -- storage -------------------------------------------------------------
    def _find(self, source_id: str) -> Source | None:
        return self._db.sources.find(source_id)

    def _write(self, s: Source, *, insert: bool) -> None:
        self._db.sources.write(s, insert=insert)

    def _log(self, s: Source, action: str, actor: str | None, note: str | None) -> None:
        self._db.sources.log(
            SourceChange(s.id, s.version, action, s.updated_at, actor, note, s.as_dict())
        )


def _check_id(what: str, value: Any) -> None:
    if not isinstance(value, str) or not _ID_PATTERN.match(value):
        raise InvalidInputError(
            what,
            value,
            "use 1-128 letters, digits and . _ : / - (starting with a letter or digit)",
        )


def _check_interval(days: Any) -> None:
    if isinstance(days, bool) or not isinstance(days, int) or not 0 < days <= MAX_REVIEW_DAYS:
        raise InvalidInputError(
            "review_interval_days", days, f"give a whole number of days from 1 to {MAX_REVIEW_DAYS}"
        )


def _optional_text(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(name, value, "give a non-empty string or leave it out")
    return value


def _validated(source: Source, changes: dict[str, Any]) -> Source:
    """Apply ``changes`` to ``source`` after checking each value."""
    unknown = sorted(set(changes) - set(_EDITABLE))
    if unknown:
        raise InvalidInputError(
            "source attribute",
            unknown[0],
            f"use one of {', '.join(_EDITABLE)}",
            problem="is not a source attribute",
        )
    merged = {f.name: getattr(source, f.name) for f in fields(source)} | changes
    merged["reliability"] = check_unit_interval("reliability", merged["reliability"])
    _check_interval(merged["review_interval_days"])
    for name in ("name", "owner", "jurisdiction", "court_level"):
        merged[name] = _optional_text(name, merged[name])
    for name in ("overruled", "retired"):
        if not isinstance(merged[name], bool):
            raise InvalidInputError(name, merged[name], "use true or false")
    merged["reviewed_at"] = parse_date("reviewed_at", merged["reviewed_at"])
    today = datetime.now(UTC).date()
    if merged["reviewed_at"] is not None and merged["reviewed_at"] > today:
        raise InvalidInputError(
            "reviewed_at",
            merged["reviewed_at"].isoformat(),
            f"a review cannot be dated after today ({today})",
        )
    if not isinstance(merged["metadata"], dict):
        raise InvalidInputError("metadata", merged["metadata"], "give a JSON object")
    return Source(**merged)
