"""The calibration report: what a score map changed, as three figures and one HTML page.

``assay calibrate report --labels FILE`` shows a reviewer, before a map is trusted, how
the raw scores and the mapped ("after") scores behave on labelled outcomes:

* ``reliability.png``: the reliability diagram (mean score against the observed share of
  positives per bin, with the diagonal of perfect calibration) and the count per bin;
* ``histograms.png``: the scores of positives and negatives, before and after;
* ``risk_coverage.png``: the error rate among the answers kept as the confidence
  threshold falls, with the area under it (AURC) in the legend;
* ``report.html``: one self-contained page (no scripts, no external resources) with a
  table of n, positives, AUROC, Brier, ECE (10 uniform and 10 quantile bins) and AURC,
  before and after, and the three figures beside it by relative path.

The numbers come from :mod:`assay.metrics`, so they match every other report. The
figures are drawn on matplotlib's Agg canvas directly, never through pyplot, so that
writing a report works without a display and leaves the caller's matplotlib backend
alone; they hold nothing that changes from run to run.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from assay.errors import InvalidInputError
from assay.metrics import (
    aurc,
    auroc,
    brier_score,
    expected_calibration_error,
    reliability_curve,
    risk_coverage_curve,
)

__all__ = ["N_BINS", "ReportFiles", "write_report"]

N_BINS = 10
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Stages = dict[str, FloatArray]  # "before" (raw) and, if given, "after" (calibrated) scores
Scores = Sequence[float] | npt.NDArray[np.generic]
Labels = Sequence[int] | Sequence[bool] | npt.NDArray[np.generic]

_COLOURS = {"before": "#d95f02", "after": "#1b9e77"}
_LABEL_COLOURS = {0: "#7570b3", 1: "#e7298a"}
_METRIC_ROWS = [  # key, row heading, a short reading of it
    ("n", "n", "labelled items"),
    ("positives", "positives", "items labelled 1"),
    ("auroc", "AUROC", "ranking; higher is better"),
    ("brier", "Brier", "mean squared error; lower is better"),
    ("ece_uniform", "ECE (uniform)", f"{N_BINS} equal-width bins; lower is better"),
    ("ece_quantile", "ECE (quantile)", f"{N_BINS} equal-count bins; lower is better"),
    ("aurc", "AURC", "area under risk-coverage; lower is better"),
]
_ALT = {  # each figure's alt text and caption, by file stem
    "reliability": "Reliability diagram: observed share of positives against the mean score "
    f"in each of {N_BINS} equal-width bins, before and after, with the count per bin",
    "histograms": "Histograms of the scores of positives and negatives, before and after",
    "risk_coverage": "Risk-coverage curve before and after, with AURC in the legend",
}


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote, and the numbers in its table (``metrics["before"]``
    and, when calibrated scores were given, ``metrics["after"]``)."""

    out_dir: Path
    html: Path
    reliability: Path
    histograms: Path
    risk_coverage: Path
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)


def _scores(name: str, values: Scores, n: int) -> FloatArray:
    try:
        s = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(name, values, "give numbers in [0, 1]") from exc
    if s.ndim != 1 or len(s) != n:
        raise InvalidInputError(
            name, f"{s.shape} scores for {n} labels", "give one score per label, in order"
        )
    bad = ~np.isfinite(s) | (s < 0.0) | (s > 1.0)
    if bad.any():
        raise InvalidInputError(
            name, float(s[bad][0]), "give finite scores in [0, 1]", problem="is out of range"
        )
    return s


