"""``assay sources``: manage the source registry (E3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from assay.cli.common import (
    db_option,
    emit_json,
    json_option,
    parse_meta,
    table,
    today,
)
from assay.engine import Assay
from assay.sources import Source, SourceChange, changed_fields, successors
from assay.types import parse_date


def _attribute_options(*, adding: bool) -> Callable[[Any], Any]:
    """The options shared by ``add`` and ``update``: every editable attribute (the
    defaults ``add`` fills in are named only there)."""
    return lambda fn: _with_attribute_options(fn, adding=adding)


def _with_attribute_options(fn: Any, *, adding: bool) -> Any:
    options = [
        click.option(
            "--reliability",
            type=float,
            help="Reliability in [0, 1] [default: the kind's]."
            if adding
            else "New reliability in [0, 1] (a change of --kind resets it to the kind's).",
        ),
        click.option("--name", help="Human-readable name."),
        click.option("--owner", help="Who publishes it; same owner = not independent."),
        click.option("--jurisdiction", help="Jurisdiction, e.g. 'England and Wales'."),
        click.option("--court-level", help="Court level, for case law."),
        click.option("--overruled/--not-overruled", default=None, help="Overruled authority."),
        click.option(
            "--review-days",
            type=int,
            help="Review interval in days [default: the kind's]."
            if adding
            else "New review interval in days.",
        ),
        click.option(
            "--reviewed-at",
            help="Date of the last review (YYYY-MM-DD) [default: none; the first review is"
            " due one review interval after registration]."
            if adding
            else "Correct the date of the last review (YYYY-MM-DD); `assay sources review`"
            " records a new one.",
        ),
        click.option("--meta", multiple=True, help="Extra metadata as key=value (repeatable)."),
        click.option(
            "--supersedes",
            metavar="OLD",
            help="The registered source this one replaces (a policy's previous version): "
            "OLD's items are kept out of any answer that this source's items reach.",
        ),
        click.option("--note", help="Why the change is made (kept in the history)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _attributes(options: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    keys = (
        "reliability",
        "name",
        "owner",
        "jurisdiction",
        "court_level",
        "overruled",
        "supersedes",
    )
    for key in keys:
        if options.get(key) is not None:
            out[key] = options[key]
    if options.get("review_days") is not None:
        out["review_interval_days"] = options["review_days"]
    if options.get("reviewed_at"):
        out["reviewed_at"] = parse_date("--reviewed-at", options["reviewed_at"])
    if options.get("meta"):
        out["metadata"] = parse_meta(options["meta"])
    return out


def _described(source: Source, links: dict[str, str]) -> dict[str, Any]:
    """A source as ``list`` and ``show`` give it: its attributes and the sources that
    supersede it, directly or through others (nearest first)."""
    return source.as_dict() | {"superseded_by": list(successors(source.id, links))}


def _history(history: list[SourceChange]) -> list[dict[str, Any]]:
    """Each history entry with what it changed (``changed``: the new values)."""
    out, before = [], None
    for h in history:
        out.append(
            {
                "version": h.version,
                "action": h.action,
                "changed_at": h.changed_at,
                "actor": h.actor,
                "note": h.note,
                "changed": changed_fields(before, h.snapshot),
                "snapshot": h.snapshot,
            }
        )
        before = h.snapshot
    return out


@click.group()
def sources() -> None:
    """Register, review and inspect evidence sources.

    A source may supersede another: `add NEW --kind official --supersedes OLD` (or
    `update NEW --supersedes OLD`; `--no-supersedes` clears it). Where an item of NEW
    clears the gate, OLD's items in the same answer are excluded as source_superseded;
    `list` and `show` name the sources that supersede each one.
    """


@sources.command("add")
@click.argument("source_id")
@click.option(
    "--kind",
    required=True,
    help="official, verified_kb, internal_wiki, customer, unverified, or your own.",
)
@_attribute_options(adding=True)
@db_option
@json_option
def add(source_id: str, kind: str, db: Path | None, as_json: bool, **options: Any) -> None:
    """Register SOURCE_ID; its reliability defaults from its kind.

    With --supersedes OLD, SOURCE_ID replaces the registered source OLD (a new version
    of a policy): where an item of SOURCE_ID clears the gate, OLD's items are excluded
    as source_superseded; where none does, OLD's items stay, marked superseded.
    """
    attributes = _attributes(options)
    with Assay(db) as engine:
        source = engine.sources.add(
            source_id,
            kind,
            reliability=attributes.pop("reliability", None),
            review_interval_days=attributes.pop("review_interval_days", None),
            note=options.get("note"),
            **attributes,
        )
    if as_json:
        emit_json(source.as_dict())
    else:
        supersedes = f", supersedes {source.supersedes}" if source.supersedes else ""
        click.echo(
            f"added {source.id} ({source.kind}, reliability {source.reliability:.2f}"
            f"{supersedes}), version 1"
        )


@sources.command("update")
@click.argument("source_id")
@click.option(
    "--kind",
    help="Change the kind (reliability and review interval become the kind's unless given).",
)
@click.option(
    "--retired/--active", default=None, help="Retire the source (its items are excluded)."
)
@click.option(
    "--no-supersedes",
    "clear_supersedes",
    is_flag=True,
    help="Clear the source this one supersedes (OLD's items are used again).",
)
@_attribute_options(adding=False)
@db_option
@json_option
def update(
    source_id: str,
    kind: str | None,
    retired: bool | None,
    clear_supersedes: bool,
    db: Path | None,
    as_json: bool,
    **options: Any,
) -> None:
    """Change attributes of SOURCE_ID; the previous version stays in its history."""
    changes = _attributes(options)
    if kind is not None:
        changes["kind"] = kind
    if retired is not None:
        changes["retired"] = retired
    if clear_supersedes:
        if "supersedes" in changes:
            raise click.UsageError("give --supersedes OLD or --no-supersedes, not both")
        changes["supersedes"] = None
    if not changes:
        raise click.UsageError(
            "give at least one change: --kind, --retired/--active, --reliability, --name, "
            "--owner, --jurisdiction, --court-level, --overruled/--not-overruled, "
            "--review-days, --reviewed-at, --meta, --supersedes or --no-supersedes"
        )
    with Assay(db, create=False) as engine:
        before = engine.sources.get(source_id)
        source = engine.sources.update(source_id, note=options.get("note"), **changes)
    if as_json:
        emit_json(source.as_dict())
    elif source.version == before.version:
        click.echo(f"{source.id} unchanged: it already had those values (version {source.version})")
    else:
        changed = ", ".join(
            f"{k} {_plain(getattr(before, k))} -> {_plain(getattr(source, k))}"
            for k in sorted(changes)
            if getattr(before, k) != getattr(source, k)
        )
        click.echo(f"updated {source.id}: {changed}; now version {source.version}")


@sources.command("review")
@click.argument("source_id")
@click.option("--on", "on", help="Review date (YYYY-MM-DD) [default: today].")
@click.option("--reliability", type=float, help="Re-rate the source while reviewing it.")
@click.option("--note", help="What the review found.")
@db_option
@json_option
def review(
    source_id: str,
    on: str | None,
    reliability: float | None,
    note: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Record that SOURCE_ID was reviewed, restarting its review interval."""
    with Assay(db, create=False) as engine:
        source = engine.sources.review(
            source_id, on=parse_date("--on", on) or today(), reliability=reliability, note=note
        )
    if as_json:
        emit_json(source.as_dict())
    else:
        click.echo(
            f"reviewed {source.id} on {source.reviewed_at}; next review due {source.review_due()}"
        )


