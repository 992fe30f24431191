"""``assay policies``: inspect the confidence policies in force (E2, E6)."""

from __future__ import annotations

import json
from typing import Any

import click

from assay.cli.common import emit_json, json_option, table
from assay.policy import PolicyBook
from assay.settings import load_settings


def _book() -> PolicyBook:
    settings = load_settings()
    return PolicyBook.load(settings.policy_dirs, severity_policies=settings.severity_policies)


def to_toml(data: dict[str, Any]) -> str:
    """Write a policy's ``as_dict()`` as TOML (flat values first, then tables)."""

    def value(v: Any) -> str:
        return json.dumps(v) if not isinstance(v, bool) else str(v).lower()

    def emit(table_data: dict[str, Any], prefix: str, out: list[str]) -> None:
        scalars = {k: v for k, v in table_data.items() if not isinstance(v, dict)}
        tables = {k: v for k, v in table_data.items() if isinstance(v, dict)}
        if prefix and (scalars or not tables):
            out.append(f"\n[{prefix}]")
        out.extend(f"{k} = {value(v)}" for k, v in scalars.items())
        for name, sub in tables.items():
            emit(sub, f"{prefix}.{name}" if prefix else name, out)

    lines: list[str] = []
    emit(data, "", lines)
    return "\n".join(lines).strip() + "\n"


@click.group()
def policies() -> None:
    """List and show confidence policies (built-in and from ASSAY_POLICY_DIRS)."""


@policies.command("list")
@json_option
def list_policies(as_json: bool) -> None:
    """List every policy with its threshold and weights."""
    book = _book()
    items = [book.get(name) for name in book.names()]
    if as_json:
        emit_json(
            [
                {
                    "name": p.name,
                    "version": p.version,
                    "severity": p.severity.value,
                    "threshold": p.threshold,
                    "similarity_floor": p.similarity_floor,
                    "weights": p.weights.as_dict(),
                    "origin": book.origin(p.name),
                }
                for p in items
            ]
        )
        return
    rows = [
        [
            p.name,
            p.version,
            p.severity.value,
            f"{p.threshold:.2f}",
            f"{p.similarity_floor:.2f}",
            "/".join(f"{w:.2f}" for w in p.weights.as_dict().values()),
            book.origin(p.name),
        ]
        for p in items
    ]
    click.echo(
        table(
            rows, ["NAME", "VERSION", "SEVERITY", "THRESHOLD", "FLOOR", "WEIGHTS s/s/f", "ORIGIN"]
        )
    )


@policies.command("show")
@click.argument("name")
@json_option
def show(name: str, as_json: bool) -> None:
    """Show policy NAME as TOML (a starting point for your own policy file)."""
    policy = _book().get(name)
    if as_json:
        emit_json(policy.as_dict() | {"digest": policy.digest})
    else:
        click.echo(f"# digest {policy.digest}")
        click.echo(to_toml(policy.as_dict()), nl=False)