def _validate(
    raw: Scores, labels: Labels, calibrated: Scores | None
) -> tuple[npt.NDArray[np.int64], dict[str, FloatArray]]:
    """The labels and the score arrays by stage, after checking they can be reported."""
    y = np.asarray(labels)
    if y.ndim != 1:
        raise InvalidInputError("labels", y.shape, "give a flat list of 0/1 labels")
    bad_labels = [v for v in y.tolist() if v not in (0, 1)]
    if bad_labels:
        raise InvalidInputError("labels", bad_labels[0], "use 0/1 (or False/True) labels")
    y = y.astype(np.int64)
    positives = int(y.sum())
    if positives == 0 or positives == len(y):
        raise InvalidInputError(
            "labels",
            f"{positives} positive, {len(y) - positives} negative",
            "label items of both classes: calibration compares right and wrong answers",
            problem="hold one class only",
        )
    stages = {"before": _scores("raw", raw, len(y))}
    if calibrated is not None:
        stages["after"] = _scores("calibrated", calibrated, len(y))
    return y, stages


def _metrics(y: npt.NDArray[np.int64], s: FloatArray) -> dict[str, float]:
    return {
        "n": len(y),
        "positives": int(y.sum()),
        "auroc": auroc(y, s),
        "brier": brier_score(y, s),
        "ece_uniform": expected_calibration_error(y, s, n_bins=N_BINS, strategy="uniform"),
        "ece_quantile": expected_calibration_error(y, s, n_bins=N_BINS, strategy="quantile"),
        "aurc": aurc(y, s),
    }


def _save(fig: Figure, path: Path) -> None:
    """PNG through the Agg canvas; no software or time stamp, so reruns are byte-identical."""
    FigureCanvasAgg(fig)
    fig.savefig(path, format="png", dpi=100, metadata={"Software": None})


def _stage_label(stage: str, method: str) -> str:
    return "before (raw)" if stage == "before" else f"after ({method or 'calibrated'})"


def _reliability(path: Path, y: IntArray, stages: Stages, method: str) -> None:
    fig = Figure(figsize=(6.4, 6.4), layout="constrained")
    top, bottom = fig.subplots(2, 1, height_ratios=[3, 1], sharex=True)
    top.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    edges = np.linspace(0.0, 1.0, N_BINS + 1)
    width = 1.0 / N_BINS / (len(stages) + 1)
    for i, (stage, s) in enumerate(stages.items()):
        mean_prob, observed, _ = reliability_curve(y, s, n_bins=N_BINS, strategy="uniform")
        colour, label = _COLOURS[stage], _stage_label(stage, method)
        top.plot(mean_prob, observed, marker="o", color=colour, label=label)
        # the same binning as reliability_curve: a score on an inner edge goes to the lower bin
        counts = np.bincount(np.searchsorted(edges[1:-1], s), minlength=N_BINS)
        left = edges[:-1] + width * (i + 0.5)
        bars = bottom.bar(left, counts, width=width, align="edge", color=colour, label=label)
        bottom.bar_label(bars, fontsize=7)
    top.set(xlim=(0, 1), ylim=(-0.02, 1.02), ylabel="observed share of positives")
    top.set_title(f"Reliability diagram ({N_BINS} equal-width bins)")
    top.legend(loc="upper left")
    top.grid(alpha=0.3)
    bottom.set(xlabel="score", ylabel="items per bin")
    bottom.set_ylim(0, bottom.get_ylim()[1] * 1.2)  # room for the count labels
    _save(fig, path)


def _histograms(path: Path, y: IntArray, stages: Stages, method: str) -> None:
    fig = Figure(figsize=(5.2 * len(stages), 4.0), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(stages), sharey=True))
    bins = np.linspace(0.0, 1.0, 21)
    for ax, (stage, s) in zip(axes, stages.items(), strict=True):
        for label in (0, 1):
            name = f"label {label} (n={int(np.sum(y == label))})"
            ax.hist(s[y == label], bins=bins, alpha=0.6, color=_LABEL_COLOURS[label], label=name)
        ax.set(xlim=(0, 1), xlabel="score", title=_stage_label(stage, method))
        ax.legend(loc="upper center")
    axes[0].set_ylabel("items")
    fig.suptitle("Scores by label")
    _save(fig, path)