@sources.command("list")
@click.option("--kind", help="Only sources of this kind.")
@click.option("--due", is_flag=True, help="Only sources overdue for review.")
@click.option("--as-of", help="Date to judge reviews against (YYYY-MM-DD) [default: today].")
@db_option
@json_option
def list_sources(
    kind: str | None, due: bool, as_of: str | None, db: Path | None, as_json: bool
) -> None:
    """List registered sources; overdue reviews are flagged."""
    on = parse_date("--as-of", as_of) or today()
    with Assay(db, create=False) as engine:
        found = engine.sources.list(kind=kind, overdue_on=on if due else None)
        links = engine.sources.supersessions()
    if as_json:
        emit_json([_described(s, links) | {"review_overdue": s.review_overdue(on)} for s in found])
        return
    if not found:
        click.echo("no sources" + (" overdue for review" if due else ""))
        return
    rows = []
    for s in found:
        flags = [f for f, on_ in (("retired", s.retired), ("overruled", s.overruled)) if on_]
        if not s.retired and s.review_overdue(on):
            flags.append("REVIEW OVERDUE")
        if s.supersedes:
            flags.append(f"supersedes {s.supersedes}")
        newer = successors(s.id, links)
        if newer:
            flags.append(f"superseded by {', '.join(newer)}")
        due_date = s.review_due()
        rows.append(
            [
                s.id,
                s.kind,
                f"{s.reliability:.2f}",
                s.owner or "-",
                f"{due_date or 'now'}" + (" (never reviewed)" if s.reviewed_at is None else ""),
                " ".join(flags),
            ]
        )
    click.echo(table(rows, ["ID", "KIND", "RELIABILITY", "OWNER", "REVIEW DUE", "FLAGS"]))


