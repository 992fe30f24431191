"""``assay ask``: answer from the knowledge base, or abstain, clarify or refuse (R1-R9, G1-G3).

The report leads with what the user receives (answer, status, decision, confidence,
fallback, the judge's verdict) and then shows the evidence behind it.
"""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.common import db_option, emit_json, json_option, shorten
from assay.cli.score import badge
from assay.engine import Assay
from assay.flow.assess import AskResult
from assay.flow.respond import Response
from assay.types import parse_date


def render(response: Response, *, show_excluded: int = 6) -> str:
    """The human-readable report: the answer and its checks, then the evidence."""
    a = response.assessment
    confidence = response.result.confidence
    calibrated = " calibrated" if "set" in response.result.calibration else ""
    label = response.result.scored.policy.labels.label(confidence)
    lines = [click.wrap_text(response.answer, width=100), ""]
    lines.append(
        f"status: {response.status.value}; decision: {response.decision.value}; confidence "
        f"{confidence:.2f}{calibrated} ({label.value}); fallback: "
        f"{' -> '.join(response.fallbacks) or 'none'}"
    )
    if response.citations is not None:
        c = response.citations
        invalid = f"; invalid: {', '.join(c.invalid)}" if c.invalid else ""
        lines.append(f"citations: {len(c.valid)} valid{invalid}")
    if response.judgment is not None:
        grades = ", ".join(g.grade for g in response.judgment.claims) or "not graded by claim"
        lines.append(
            f"judge: {a.confidence_score:.2f} -> {a.recommended_action} ({grades}); "
            f"{a.score_rationale}"
        )
        for conflict in a.source_conflicts:
            lines.append(
                f'  conflict ({conflict.nature}): "{shorten(conflict.claim, 60)}" '
                f"{conflict.source_a} vs {conflict.source_b}"
            )
    if response.broadening is not None:
        b = response.broadening
        lines.append(
            f"broadened with {len(b.phrasings)} phrasing(s): set confidence {b.before:.3f} -> "
            f"{b.after:.3f}, kept the {b.kept} set"
        )
    if response.review_id is not None:
        lines.append(f"queued for human review as item {response.review_id} (`assay review`)")
    lines.append("")
    return "\n".join(lines) + "\n" + render_evidence(response.result, show_excluded=show_excluded)


def render_evidence(result: AskResult, *, show_excluded: int = 6) -> str:
    """The human-readable report of one question, strongest evidence first."""
    scored, s = result.scored, result.signals
    p = scored.policy
    lines = [f"policy {p.name} v{p.version} (threshold {p.threshold:.2f}); as of {scored.as_of}"]
    lines.append(f"evidence an answer may use ({len(scored.admitted)}):")
    for e in sorted(scored.admitted, key=lambda e: -e.confidence):
        overdue = ", review overdue" if e.basis.review_overdue else ""
        if e.basis.superseded_by:  # no item of the newer source cleared the gate
            overdue += f", superseded by {', '.join(e.basis.superseded_by)}"
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
@click.option(
    "--severity",
    help="Pick the policy by severity instead: informational, financial, legal, safety_critical.",
)
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
    """Ask the knowledge base QUESTION: an answer with checked citations, or why not."""
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
