"""``assay db``: the database itself: its schema."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.common import db_option, emit_json, json_option
from assay.settings import load_settings
from assay.store import migrate_database


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