@sources.command("show")
@click.argument("source_id")
@db_option
@json_option
def show(source_id: str, db: Path | None, as_json: bool) -> None:
    """Show SOURCE_ID, the sources that supersede it, and its full change history."""
    with Assay(db, create=False) as engine:
        source = engine.sources.get(source_id)
        history = _history(engine.sources.history(source_id))
        described = _described(source, engine.sources.supersessions())
    if as_json:
        emit_json(described | {"history": history})
        return
    for key, value in described.items():
        if value not in (None, {}, "", []):
            shown = ", ".join(value) if isinstance(value, list) else value
            click.echo(f"{key:>21}: {shown}")
    click.echo("history:")
    for h in history:
        changed = ", ".join(f"{k}={_plain(v)}" for k, v in h["changed"].items())
        click.echo(
            f"  v{h['version']} {h['changed_at']} {h['action']}"
            + (f" ({changed})" if changed else "")
            + (f": {h['note']}" if h["note"] else "")
        )


def _plain(value: Any) -> str:
    """A changed value as a person reads it: a cleared one as ``none``, a flag as yes/no
    (``retired=no``, not a bare ``retired`` that reads as the opposite)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "none" if value is None else str(value)


@sources.command("kinds")
@db_option
@json_option
def kinds(db: Path | None, as_json: bool) -> None:
    """List source kinds with their default reliability and review interval."""
    with Assay(db, create=False) as engine:
        known = engine.sources.kinds()
    if as_json:
        emit_json(
            [
                {
                    "name": k.name,
                    "reliability": k.reliability,
                    "review_interval_days": k.review_interval_days,
                    "builtin": k.builtin,
                }
                for k in known.values()
            ]
        )
        return
    rows = [
        [
            k.name,
            f"{k.reliability:.2f}",
            str(k.review_interval_days),
            "built-in" if k.builtin else "user",
        ]
        for k in known.values()
    ]
    click.echo(table(rows, ["KIND", "RELIABILITY", "REVIEW DAYS", "ORIGIN"]))


@sources.command("add-kind")
@click.argument("name")
@click.option("--reliability", type=float, required=True, help="Default reliability in [0, 1].")
@click.option(
    "--review-days", type=int, default=90, show_default=True, help="Default review interval."
)
@db_option
@json_option
def add_kind(
    name: str, reliability: float, review_days: int, db: Path | None, as_json: bool
) -> None:
    """Define a new source kind NAME."""
    with Assay(db) as engine:
        kind = engine.sources.add_kind(name, reliability, review_days)
    if as_json:
        emit_json(
            {
                "name": kind.name,
                "reliability": kind.reliability,
                "review_interval_days": kind.review_interval_days,
                "builtin": False,
            }
        )
    else:
        click.echo(
            f"added kind {kind.name} (reliability {kind.reliability:.2f}, "
            f"review every {kind.review_interval_days} days)"
        )
