"""``assay ask``: answer from the knowledge base, or abstain, clarify or refuse (R1-R9, G1-G3).

The report leads with what the user receives (answer, status, decision, confidence,
fallback, the judge's verdict) and then shows the evidence behind it. Each admitted item
is labelled ``[E1]``, ``[E2]``... strongest first, and the same label stands for it in
the answer's citations, the conflicts and the findings, where a person would otherwise
have to match 24-digit ids by eye; ``--json`` keeps the full ids.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from assay.answer.citations import CITATION, split_ids
from assay.cli.common import db_option, emit_json, json_option, shorten
from assay.cli.score import badge
from assay.engine import Assay
from assay.flow.assess import AskResult
from assay.flow.respond import Response
from assay.types import parse_date


def evidence_labels(result: AskResult) -> dict[str, str]:
    """``E1``, ``E2``... for the admitted items, strongest first (as the report lists them)."""
    ranked = sorted(result.scored.admitted, key=lambda e: -e.confidence)
    return {e.id: f"E{i}" for i, e in enumerate(ranked, start=1)}


def with_labels(text: str, labels: dict[str, str]) -> str:
    """``text`` with each citation's ids replaced by their labels: ``[Source: 6740f4...]``
    becomes ``[E1]`` (an id without a label, one that failed its check, stays as it is)."""

    def short(match: re.Match[str]) -> str:
        return "[" + ", ".join(labels.get(i, i) for i in split_ids(match.group(1))) + "]"

    return CITATION.sub(short, text)


def render(response: Response, *, show_excluded: int = 6) -> str:
    """The human-readable report: the answer and its checks, then the evidence."""
    a = response.assessment
    confidence = response.result.confidence
    calibrated = " calibrated" if "set" in response.result.calibration else ""
    label = response.result.scored.policy.labels.label(confidence)
    labels = evidence_labels(response.result)
    named = {e.id: f"{labels[e.id]} ({e.basis.source_id})" for e in response.result.scored.admitted}
    lines = [click.wrap_text(with_labels(response.answer, labels), width=100), ""]
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
            first = named.get(conflict.source_a, conflict.source_a)
            second = named.get(conflict.source_b, conflict.source_b)
            lines.append(
                f'  conflict ({conflict.nature}): "{shorten(conflict.claim, 60)}" '
                f"{first} vs {second}"
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
    labels = evidence_labels(result)
    lines.append(f"evidence an answer may use ({len(scored.admitted)}):")
    for e in sorted(scored.admitted, key=lambda e: -e.confidence):
        overdue = ", review overdue" if e.basis.review_overdue else ""
        if e.basis.superseded_by:  # no item of the newer source cleared the gate
            overdue += f", superseded by {', '.join(e.basis.superseded_by)}"
        where = e.candidate.metadata.get("location", "")
        lines.append(
            f"  [{labels[e.id]}] {badge(e.label, e.confidence)} {e.basis.source_id} "
            f"({e.basis.source_kind}{overdue}) {where}"
        )
        lines.append(f"      {shorten(e.candidate.text, 96)}")
    lines.append(f"excluded ({len(scored.excluded)}):")
    for e in sorted(scored.excluded, key=lambda e: -e.confidence)[:show_excluded]:
        where = e.candidate.metadata.get("location")  # two passages of a source told apart
        lines.append(
            f"  {badge(e.label, e.confidence)} {e.basis.source_id or e.basis.source_kind}"
            + (f" {where}" if where else "")
            + f" -- {e.reason.value if e.reason else ''}: {e.detail}"
        )
    if len(scored.excluded) > show_excluded:
        lines.append(f"  ... and {len(scored.excluded) - show_excluded} more")
    several_sources = len({e.basis.source_id for e in scored.admitted}) > 1
    for f in scored.findings if several_sources else []:
        items = ", ".join(labels.get(i, i) for i in f.evidence_ids)
        backing = (
            f"{f.independent_sources} independent sources agree"
            if f.status.value == "corroborated"
            else "stated by one source only"
        )
        lines.append(
            f"finding {f.id} [{items}]: {backing} ({', '.join(f.source_ids)}) "
            f"{badge(f.label, f.confidence)}"
        )
    sources = {e.id: e.basis.source_id or e.basis.source_kind for e in scored.admitted}
    for c in result.conflicts:
        lines.append(
            f"conflict ({c.kind}): {labels.get(c.first)} ({sources.get(c.first)}) "
            f'"{shorten(c.sentences[0], 50)}" vs {labels.get(c.second)} '
            f'({sources.get(c.second)}) "{shorten(c.sentences[1], 50)}"'
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
@click.option(
    "--as-key",
    "key_id",
    metavar="KEY_ID",
    help="Ask as this API key would over HTTP: its grants, its severity floor, its id in "
    "the audit row (`assay keys list`) [default: the database's owner, who reads every "
    "document].",
)
@click.option(
    "--grant",
    "grants",
    multiple=True,
    metavar="LABEL",
    help="Search only the unlabelled documents and those with this access label "
    "(repeatable; within --as-key's grants).",
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
    key_id: str | None,
    grants: tuple[str, ...],
    db: Path | None,
    as_json: bool,
) -> None:
    """Ask the knowledge base QUESTION: an answer with checked citations, or why not."""
    with Assay(db, create=False) as owner:
        engine = owner if key_id is None else owner.acting_as_key(key_id)
        result = engine.ask(
            question,
            policy=policy,
            severity=severity,
            top_k=top_k,
            category=category,
            as_of=parse_date("--as-of", as_of),
            jurisdiction=jurisdiction,
            grants=",".join(grants) if grants else None,  # each may list several
        )
    if as_json:
        emit_json(result.as_dict())
    else:
        click.echo(render(result))