def _risk_coverage(path: Path, y: IntArray, stages: Stages, method: str) -> None:
    fig = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = fig.subplots()
    for stage, s in stages.items():
        coverage, risk, _ = risk_coverage_curve(y, s)
        label = f"{_stage_label(stage, method)}, AURC {aurc(y, s):.4f}"
        # a step function, as aurc integrates it: risk[i] over (coverage[i-1], coverage[i]]
        x, r = np.r_[0.0, coverage], np.r_[risk[0], risk]
        ax.step(x, r, where="pre", color=_COLOURS[stage], label=label)
    ax.axhline(1.0 - y.mean(), linestyle="--", color="grey", label="risk answering everything")
    ax.set(xlim=(0, 1), ylim=(0, None), xlabel="coverage (share answered)")
    ax.set_ylabel("risk (share of answered that are wrong)")
    ax.set_title("Risk-coverage curve")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    _save(fig, path)


def _table(metrics: dict[str, dict[str, float]]) -> str:
    stages = list(metrics)
    head = "".join(f'<th scope="col">{s}</th>' for s in stages)
    rows = []
    for key, name, note in _METRIC_ROWS:
        cells = "".join(
            f'<td data-metric="{key}" data-stage="{s}">{_number(metrics[s][key])}</td>'
            for s in stages
        )
        rows.append(f'<tr><th scope="row">{name}</th>{cells}<td class="note">{note}</td></tr>')
    head = f'<thead><tr><th scope="col">metric</th>{head}<th scope="col">reading</th></tr></thead>'
    return f'<table id="metrics">{head}\n<tbody>\n' + "\n".join(rows) + "\n</tbody></table>"


def _number(value: float) -> str:
    """As the table shows a number: counts whole, everything else to four decimals."""
    return str(value) if isinstance(value, int) else f"{value:.4f}"


_CSS = (
    "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .7em}"
    "td{text-align:right;font-variant-numeric:tabular-nums}td.note{text-align:left;color:#555}"
    "figure{margin:1.5em 0}img{max-width:100%;height:auto}.meta{color:#555}"
)


def _page(title: str, subtitle: str, meta: list[str], table: str, images: list[Path]) -> str:
    """The HTML page: every caller-given text escaped, figures by file name beside it."""
    meta_line = " · ".join(html.escape(m) for m in meta if m)
    figures = "\n".join(
        f'<figure><img src="{html.escape(path.name)}" alt="{html.escape(_ALT[path.stem])}">'
        f"<figcaption>{html.escape(_ALT[path.stem])}</figcaption></figure>"
        for path in images
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<h1>{html.escape(title)}</h1>
{f"<p>{html.escape(subtitle)}</p>" if subtitle else ""}
{f'<p class="meta">{meta_line}</p>' if meta_line else ""}
<h2>Metrics</h2>
{table}
<h2>Figures</h2>
{figures}
</body>
</html>
"""


def write_report(
    out_dir: str | Path,
    *,
    raw: Scores,
    labels: Labels,
    calibrated: Scores | None = None,
    title: str,
    subtitle: str = "",
    method: str = "",
    generated: str = "",
) -> ReportFiles:
    """Write the three figures and ``report.html`` into ``out_dir`` (created if needed).

    ``raw`` and the optional ``calibrated`` ("after") scores are aligned with the 0/1
    ``labels``; both classes must be present and every score in [0, 1]. ``method`` names
    the map in the legends; ``generated`` (a time, say) is printed on the page only, so the
    figures stay identical between runs.
    """
    y, stages = _validate(raw, labels, calibrated)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(
        out_dir=out,
        html=out / "report.html",
        reliability=out / "reliability.png",
        histograms=out / "histograms.png",
        risk_coverage=out / "risk_coverage.png",
        metrics={stage: _metrics(y, s) for stage, s in stages.items()},
    )
    _reliability(files.reliability, y, stages, method)
    _histograms(files.histograms, y, stages, method)
    _risk_coverage(files.risk_coverage, y, stages, method)
    meta = [f"map: {method}" if method else "", f"generated: {generated}" if generated else ""]
    images = [files.reliability, files.histograms, files.risk_coverage]
    page = _page(title, subtitle, meta, _table(files.metrics), images)
    files.html.write_text(page, encoding="utf-8")
    return files
