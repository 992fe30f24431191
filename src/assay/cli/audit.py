"""``assay audit``: read, verify and export the audit log (E8, B2)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

import click

from assay.access import Access
from assay.audit import AuditEvent, VerifyReport
from assay.audit.seal import AuditKey, append_checkpoint, read_checkpoints
from assay.cli.ask import with_labels
from assay.cli.common import db_option, emit_json, json_option, shorten, table
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.events import ScoreRecord
from assay.hashing import canonical_json


@click.group()
def audit() -> None:
    """Inspect the tamper-evident log of retrieval events."""


@audit.command("list")
@click.option(
    "--limit", type=int, default=20, show_default=True, help="How many events, newest first."
)
@click.option("--policy", help="Only events under this policy.")
@click.option("--since", help="Only events at or after this ISO time.")
@click.option("--until", help="Only events before this ISO time.")
@db_option
@json_option
def list_events(
    limit: int,
    policy: str | None,
    since: str | None,
    until: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """List recent retrieval events."""
    with Assay(db, create=False) as engine:
        events = engine.audit.list(limit=limit, policy=policy, since=since, until=until)
    if as_json:
        emit_json([e.as_dict() for e in events])
        return
    if not events:
        click.echo("no audit events")
        return
    rows = []
    for e in events:
        scored = _scored(e)
        counts = f"{scored.counts.admitted}/{scored.counts.excluded}" if scored else "-/-"
        rows.append(
            [
                str(e.seq),
                e.event_id[:12],
                e.created_at[:19],
                f"{e.policy_name} v{e.policy_version}",
                counts,
                shorten(e.query, 40),
            ]
        )
    click.echo(table(rows, ["SEQ", "EVENT", "TIME (UTC)", "POLICY", "IN/OUT", "QUERY"]))


def _searched_as(actor: str | None, payload: dict[str, Any]) -> str | None:
    """``searched by key K, which reads ...``: whose grants limited a question's search
    (``None`` for an event without a search, or one recorded before grants were)."""
    retrieval = payload.get("retrieval")
    access = retrieval.get("access") if isinstance(retrieval, dict) else None
    if not isinstance(access, dict):
        return None
    grants = access.get("grants")
    grants = grants if isinstance(grants, list) else []
    reads = Access(frozenset(str(g) for g in grants), bool(access.get("everything")))
    who = f"key {actor}" if actor else "the database's owner"
    return f"searched by {who}, which reads {reads.describe()}"


@audit.command("show")
@click.argument("event_id")
@db_option
@json_option
def show(event_id: str, db: Path | None, as_json: bool) -> None:
    """Show one event with every candidate's scores and verdict."""
    with Assay(db, create=False) as engine:
        event = engine.audit.get(event_id)
    if as_json:
        emit_json(event.as_dict())
        return
    click.echo(f"event {event.event_id} (seq {event.seq}) at {event.created_at}")
    click.echo(f"query: {event.query}")
    scored = _scored(event)
    as_of = scored.as_of if scored else None
    click.echo(f"policy: {event.policy_name} v{event.policy_version}, as of {as_of}")
    payload = event.payload if isinstance(event.payload, dict) else {}
    searched = _searched_as(event.actor, payload)
    if searched:
        click.echo(searched)
    evidence = scored.evidence if scored else []
    # E1, E2... as `assay ask` and `assay review show` label the admitted items
    ranked = sorted((e for e in evidence if e.admitted), key=lambda e: -e.confidence)
    labels = {e.id: f"E{i}" for i, e in enumerate(ranked, start=1)}
    answer, draft = payload.get("answer"), payload.get("draft")
    if isinstance(answer, str):
        click.echo(f"answer: {with_labels(answer, labels)}")
    drafted = draft.get("text") if isinstance(draft, dict) else None
    if isinstance(drafted, str) and drafted and drafted != answer:  # withheld or rewritten
        click.echo(f"draft: {with_labels(drafted, labels)}")
    rows = []
    for item in evidence:
        s = item.scores
        verdict = "admitted" if item.admitted else item.reason or "excluded"
        rows.append(
            [
                labels.get(item.id, "-"),
                item.id[:12],
                item.source,
                f"{s['similarity']:.3f}",
                f"{s['source']:.3f}",
                f"{s['freshness']:.3f}",
                f"{item.confidence:.3f}",
                item.label,
                verdict,
                shorten(item.text, 48),
            ]
        )
    if rows:
        header = ["E", "ID", "SOURCE", "SIM", "SRC", "FRESH", "C", "LABEL", "VERDICT", "TEXT"]
        click.echo(table(rows, header))
    click.echo(f"hash {event.row_hash}\nprev {event.prev_hash}")


