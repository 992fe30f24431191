"""``assay calibrate``: labeled sets, fitted score maps, thresholds and guaranteed risk.

::

    assay calibrate labels --from squad --split validation --out val.jsonl --kb-out kb.jsonl
    assay calibrate fit --labels val.jsonl --target answer --method isotonic
    assay calibrate thresholds --labels val.jsonl --target set --min-precision 0.9 \
        --policy financial
    assay calibrate risk --labels val.jsonl --alpha 0.1 --delta 0.1
    assay calibrate report --labels test.jsonl --target answer --out report/

``fit`` stores a new map version in the database; ``ask`` applies the newest one from
then on and records it in the audit row. ``thresholds`` and ``risk`` write new versions
of policies into the first folder of ``ASSAY_POLICY_DIRS`` (or ``--policy-dir``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import numpy as np

from assay.calibration.labels import (
    halueval_labels,
    read_labels,
    review_labels,
    scifact_labels,
    squad_knowledge_base,
    squad_labels,
    write_labels,
)
from assay.calibration.maps import METHODS
from assay.calibration.report import write_report
from assay.calibration.scored import TARGETS, score_examples
from assay.calibration.thresholds import OBJECTIVES
from assay.calibration.workflows import (
    fit_and_store,
    policy_folder,
    publish_risk_thresholds,
    publish_threshold,
)
from assay.cli.common import db_option, emit_json, json_option, table
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.policy import Severity
from assay.settings import load_settings
from assay.types import parse_date


def _progress(what: str) -> Any:
    def report(i: int, n: int) -> None:
        if i and i % 100 == 0:
            click.echo(f"  {what}: {i}/{n}", err=True)

    return report


@click.group()
def calibrate() -> None:
    """Fit score maps and thresholds on labeled data, and thresholds with a risk guarantee."""


@calibrate.command("labels")
@click.option(
    "--from",
    "source",
    type=click.Choice(["squad", "halueval", "scifact", "reviews"]),
    required=True,
    help="Where the labels come from.",
)
@click.option(
    "--split", type=click.Choice(["train", "validation", "test"]), default="test", show_default=True
)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=lambda: load_settings().data,
    help="The public datasets' folder [default: $ASSAY_DATA or ../shared/data].",
)
@click.option("--length-matched", is_flag=True, help="HaluEval: equal answer lengths per class.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option(
    "--kb-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQuAD: also write the split's paragraphs as JSONL to ingest.",
)
@db_option
def labels_command(
    source: str,
    split: str,
    data: Path,
    length_matched: bool,
    out: Path,
    kb_out: Path | None,
    db: Path | None,
) -> None:
    """Write a labeled set (one JSON object a line) from a public dataset or the review queue."""
    import json

    if source == "squad":
        path = data / "squad_v2_dev" / "dev-v2.0.reconstructed.json"
        examples = squad_labels(path, split)
        if kb_out is not None:
            records = squad_knowledge_base(path, split)
            kb_out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    elif source == "halueval":
        examples = halueval_labels(
            data / "halueval/qa_data.json", split, length_matched=length_matched
        )
    elif source == "scifact":
        folder = data / "scifact_train"
        examples = scifact_labels(folder / "claims_train.jsonl", folder / "corpus.jsonl", split)
    else:
        with Assay(db, create=False) as engine:
            examples = review_labels(engine.review, engine.audit)
    write_labels(out, examples)
    positives = sum(e.label for e in examples)
    click.echo(f"wrote {len(examples)} examples ({positives} labelled 1) to {out}")


@calibrate.command("fit")
@click.option("--labels", "labels", required=True, help="Labeled set (JSONL).")
@click.option("--target", type=click.Choice(TARGETS), required=True)
@click.option("--method", type=click.Choice(METHODS), default="isotonic", show_default=True)
@click.option("--policy", help="Policy whose scores are mapped [default: the default policy].")
@click.option("--as-of", help="Date freshness is measured against (YYYY-MM-DD).")
@db_option
@json_option
def fit(
    labels: str,
    target: str,
    method: str,
    policy: str | None,
    as_of: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Fit a map from raw scores to observed accuracy and store it as a new version."""
    examples = read_labels(labels)  # a bad file fails before the database is opened
    with Assay(db, create=False, calibrate=False) as engine:
        result = fit_and_store(
            engine, labels, target, method=method, policy=policy, examples=examples,
            as_of=parse_date("--as-of", as_of), progress=_progress(f"scoring {target}"),
        )  # fmt: skip
    stored, metrics, n = result.stored, result.metrics, result.n_scores
    if as_json:
        emit_json(stored.to_dict())
        return
    click.echo(
        f"stored map {stored.id}: {target} v{stored.version} ({method}) for {stored.model_key}\n"
        f"  {n} scores; Brier {metrics['brier_before']:.4f} -> "
        f"{metrics['brier_after']:.4f}, ECE {metrics['ece_before']:.4f} -> "
        f"{metrics['ece_after']:.4f} (on the fitting data: check held-out data with `report`)"
    )


@calibrate.command("maps")
@db_option
@json_option
def maps(db: Path | None, as_json: bool) -> None:
    """List the stored maps, oldest first."""
    with Assay(db, create=False) as engine:
        stored = engine.calibration.list()
    if as_json:
        emit_json([m.to_dict() for m in stored])
        return
    rows = [
        [str(m.id), m.target, str(m.version), m.method, str(m.n_labels), m.model_key]
        for m in stored
    ]
    click.echo(table(rows, ["ID", "TARGET", "VERSION", "METHOD", "LABELS", "MODEL KEY"]))


