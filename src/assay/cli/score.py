"""``assay score``: score, gate and corroborate a candidate file (E1-E10).

Contract (other tools depend on it exactly)::

    assay score --query TEXT --candidates FILE.jsonl --policy NAME
                [--as-of YYYY-MM-DD] [--db PATH] --json

One JSON object per input line: ``id``, ``text``, ``similarity``, ``source_id`` or
``source_kind``, ``published``, optionally ``verified``, ``title``, ``uri``,
``metadata``. The JSON output is :meth:`assay.flow.score.ScoreResult.as_dict`.
"""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.common import db_option, emit_json, json_option, read_jsonl, shorten
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.flow.score import ScoreResult
from assay.types import Candidate, Label, parse_date


def read_candidates(path: str) -> list[Candidate]:
    """Parse a JSONL candidate file (``-`` for stdin); errors name the line."""
    out = []
    for where, record in read_jsonl(path, "--candidates"):
        try:
            out.append(Candidate.from_mapping(record))
        except InvalidInputError as exc:
            raise exc.at(where) from None
    return out


def badge(label: Label, confidence: float) -> str:
    """The label beside the number, as every output shows it (E7): ``[high 0.912]``."""
    return f"[{label.value} {confidence:.3f}]"


def render(result: ScoreResult) -> str:
    """The human-readable report of a scoring result."""
    p = result.policy
    w = p.weights
    lines = [
        f"policy {p.name} v{p.version}: threshold {p.threshold:.2f}, similarity floor "
        f"{p.similarity_floor:.2f}, weights sim {w.similarity:.2f} / src {w.source:.2f} / "
        f"fresh {w.freshness:.2f}; as of {result.as_of}",
        f"admitted ({len(result.admitted)}):",
    ]
    for e in result.admitted:
        source = e.basis.source_kind + (f": {e.basis.source_id}" if e.basis.source_id else "")
        source += ", review overdue" if e.basis.review_overdue else ""
        if e.basis.superseded_by:  # no item of the newer source cleared the gate
            source += f", superseded by {', '.join(e.basis.superseded_by)}"
        lines.append(
            f"  {badge(e.label, e.confidence)} {e.id}  ({source})  {shorten(e.candidate.text, 60)}"
        )
    lines.append(f"excluded ({len(result.excluded)}):")
    for e in result.excluded:
        reason = e.reason.value if e.reason else ""
        lines.append(f"  {badge(e.label, e.confidence)} {e.id}  {reason}: {e.detail}")
    lines.append(f"findings ({len(result.findings)}):")
    for f in result.findings:
        plural = "" if f.independent_sources == 1 else "s"
        lines.append(
            f"  {f.id} {f.status.value} ({f.independent_sources} independent source{plural}: "
            f"{', '.join(f.source_ids)}) {badge(f.label, f.confidence)} {shorten(f.summary, 60)}"
        )
    lines.append(f"audit event {result.event_id}")
    return "\n".join(lines)


@click.command()
@click.option("--query", required=True, help="The question the candidates were retrieved for.")
@click.option(
    "--candidates",
    "candidates_path",
    required=True,
    help="JSONL file of candidates ('-' for stdin).",
)
@click.option("--policy", help="Policy name or a .toml file [default: the configured default].")
@click.option(
    "--severity",
    help="Pick the policy by severity instead: informational, financial, legal, safety_critical.",
)
@click.option("--as-of", help="Date freshness is measured against (YYYY-MM-DD) [default: today].")
@click.option(
    "--jurisdiction", help="Jurisdiction of the question; sources of others are penalised."
)
@db_option
@json_option
def score(
    query: str,
    candidates_path: str,
    policy: str | None,
    severity: str | None,
    as_of: str | None,
    jurisdiction: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Score retrieved candidates, keep weak evidence out, and log the event."""
    candidates = read_candidates(candidates_path)
    with Assay(db) as engine:
        result = engine.score(
            query,
            candidates,
            policy=policy,
            severity=severity,
            as_of=parse_date("--as-of", as_of),
            jurisdiction=jurisdiction,
        )
    if as_json:
        emit_json(result.as_dict())
    else:
        click.echo(render(result))