@audit.command("verify")
@click.option(
    "--checkpoint",
    "checkpoint_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="File of checkpoints (`assay audit checkpoint`), repeatable: catches rows cut "
    "from the end and a rewritten chain.",
)
@click.option(
    "--expect-head",
    help="Head hash recorded earlier (`assay audit head`): catches rows cut from the end.",
)
@click.option(
    "--no-replay", is_flag=True, help="Check the hash chain only, without recomputing scores."
)
@db_option
@json_option
def verify(
    checkpoint_files: tuple[Path, ...],
    expect_head: str | None,
    no_replay: bool,
    db: Path | None,
    as_json: bool,
) -> None:
    """Check the hash chain, the seals and every score; exit 1 naming any broken row."""
    checkpoints = [c for path in checkpoint_files for c in read_checkpoints(path)]
    with Assay(db, create=False) as engine:
        report = engine.audit.verify(
            expected_head=expect_head, checkpoints=checkpoints, replay=not no_replay
        )
    if as_json:
        emit_json(report.as_dict())
    elif report.ok:
        click.echo(f"audit log intact: {report.events} events, head {report.head}")
        click.echo(_keyed_line(report))
    else:
        for problem in report.problems:
            click.echo(f"TAMPERED {problem}", err=True)
        click.echo(
            f"audit log broken: {len(report.problems)} problem(s) in {report.events} events",
            err=True,
        )
    if not report.ok:
        sys.exit(1)


def _keyed_line(report: VerifyReport) -> str:
    """How far the chain's seals and checkpoints vouch for it, in one line."""
    anchors = f"; {report.checkpoints} checkpoint(s) hold" if report.checkpoints else ""
    if report.keyed == "unkeyed":
        return (
            f"unkeyed: no row is sealed{anchors}. Anyone who can write the file could append "
            "or rewrite rows; set ASSAY_AUDIT_KEY_FILE (`assay audit keygen FILE`) and keep "
            "checkpoints (`assay audit checkpoint`) elsewhere"
        )
    checked = (
        f"with key {report.key_id}"
        if not report.unchecked
        else "NOT checked: no audit key configured (ASSAY_AUDIT_KEY_FILE)"
    )
    older = f", {report.unsealed} older row(s) unsealed" if report.unsealed else ""
    return f"sealed: {report.sealed} row(s) {checked}{older}{anchors}"


@audit.command("keygen")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def keygen(path: Path) -> None:
    """Write a new audit key to PATH (owner-readable only; never overwrites).

    Keep it away from the database and its backups: whoever holds it can seal rows.
    """
    key = AuditKey.generate(path)
    click.echo(f"audit key {key.key_id} written to {path}")
    # the absolute path: a relative one breaks in the next shell that starts elsewhere
    click.echo(f"seal new rows with it: export ASSAY_AUDIT_KEY_FILE={path.resolve()}")


@audit.command("retire")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@db_option
def retire(path: Path, db: Path | None) -> None:
    """Mark the audit key in PATH retired after the last row it sealed.

    Run it when you replace the key, after every service sealing with it has stopped.
    `assay audit verify` then names any row the old key seals later as a forgery, and
    the key can no longer be the ASSAY_AUDIT_KEY_FILE.
    """
    with Assay(db, create=False) as engine:
        key = engine.audit.retire_key(path)
    click.echo(f"audit key {key.key_id} retired: it sealed rows up to seq {key.sealed_through}")
    click.echo(f"check them with it: export ASSAY_AUDIT_RETIRED_KEY_FILES={path.resolve()}")


