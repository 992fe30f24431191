"""``assay keys``: API keys of the HTTP service and their roles (B4)."""

from __future__ import annotations

from pathlib import Path

import click

from assay.access import parse_labels
from assay.cli.common import db_option, emit_json, json_option, table
from assay.engine import Assay
from assay.keys import Role
from assay.policy import SEVERITIES


@click.group()
def keys() -> None:
    """Create, list and revoke API keys (roles: reader, curator, auditor, admin)."""


@keys.command("create")
@click.argument("name")
@click.option(
    "--role",
    "roles",
    multiple=True,
    required=True,
    type=click.Choice([r.value for r in Role]),
    help="A role the key grants (repeatable).",
)
@click.option(
    "--min-severity",
    type=click.Choice(SEVERITIES),
    help="The mildest severity the key may ask under: a milder policy is refused (403), "
    "and a request naming none is asked under this severity [default: any].",
)
@click.option(
    "--grant",
    "grants",
    multiple=True,
    metavar="LABEL",
    help="An access label whose documents the key may read (repeatable; or several "
    "separated by commas). Without one it reads only unlabelled documents; keys with the "
    "auditor or admin role read every document.",
)
@db_option
@json_option
def create(
    name: str,
    roles: tuple[str, ...],
    min_severity: str | None,
    grants: tuple[str, ...],
    db: Path | None,
    as_json: bool,
) -> None:
    """Create a key called NAME; its token is printed once and never stored."""
    labels = parse_labels(",".join(grants), field="grant")  # each --grant may list several
    with Assay(db) as engine:
        key, token = engine.keys.create(name, roles, min_severity=min_severity, grants=labels)
    if as_json:
        emit_json(key.to_dict() | {"token": token})
        return
    floor = f", asking under {min_severity} or stricter" if min_severity else ""
    click.echo(f"created key {key.id} ({', '.join(sorted(roles))}{floor}) for {name}")
    click.echo(f"it reads {key.access.describe()}")
    click.echo("token (shown only now; send it as 'Authorization: Bearer <token>'):")
    click.echo(token)


@keys.command("list")
@db_option
@json_option
def list_keys(db: Path | None, as_json: bool) -> None:
    """Every key with its roles; revoked keys stay listed."""
    with Assay(db, create=False) as engine:
        listed = engine.keys.list()
    if as_json:
        emit_json([k.to_dict() for k in listed])
        return
    rows = [
        [
            k.id,
            k.name,
            ",".join(sorted(r.value for r in k.roles)),
            k.min_severity or "any",
            "all" if k.access.everything else ",".join(sorted(k.grants)) or "-",
            k.created_at,
            k.revoked_at or "active",
        ]
        for k in listed
    ]
    click.echo(table(rows, ["ID", "NAME", "ROLES", "MIN SEVERITY", "GRANTS", "CREATED", "STATUS"]))


@keys.command("revoke")
@click.argument("key_id")
@db_option
@json_option
def revoke(key_id: str, db: Path | None, as_json: bool) -> None:
    """Revoke KEY_ID: requests with it fail from now on."""
    with Assay(db, create=False) as engine:
        key = engine.keys.revoke(key_id)
    if as_json:
        emit_json(key.to_dict())
    else:
        click.echo(f"revoked key {key.id} ({key.name}) at {key.revoked_at}")
