"""``assay db``: the database itself: its schema, and copying it to another backend."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from assay.cli.common import DatabaseTarget, db_option, emit_json, json_option
from assay.errors import InvalidInputError
from assay.settings import database_target, load_settings
from assay.store import migrate_database, open_database
from assay.store.copy import copy_database


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
