"""The managed source registry (E3, E9).

Each source has a kind (official, verified_kb, internal_wiki, customer, unverified,
or a kind the user adds), a reliability in [0, 1] that defaults from its kind, and
metadata that legal and compliance work needs (jurisdiction, court level, whether
it was overruled, owner). Every add, update and review bumps the source's version
and appends a full snapshot to ``source_history`` in the same transaction, so the
registry's past is always reconstructable. A source whose last review is older
than its review interval is flagged as overdue.

A source may name the one it ``supersedes`` (``travel-policy-2026`` supersedes
``travel-policy-2024``). The older source must be registered, must not be the source
itself, and following the links from it must never come back to the newer one: the
links form chains (or trees, when a document was split), never cycles. The gate reads
them through :func:`successors` (see :mod:`assay.scoring.gate`).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Mapping
from dataclasses import fields, replace
from datetime import UTC, date, datetime
from typing import Any

from assay.errors import ConflictError, InvalidInputError, UnknownSourceError, did_you_mean
from assay.store.records import Source, SourceChange, SourceKind
from assay.store.repositories import Database
from assay.types import check_encodable, check_unit_interval, parse_date

__all__ = [
    "MAX_REVIEW_DAYS",
    "Source",
    "SourceChange",
    "SourceKind",
    "SourceRegistry",
    "changed_fields",
    "successors",
]

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
    "supersedes",
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
        exist_ok: bool = False,
        **attributes: Any,
    ) -> Source:
        """Register a source; reliability and review interval default from its kind.

        ``exist_ok``: a source with this id and kind already registered is returned as it
        is (a setup script run twice); its attributes are changed only by :meth:`update`.
        """
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
            existing = self._find(source_id)
            if existing is not None and exist_ok and existing.kind == kind:
                return existing
            if existing is not None:
                raise ConflictError(
                    f"source {source_id!r} already exists"
                    + (f" as kind {existing.kind!r}" if exist_ok else "")
                    + "; change it with `assay sources update`"
                )
            self._check_supersedes(source)
            self._write(source, insert=True)
            self._log(source, "add", actor, note)
        return source

    def get(self, source_id: str) -> Source:
        """The source with this id, or :class:`~assay.errors.UnknownSourceError`."""
        source = self._find(source_id)
        if source is None:
            raise UnknownSourceError(source_id)
        return source

    def list(
        self, *, kind: str | None = None, overdue_on: date | str | None = None
    ) -> list[Source]:
        """All sources by id; optionally one kind, or only those overdue for review on
        ``overdue_on`` (a date or an ISO date string)."""
        overdue_on = parse_date("overdue_on", overdue_on)
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
            if updated == current:  # nothing to record: no new version, no history row
                return current
            updated = replace(updated, version=current.version + 1, updated_at=_now())
            if updated.supersedes != current.supersedes:
                self._check_supersedes(updated)
            self._write(updated, insert=False)
            self._log(updated, "update", actor, note)
        return updated

    def review(
        self,
        source_id: str,
        *,
        on: date | str,
        reliability: float | None = None,
        actor: str | None = None,
        note: str | None = None,
    ) -> Source:
        """Record that a person reviewed the source on ``on`` (a date or an ISO date
        string; optionally re-rating it)."""
        day = parse_date("on", on)
        if day is None:
            raise InvalidInputError("on", on, "give the day of the review, e.g. 2026-11-29")
        today = datetime.now(UTC).date()
        if day > today:
            raise InvalidInputError(
                "review date", day.isoformat(), f"a review cannot be dated after today ({today})"
            )
        changes: dict[str, Any] = {"reviewed_at": day}
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

    # -- supersession ----------------------------------------------------------
    def supersessions(self) -> dict[str, str]:
        """Every supersession link: the newer source's id -> the id it supersedes."""
        return self._db.sources.supersessions()

    def superseded_by(self, source_id: str) -> tuple[str, ...]:
        """The sources that supersede ``source_id``, directly or through others, nearest
        first (see :func:`successors`); empty when it is current."""
        self.get(source_id)
        return successors(source_id, self.supersessions())

    def _check_supersedes(self, source: Source) -> None:
        """Refuse a link to an unknown source or one that would close a cycle; inside the
        caller's unit of work, with the links read so that no other writer changes them
        before it ends."""
        older = source.supersedes
        if older is None:
            return
        links = self._db.sources.supersessions(for_update=True)
        if self._find(older) is None:
            known = [s.id for s in self._db.sources.all()]
            raise InvalidInputError(
                "supersedes",
                older,
                f"{did_you_mean(older, known)}name a registered source, or register it first "
                "with `assay sources add ID --kind KIND`",
                problem="is not in the source registry",
            )
        links[source.id] = older
        chain = [older]
        while chain[-1] in links and len(chain) <= len(links):
            chain.append(links[chain[-1]])
            if chain[-1] == source.id:
                raise InvalidInputError(
                    "supersedes",
                    older,
                    f"{older} already supersedes {source.id} ({' -> '.join(chain)}); name an "
                    "older source, or clear a link with `assay sources update ID --no-supersedes`",
                    problem="would make a cycle",
                )

    # -- storage -------------------------------------------------------------
    def _find(self, source_id: str) -> Source | None:
        return self._db.sources.find(source_id)

    def _write(self, s: Source, *, insert: bool) -> None:
        self._db.sources.write(s, insert=insert)

    def _log(self, s: Source, action: str, actor: str | None, note: str | None) -> None:
        check_encodable("note", note)  # inside the caller's unit of work: nothing lands
        self._db.sources.log(
            SourceChange(s.id, s.version, action, s.updated_at, actor, note, s.as_dict())
        )


def successors(source_id: str, links: Mapping[str, str]) -> tuple[str, ...]:
    """Every source that supersedes ``source_id``, directly or through others.

    ``links`` maps each newer source to the one it supersedes. The result is ordered
    breadth first, nearest first (the direct successors, then theirs), and by id among
    the successors of one source, so it is the same on every call; ``source_id`` itself
    never appears in it, even if the stored links were to hold a cycle.
    """
    newer: dict[str, list[str]] = {}
    for new, old in sorted(links.items()):
        newer.setdefault(old, []).append(new)
    found: list[str] = []
    seen = {source_id}
    step = [source_id]
    while step:
        following = []
        for current in step:
            for candidate in newer.get(current, ()):
                if candidate not in seen:
                    seen.add(candidate)
                    following.append(candidate)
        found.extend(following)
        step = following
    return tuple(found)


def changed_fields(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> dict[str, Any]:
    """What one history entry changed: each attribute of the snapshot ``after`` whose
    value differs from the previous snapshot ``before``, with its new value.

    For the first entry (``before`` is ``None``) that is every attribute given a value.
    The id and bookkeeping (version, timestamps, the review due date) are left out; an attribute
    that an older snapshot predates counts as unset.
    """
    ignored = {"id", "version", "created_at", "updated_at", "review_due"}
    out = {}
    for key, value in after.items():
        if key in ignored:
            continue
        if before is None:
            if value is not None and value is not False and value != {}:
                out[key] = value
        elif before.get(key) != value:
            out[key] = value
    return out


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
    check_encodable(name, value)
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
    check_encodable("metadata", merged["metadata"])
    if merged["supersedes"] is not None:
        _check_id("supersedes", merged["supersedes"])
        if merged["supersedes"] == merged["id"]:
            raise InvalidInputError(
                "supersedes",
                merged["supersedes"],
                "name the older source this one replaces, not the source itself",
                problem="is the source itself",
            )
    return Source(**merged)
