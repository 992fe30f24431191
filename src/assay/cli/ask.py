"""``assay ask``: retrieve, score, gate, corroborate, compute set signals and route (R1-R7)."""

from __future__ import annotations

from pathlib import Path

import click

from assay.ask import AskResult
from assay.cli.common import db_option, emit_json, json_option, shorten
from assay.cli.score import badge
from assay.engine import Assay
from assay.types import parse_date


def render(result: AskResult, *, show_excluded: int = 6) -> str:
    """The human-readable report of one question, strongest evidence first."""
    scored, s = result.scored, result.signals
    p = scored.policy
    lines = [f"policy {p.name} v{p.version} (threshold {p.threshold:.2f}); as of {scored.as_of}"]
    lines.append(f"evidence an answer may use ({len(scored.admitted)}):")
    for e in sorted(scored.admitted, key=lambda e: -e.confidence):
        overdue = ", review overdue" if e.basis.review_overdue else ""
        where = e.candidate.metadata.get("location", "")
        lines.append(
            f"  {badge(e.label, e.confidence)} {e.basis.source_id} ({e.basis.source_kind}"
            f"{overdue}) {where}"
        )
        lines.append(f"      {shorten(e.candidate.text, 96)}")
    lines.append(f"excluded ({len(scored.excluded)}):")
    for e in sorted(scored.excluded, key=lambda e: -e.confidence)[:show_excluded]:
        lines.append(
            f"  {badge(e.label, e.confidence)} {e.basis.source_id or e.basis.source_kind}"
            f" -- {e.reason.value if e.reason else ''}: {e.detail}"
        )
    if len(scored.excluded) > show_excluded:
        lines.append(f"  ... and {len(scored.excluded) - show_excluded} more")
    several_sources = len({e.basis.source_id for e in scored.admitted}) > 1
    for f in scored.findings if several_sources else []:
        lines.append(
            f"finding {f.id}: {f.status.value}, {f.independent_sources} independent "
            f"source(s) ({', '.join(f.source_ids)}) {badge(f.label, f.confidence)}"
        )
    sources = {e.id: e.basis.source_id or e.basis.source_kind for e in scored.admitted}
    for c in result.conflicts:
        lines.append(
            f'conflict ({c.kind}): {sources.get(c.first)} "{shorten(c.sentences[0], 50)}" vs '
            f'{sources.get(c.second)} "{shorten(c.sentences[1], 50)}"'
        )
    judged = "" if s.judgment is None else f", relevance judgment {s.judgment:.2f}"
    lines.append(
        f"set confidence {s.composite:.3f} (top {s.top:.2f}, gap {s.gap:.2f}, concentration "
        f"{s.concentration:.2f}, coherence {s.coherence:.2f}, coverage {s.coverage:.2f}"
        f"{judged})"
    )
    lines.append(f"decision: {result.route.decision.value.upper()}")
    lines.extend(f"  - {reason}" for reason in result.route.reasons)
    lines.append(f"audit event {result.event_id}")
    return "\n".join(lines)


@click.command()
@click.argument("question")
@click.option("--policy", help="Policy name or a .toml file [default: the configured default].")
@click.option("--severity", help="Pick the policy by severity instead.")
@click.option(
    "--top-k",
    type=click.IntRange(1, 200),
    default=8,
    show_default=True,
    help="How many chunks to retrieve.",
)
@click.option("--category", help="Question category with its own routing bands in the policy.")
@click.option("--as-of", help="Date freshness is measured against (YYYY-MM-DD) [default: today].")
@click.option(
    "--jurisdiction", help="Jurisdiction of the question; sources of others are penalised."
)
@db_option
@json_option
def ask(
    question: str,
    policy: str | None,
    severity: str | None,
    top_k: int,
    category: str | None,
    as_of: str | None,
    jurisdiction: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Ask the knowledge base QUESTION: which evidence may an answer use, and should it answer?"""
    with Assay(db, create=False) as engine:
        result = engine.ask(
            question,
            policy=policy,
            severity=severity,
            top_k=top_k,
            category=category,
            as_of=parse_date("--as-of", as_of),
            jurisdiction=jurisdiction,
        )
    if as_json:
        emit_json(result.as_dict())
    else:
        click.echo(render(result))
