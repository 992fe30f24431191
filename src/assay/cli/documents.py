"""``assay documents``: what the knowledge base holds, with the source each file was
ingested under, its dates and its chunks."""

from __future__ import annotations

from pathlib import Path

import click

from assay.access import parse_labels
from assay.audit.log import MAX_LIST
from assay.cli.common import db_option, emit_json, json_option, table
from assay.engine import Assay
from assay.errors import UNSET, InvalidInputError


@click.group()
def documents() -> None:
    """List, show and relabel the documents of the knowledge base.

    Each document keeps the source it was ingested under: `assay ingest PATH` again,
    without --source, reuses it.
    """


@documents.command("list")
@click.option("--source", "source_id", help="Only the documents of this source.")
@click.option(
    "--limit", type=click.IntRange(1, MAX_LIST), help="At most this many (by uri) [default: all]."
)
@db_option
@json_option
def list_documents(
    source_id: str | None, limit: int | None, db: Path | None, as_json: bool
) -> None:
    """List documents by uri: id, source, published and verified dates, chunks, title."""
    with Assay(db, create=False) as engine:
        found = engine.documents(source_id=source_id, limit=limit)
    if as_json:
        emit_json([d.as_dict() for d in found])
        return
    if not found:
        click.echo("no documents" + (f" of source {source_id}" if source_id else ""))
        return
    rows = [
        [
            d.id[:12],
            d.source_id,
            str(d.published or "-"),
            str(d.verified or "-"),
            str(d.chunk_count),
            ",".join(d.access) or "-",
            d.title or "-",
            d.uri,
        ]
        for d in found
    ]
    click.echo(
        table(rows, ["ID", "SOURCE", "PUBLISHED", "VERIFIED", "CHUNKS", "ACCESS", "TITLE", "URI"])
    )


@documents.command("show")
@click.argument("document_id")
@db_option
@json_option
def show(document_id: str, db: Path | None, as_json: bool) -> None:
    """Show DOCUMENT_ID (a full id, or a prefix of at least 6 characters that `list`
    prints) with its source's kind and reliability."""
    with Assay(db, create=False) as engine:
        document = engine.document(_full_id(engine, document_id))
        source = engine.sources.get(document.source_id)
    described = document.as_dict() | {
        "source_kind": source.kind,
        "source_reliability": source.reliability,
    }
    if as_json:
        emit_json(described)
        return
    for key, value in described.items():
        if value not in (None, ""):
            click.echo(f"{key:>18}: {value}")


@documents.command("relabel")
@click.argument("document_id")
@click.option(
    "--access",
    "labels",
    multiple=True,
    metavar="LABEL",
    help="An access label (repeatable, or separated by commas); they replace the "
    "document's labels: only keys granted one of them read it.",
)
@click.option("--public", is_flag=True, help="Remove every label: every key reads it.")
@click.option("--note", help="Why, for the audit log.")
@db_option
@json_option
def relabel(
    document_id: str,
    labels: tuple[str, ...],
    public: bool,
    note: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Change who may read DOCUMENT_ID (an id or a prefix `list` prints); audited, with
    the labels it had before."""
    if bool(labels) == public:
        raise InvalidInputError(
            "--access", UNSET, "give --access LABEL (repeatable) or --public, not both",
            problem="is missing" if not labels else "clashes with --public",
        )  # fmt: skip
    given = parse_labels(",".join(labels))  # a bad label fails before anything is read
    with Assay(db, create=False) as engine:
        before = engine.document(_full_id(engine, document_id))
        after = engine.relabel(before.id, given, note=note)
    if as_json:
        emit_json(after.as_dict() | {"before": list(before.access)})
        return
    was, now = ",".join(before.access) or "every key", ",".join(after.access) or "every key"
    click.echo(f"relabelled {after.uri}: {was} -> {now}")


def _full_id(engine: Assay, given: str) -> str:
    """The id ``given`` names: itself, or the one document whose id starts with it."""
    given = given.strip()
    if len(given) >= 24:
        return given
    fix = "give the full id or a prefix of at least 6 of its characters (`assay documents list`)"
    if len(given) < 6:
        raise InvalidInputError("document_id", given, fix, problem="is too short to name one")
    matches = [d.id for d in engine.documents() if d.id.startswith(given)]
    if len(matches) > 1:
        raise InvalidInputError("document_id", given, fix, problem="is ambiguous")
    return matches[0] if matches else given
