"""``assay db``: the database itself: its schema, and copying it to another backend."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.common import DatabaseTarget, db_option, emit_json, json_option, table
from assay.errors import InvalidInputError
from assay.settings import database_target, is_database_url, load_settings
from assay.store import migrate_database, open_database
from assay.store.copy import copy_database

if TYPE_CHECKING:
    from assay.store.postgres.connection import PostgresSession


@click.group()
def db() -> None:
    """Manage the database: an SQLite file or a PostgreSQL server."""


@db.command("migrate")
@db_option
@json_option
def migrate(db: Path | str | None, as_json: bool) -> None:
    """Bring the database's schema up to this version of assay.

    An SQLite file is migrated whenever assay opens it; a PostgreSQL database only by
    this command (run it as the role that owns the tables, once per release).
    """
    target = load_settings(db=db).db
    applied = migrate_database(target)
    if as_json:
        emit_json({"applied": applied})
        return
    if applied:
        click.echo(f"applied {len(applied)} migration(s): {', '.join(applied)}")
    else:
        click.echo("the schema is current; nothing to apply")


@db.command("copy")
@click.option(
    "--from", "source", required=True, type=DatabaseTarget(), help="The database to copy."
)
@click.option(
    "--to", "target", required=True, type=DatabaseTarget(),
    help="An empty database (migrated first if needed): a new SQLite file or a PostgreSQL URL.",
)  # fmt: skip
@json_option
def copy(source: Path | str, target: Path | str, as_json: bool) -> None:
    """Copy a whole database to another backend: sources with their history, the knowledge
    base, the audit log, review queue, keys, calibration maps and alerts.

    The copy's audit log verifies with the same head hash. Policies are files: copy the
    policy folders along.
    """
    source_target = database_target(source)
    copy_target = database_target(target)
    if str(source_target) == str(copy_target):
        raise InvalidInputError("--to", str(target), "copy into another database")
    if isinstance(copy_target, Path) and not copy_target.parent.is_dir():
        raise InvalidInputError(
            "--to", str(target), f"create {str(copy_target.parent)!r} first, or give a file "
            "in a folder that exists", problem="is in a folder that does not exist",
        )  # fmt: skip
    migrate_database(copy_target)
    origin = open_database(source_target, create=False)
    try:
        destination = open_database(copy_target)
        try:
            report = copy_database(origin, destination)
        finally:
            destination.close()
    finally:
        origin.close()
    uploads = _copy_uploads(source_target, copy_target)
    seq, head = report.audit_head or (0, "-")
    if as_json:
        emit_json(
            {"rows": report.rows, "audit_events": seq, "audit_head": head, "uploads": uploads}
        )
        return
    copied = ", ".join(f"{n} {table}" for table, n in report.rows.items() if n)
    click.echo(f"copied {copied or 'an empty database'}")
    if uploads:
        click.echo(uploads)
    click.echo(f"audit head: seq {seq}, {head} (the same on both; `assay audit verify` checks it)")


def _copy_uploads(source: Path | str, target: Path | str) -> str | None:
    """Copy the uploaded files the service kept beside ``source`` to where the service
    keeps them for ``target``; what was done, for the report (``None``: none to copy)."""
    origin = load_settings(db=source).uploads_root
    destination = load_settings(db=target).uploads_root
    if not origin.is_dir() or origin == destination:
        return None
    if destination.exists():
        return f"uploads: {destination} exists already; copy {origin} into it yourself"
    shutil.copytree(origin, destination)
    return f"uploads: {origin} copied to {destination}"


@db.group("label-index")
def label_index() -> None:
    """Partial vector indexes for large access labels (PostgreSQL).

    A key granted a label whose documents hold many chunks (more than 20,000) but a
    small share of the knowledge base searches that label's own index instead of
    filtering the whole graph. Build one for each label many keys are granted; build it
    again after documents with new label combinations arrive (`list` shows what it no
    longer covers). The index changes how fast a search runs, never what it returns.
    """


@label_index.command("create")
@click.argument("label")
@db_option
@json_option
def create_label_index(label: str, db: Path | str | None, as_json: bool) -> None:
    """Build LABEL's index (again), over the chunks that carry it now. Writes to the
    knowledge base wait while it builds (minutes per 100,000 chunks); searches go on."""
    from assay.engine import vector_index
    from assay.store.postgres.label_indexes import create_label_index as create

    settings = load_settings(db=db)
    with _postgres(settings.db) as session:
        built = create(session, label, vector_index(settings))
    if as_json:
        emit_json(built.as_dict())
        return
    click.echo(f"built {built.name} for label {built.label!r}: {built.chunks_now:,} chunks")


@label_index.command("drop")
@click.argument("label")
@db_option
def drop_label_index(label: str, db: Path | str | None) -> None:
    """Drop LABEL's index; its chunks are then found through the filtered walk."""
    from assay.store.postgres.label_indexes import drop_label_index as drop

    with _postgres(load_settings(db=db).db) as session:
        if not drop(session, label):
            raise InvalidInputError("label", label, "see `assay db label-index list`",
                                    problem="has no label index")  # fmt: skip
    click.echo(f"dropped the label index of {label!r}")


@label_index.command("list")
@db_option
@json_option
def list_label_indexes(db: Path | str | None, as_json: bool) -> None:
    """The label indexes, with the chunks each covers and those of its label it does not
    (documents with a label combination made after it was built: build it again)."""
    from assay.store.postgres.label_indexes import label_indexes

    with _postgres(load_settings(db=db).db) as session:
        found = label_indexes(session, counts=True)
    if as_json:
        emit_json([ix.as_dict() for ix in found])
        return
    if not found:
        click.echo("no label indexes")
        return
    rows = [
        [ix.label, f"{ix.chunks_now:,}", f"{ix.label_chunks_now - ix.chunks_now:,}",
         ix.built.strftime("%Y-%m-%d %H:%M"), ix.name]
        for ix in found
    ]  # fmt: skip
    click.echo(table(rows, ["LABEL", "COVERED", "NOT COVERED", "BUILT", "INDEX"]))


@contextmanager
def _postgres(target: Path | str) -> Iterator[PostgresSession]:
    """The PostgreSQL session of ``target``; SQLite is an error that says why none is
    needed there."""
    if not is_database_url(target):
        raise InvalidInputError(
            "--db", str(target), "label indexes are for PostgreSQL; SQLite's filtered search "
            "needs none (docs/benchmarks.md: within 1.1x of unfiltered at 1M chunks)",
            problem="is an SQLite database",
        )  # fmt: skip
    database = open_database(target, create=False)
    try:
        yield database.session  # type: ignore[attr-defined]
    finally:
        database.close()