@audit.command("checkpoint")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Append the checkpoint to this file [default: print it].",
)
@db_option
def checkpoint(output: Path | None, db: Path | None) -> None:
    """Print (or append to a file) the head as one sealed JSON line, to keep elsewhere.

    `assay audit verify --checkpoint FILE` then reports rows cut from the end below it
    and any rewrite of the rows it covers.
    """
    with Assay(db, create=False) as engine:
        point = engine.audit.checkpoint()
    if output is None or str(output) == "-":
        click.echo(canonical_json(point.as_dict()))
        return
    append_checkpoint(output, point, setting="--output")
    click.echo(f"checkpoint at seq {point.seq} appended to {output}", err=True)


@audit.command("head")
@db_option
@json_option
def head(db: Path | None, as_json: bool) -> None:
    """Print the event count and head hash, to keep somewhere the database is not."""
    with Assay(db, create=False) as engine:
        count, digest = engine.audit.head()
    if as_json:
        emit_json({"events": count, "head": digest})
    else:
        click.echo(f"{count} {digest}")


@audit.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl"]),
    default="jsonl",
    show_default=True,
    help="Export format.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write [default: stdout].",
)
@click.option("--policy", help="Only events under this policy.")
@click.option("--since", help="Only events at or after this ISO time.")
@click.option("--until", help="Only events before this ISO time.")
@db_option
def export(
    fmt: str,
    output: Path | None,
    policy: str | None,
    since: str | None,
    until: str | None,
    db: Path | None,
) -> None:
    """Export events oldest first, one JSON object a line, hashes included.

    A regular file is written whole or not at all (via a temporary file); `-o -`,
    pipes and devices are written in place.
    """
    with Assay(db, create=False) as engine:
        events = engine.audit.iter_all(policy=policy, since=since, until=until)
        if output is None or str(output) == "-":
            for event in events:
                click.echo(canonical_json(event.as_dict()))
            return
        _check_output(output, engine.settings.db)
        try:
            if output.exists() and not output.is_file():  # a pipe or a device: write in place
                with output.open("w", encoding="utf-8") as fh:
                    count = _write_events(events, fh)
            else:
                tmp = output.with_name(output.name + ".part")
                with tmp.open("w", encoding="utf-8") as fh:
                    count = _write_events(events, fh)
                tmp.replace(output)
        except OSError as exc:
            raise InvalidInputError(
                "--output", str(output), "write somewhere writable", problem=f"failed ({exc})"
            ) from None
    click.echo(f"exported {count} events to {output}", err=True)


def _write_events(events: Iterable[AuditEvent], fh: TextIO) -> int:
    count = 0
    for event in events:
        fh.write(canonical_json(event.as_dict()) + "\n")
        count += 1
    return count


def _check_output(output: Path, db: Path | str) -> None:
    """Refuse an export target that would overwrite the database file itself."""
    if not output.parent.resolve().is_dir():
        raise InvalidInputError("--output", str(output), "write into an existing folder")
    if isinstance(db, str):  # a server's database: no file here to protect
        return
    database = db.expanduser().resolve()
    protected = {database, Path(f"{database}-wal"), Path(f"{database}-shm")}
    if output.resolve() in protected:
        raise InvalidInputError(
            "--output", str(output), "choose another file", problem="is the audit database itself"
        )


def _scored(event: AuditEvent) -> ScoreRecord | None:
    """The scoring record of a ``score`` or ``ask`` event; ``None`` for other kinds and
    for a payload that does not match its record (``audit verify`` names those)."""
    try:
        record = event.record()
    except ValueError:
        return None
    return record if isinstance(record, ScoreRecord) else None