@calibrate.command("thresholds")
@click.option("--labels", "labels", required=True)
@click.option("--target", type=click.Choice(["set", "answer"]), required=True)
@click.option("--objective", type=click.Choice(OBJECTIVES), default="f1", show_default=True)
@click.option("--min-precision", type=click.FloatRange(0, 1), help="Precision floor.")
@click.option("--category", help="Set target: the question category to calibrate bands for.")
@click.option("--policy", required=True, help="The policy to write a new version of.")
@click.option("--policy-dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--as-of", help="Date freshness is measured against (YYYY-MM-DD).")
@db_option
@json_option
def thresholds(
    labels: str,
    target: str,
    objective: str,
    min_precision: float | None,
    category: str | None,
    policy: str,
    policy_dir: Path | None,
    as_of: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Pick the threshold that best meets the objective and write a new policy version.

    set: the proceed band of the router; answer: the judge's publish threshold.
    """
    if category is not None and target != "set":
        raise InvalidInputError(
            "--category", category, "use it with --target set: judge thresholds are per policy"
        )
    examples = read_labels(labels)
    with Assay(db, create=False) as engine:
        published = publish_threshold(
            engine, labels, target, policy=policy, folder=policy_folder(policy_dir, engine),
            examples=examples,
            objective=objective, min_precision=min_precision, category=category,
            as_of=parse_date("--as-of", as_of), progress=_progress(f"scoring {target}"),
        )  # fmt: skip
    choice, t, written, path = (
        published.choice,
        published.threshold,
        published.policy,
        published.path,
    )
    out = choice.to_dict() | {"policy": written.name, "version": written.version, "path": str(path)}
    if as_json:
        emit_json(out)
        return
    click.echo(
        f"{target} threshold {t}: precision {choice.precision:.3f}, recall "
        f"{choice.recall:.3f}, F1 {choice.f1:.3f} on {choice.n} labels\n"
        f"wrote {written.name} v{written.version} to {path}"
    )


@calibrate.command("risk")
@click.option("--labels", "labels", required=True)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    required=True,
    help="Highest acceptable rate of answered-and-wrong.",
)
@click.option(
    "--delta",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.1,
    show_default=True,
    help="Allowed probability that the guarantee fails.",
)
@click.option(
    "--severity",
    "severities",
    multiple=True,
    type=click.Choice([s.value for s in Severity]),
    help="Severities to calibrate [default: all].",
)
@click.option("--policy-dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--as-of", help="Date freshness is measured against (YYYY-MM-DD).")
@db_option
@json_option
def risk(
    labels: str,
    alpha: float,
    delta: float,
    severities: tuple[str, ...],
    policy_dir: Path | None,
    as_of: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Per severity, the lowest answering threshold whose answered-and-wrong rate stays at
    or below ALPHA with probability at least 1 - DELTA (Learn-then-Test); written as
    the judge's caveat threshold of a new policy version."""
    examples = read_labels(labels)
    with Assay(db, create=False) as engine:
        found = publish_risk_thresholds(
            engine, labels, alpha=alpha, delta=delta, severities=severities, examples=examples,
            folder=policy_folder(policy_dir, engine), as_of=parse_date("--as-of", as_of),
            progress=lambda severity: _progress(f"scoring {severity}"),
        )  # fmt: skip
    results: list[dict[str, Any]] = []
    for r in found:
        row = {"severity": r.severity, "policy": r.policy_name} | r.found.to_dict()
        if r.policy is not None:
            row |= {"version": r.policy.version, "path": str(r.path)}
        results.append(row)
    if as_json:
        emit_json(results)
        return
    rows = [
        [
            r["severity"],
            "-" if r["threshold"] is None else f"{r['threshold']:.4f}",
            f"{r['coverage']:.3f}",
            f"{r['empirical_risk']:.3f}",
            f"{r['p_value']:.3g}",
            r.get("version", "unchanged: no threshold controls the risk"),
        ]
        for r in results
    ]
    click.echo(table(rows, ["SEVERITY", "THRESHOLD", "COVERAGE", "RISK", "P-VALUE", "NEW VERSION"]))


@calibrate.command("report")
@click.option("--labels", "labels", required=True)
@click.option("--target", type=click.Choice(TARGETS), required=True)
@click.option("--policy", help="Policy whose scores are reported [default: the default policy].")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--as-of", help="Date freshness is measured against (YYYY-MM-DD).")
@db_option
def report(
    labels: str, target: str, policy: str | None, out: Path, as_of: str | None, db: Path | None
) -> None:
    """Write report.html and its PNG figures: reliability, histograms, risk-coverage, Brier
    and ECE before and after the newest stored map (on data it was not fitted on)."""
    examples = read_labels(labels)
    with Assay(db, create=False, calibrate=False) as engine:
        scored = score_examples(
            engine, examples, target, policy=policy,
            as_of=parse_date("--as-of", as_of), progress=_progress(f"scoring {target}"),
        )  # fmt: skip
        raw, outcomes = scored.fitting()
        stored = engine.calibration.latest(target, scored.model_key)
        after = None if stored is None else np.asarray(stored.map(raw), dtype=np.float64)
    method = (
        "no stored map"
        if stored is None
        else f"map {stored.id} v{stored.version} ({stored.method})"
    )
    files = write_report(
        out,
        raw=raw,
        labels=outcomes,
        calibrated=after,
        title=f"assay calibration: {target} confidence",
        subtitle=f"{labels}: {scored.model_key}",
        method=method,
        generated=f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
    )
    before = files.metrics["before"]
    line = f"Brier {before['brier']:.4f}, ECE {before['ece_uniform']:.4f}"
    if "after" in files.metrics:
        a = files.metrics["after"]
        line += f" -> Brier {a['brier']:.4f}, ECE {a['ece_uniform']:.4f} ({method})"
    click.echo(f"wrote {files.html} ({len(raw)} scores; {line})")
