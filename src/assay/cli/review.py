"""``assay review``: work through the human-review queue (J6).

Answers routed to ``human_review`` wait in the queue; a reviewer lists them, reads one
with its assessment, and resolves it as correct or incorrect. Each verdict is audited
and kept as a calibration label.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from assay.cli.ask import with_labels
from assay.cli.common import db_option, emit_json, json_option, shorten, table
from assay.engine import Assay
from assay.errors import AssayError
from assay.review import ReviewItem


@click.group()
def review() -> None:
    """List, read and resolve answers queued for human review."""


@review.command("list")
@click.option(
    "--status",
    default="pending",
    show_default=True,
    help="Which items: pending, resolved or all.",
)
@click.option(
    "--limit", type=int, default=50, show_default=True, help="How many items, newest first."
)
@db_option
@json_option
def list_items(status: str, limit: int, db: Path | None, as_json: bool) -> None:
    """List queued answers, newest first."""
    with Assay(db, create=False) as engine:
        items = engine.review.list(status=status, limit=limit)
    if as_json:
        emit_json([item.to_dict() for item in items])
        return
    if not items:
        click.echo("no review items" if status == "all" else f"no {status} review items")
        return
    rows = [
        [
            str(item.id),
            item.status,
            f"{item.confidence_score:.3f}",
            item.verdict or "-",
            item.created_at[:19],
            shorten(item.query, 50),
        ]
        for item in items
    ]
    click.echo(table(rows, ["ID", "STATUS", "SCORE", "VERDICT", "QUEUED (UTC)", "QUERY"]))


@review.command("show")
@click.argument("item_id", type=int)
@db_option
@json_option
def show(item_id: int, db: Path | None, as_json: bool) -> None:
    """Show one queued answer in full, with its assessment."""
    with Assay(db, create=False) as engine:
        item = engine.review.get(item_id)
        evidence = [] if as_json else _evidence(engine, item)
        passages = {} if as_json else _passages(engine, item, {str(e.get("id")) for e in evidence})
    if as_json:
        emit_json(item.to_dict())
        return
    _print_item(item, evidence, passages)


def _evidence(engine: Assay, item: ReviewItem) -> list[dict[str, Any]]:
    """The evidence the queued answer could use, strongest first, as its ask event
    recorded it (id, source, kind, title, confidence, label, text): the reviewer reads
    the passages with the same [E1] labels `assay ask` printed. Empty when the event
    cannot be read."""
    try:
        payload = engine.audit.get(item.event_id).payload
    except AssayError:
        return []
    items = payload.get("evidence") if isinstance(payload, dict) else None
    listed = items if isinstance(items, list) else []
    admitted = [e for e in listed if isinstance(e, dict) and e.get("admitted")]
    return sorted(admitted, key=lambda e: -float(e.get("confidence") or 0.0))


def _passages(engine: Assay, item: ReviewItem, listed: set[str]) -> dict[str, str]:
    """``source: text`` of the passages a conflict names that the evidence list lacks
    (an item queued from elsewhere), while the knowledge base holds them: a reviewer
    cannot judge a conflict between two bare ids."""
    named = [
        str(c.get(side))
        for c in item.assessment.get("source_conflicts") or []
        if isinstance(c, dict)
        for side in ("source_a", "source_b")
        if str(c.get(side)) not in listed
    ]
    if not named:
        return {}
    return {c.id: f"{c.source_id}: {shorten(c.text, 90)}" for c in engine.store.get(named)}


@review.command("resolve")
@click.argument("item_id", type=int)
@click.option(
    "--verdict", required=True, help="Whether the answer was right: correct or incorrect."
)
@click.option("--note", help="What the reviewer found (kept with the verdict).")
@click.option(
    "--correction",
    metavar="ANSWER",
    help="With --verdict incorrect: the right answer (kept with the verdict and audited).",
)
@db_option
@json_option
def resolve(
    item_id: int,
    verdict: str,
    note: str | None,
    correction: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Record the verdict on ITEM_ID; it is audited and kept as a calibration label."""
    with Assay(db, create=False) as engine:
        item = engine.review.resolve(item_id, verdict, note, correction=correction)
    if as_json:
        emit_json(item.to_dict())
        return
    click.echo(
        f"resolved review item {item.id} as {item.verdict} "
        f"(audit event {str(item.resolution_event_id)[:12]})"
    )


def _print_item(item: ReviewItem, evidence: list[dict[str, Any]], passages: dict[str, str]) -> None:
    """The whole item as text: what was asked, answered, assessed and decided, and the
    evidence it rested on, each passage labelled E1, E2... as in the answer and the
    conflicts."""
    a: dict[str, Any] = item.assessment
    labels = {str(e.get("id")): f"E{i}" for i, e in enumerate(evidence, start=1)}
    sources = {str(e.get("id")): str(e.get("source_id") or e.get("source_kind")) for e in evidence}
    click.echo(f"review item {item.id} ({item.status}), queued {item.created_at}")
    click.echo(f"ask event: {item.event_id}")
    click.echo(f"policy: {item.policy_name} v{item.policy_version}")
    click.echo(f"reason: {item.reason}")
    click.echo(f"query: {item.query}")
    click.echo(f"answer: {with_labels(item.answer, labels)}")
    click.echo(f"confidence: {item.confidence_score:.3f}")
    click.echo(f"action: {a.get('recommended_action', '-')}")
    click.echo(f"rationale: {a.get('score_rationale', '-')}")
    sufficiency = a.get("evidence_sufficiency")
    if isinstance(sufficiency, dict) and sufficiency.get("missing_information"):
        click.echo("missing information:")
        for missing in sufficiency["missing_information"]:
            click.echo(f"  - {missing}")
    for key, title in (
        ("unsupported_claims", "unsupported claims"),
        ("speculation_flags", "speculation"),
    ):
        if a.get(key):
            click.echo(f"{title}:")
            for entry in a[key]:
                click.echo(f"  - {entry}")
    for conflict in a.get("source_conflicts") or []:
        if isinstance(conflict, dict):
            sides = [str(conflict.get(k)) for k in ("source_a", "source_b")]
            named = [f"{labels[x]} ({sources[x]})" if x in labels else x for x in sides]
            click.echo(
                f"conflict ({conflict.get('nature')}): {named[0]} vs {named[1]}: "
                f"{shorten(str(conflict.get('claim')), 90)}"
            )
            for side in sides:
                if side in passages:
                    click.echo(f"  {side[:12]}  {passages[side]}")
    if evidence:
        click.echo(f"evidence ({len(evidence)}):")
    for e in evidence:
        badge = f"[{e.get('label')} {float(e.get('confidence') or 0):.3f}]"
        click.echo(
            f"  [{labels[str(e.get('id'))]}] {badge} {e.get('source_id')} "
            f"({e.get('source_kind')}) {e.get('title') or ''}".rstrip()
        )
        click.echo(f"      {shorten(str(e.get('text')), 96)}")
    if "unreadable_assessment" in a:
        click.echo(f"assessment (unreadable): {a['unreadable_assessment']}")
    if item.status == "resolved":
        click.echo(f"verdict: {item.verdict} at {item.resolved_at}")
        if item.note:
            click.echo(f"note: {item.note}")
        if item.correction:
            click.echo(f"right answer: {item.correction}")
        click.echo(f"resolution event: {item.resolution_event_id}")
