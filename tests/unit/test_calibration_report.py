"""The calibration report (assay.calibration.report): input checks, its numbers against
assay.metrics, and the files it writes (the browser test is tests/e2e)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assay.calibration.maps import IsotonicMap
from assay.calibration.report import ReportFiles, write_report
from assay.errors import InvalidInputError
from assay.metrics import aurc, auroc, brier_score, expected_calibration_error

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _data(n: int = 300, seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Overconfident raw scores (the true probability squashed towards 0 and 1) and an
    isotonic map of them, fitted on the same labels."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    raw = 1.0 / (1.0 + np.exp(-3.0 * np.log(p / (1.0 - p))))
    return raw, y, IsotonicMap.fit(raw, y)(raw)


def _write(tmp_path: Path, **kwargs: Any) -> ReportFiles:
    raw, y, after = _data()
    args: dict[str, Any] = {"raw": raw, "labels": y, "calibrated": after, "title": "t"}
    return write_report(tmp_path / "report", **(args | kwargs))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"raw": [0.1, 0.2]}, "raw"),
        ({"calibrated": [0.5]}, "calibrated"),
        ({"raw": np.full((2, 150), 0.5)}, "raw"),
        ({"raw": ["high"] * 300}, "raw"),
        ({"labels": np.r_[2, np.ones(299, dtype=int)]}, "labels"),
        ({"labels": np.ones((300, 1), dtype=int)}, "labels"),
        ({"labels": np.ones(300, dtype=int)}, "labels"),
        ({"labels": np.zeros(300, dtype=int)}, "labels"),
        ({"raw": np.r_[1.5, np.full(299, 0.5)]}, "raw"),
        ({"raw": np.r_[-0.1, np.full(299, 0.5)]}, "raw"),
        ({"calibrated": np.r_[np.nan, np.full(299, 0.5)]}, "calibrated"),
    ],
)
def test_rejects_bad_input_naming_the_field(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInputError) as info:
        _write(tmp_path, **change)
    assert info.value.field == field
    assert info.value.fix
    assert not (tmp_path / "report").exists()  # nothing written before the checks pass


def test_metrics_agree_with_assay_metrics(tmp_path: Path) -> None:
    raw, y, after = _data()
    files = _write(tmp_path)
    assert set(files.metrics) == {"before", "after"}
    for stage, s in (("before", raw), ("after", after)):
        m = files.metrics[stage]
        assert m["n"] == len(y) and m["positives"] == int(y.sum())
        assert m["auroc"] == auroc(y, s)
        assert m["brier"] == brier_score(y, s)
        assert m["ece_uniform"] == expected_calibration_error(y, s, n_bins=10)
        assert m["ece_quantile"] == expected_calibration_error(y, s, n_bins=10, strategy="quantile")
        assert m["aurc"] == aurc(y, s)
    # the synthetic raw scores are miscalibrated, and the map fitted on them fixes that
    assert files.metrics["after"]["brier"] < files.metrics["before"]["brier"]
    assert files.metrics["after"]["ece_uniform"] < files.metrics["before"]["ece_uniform"]


def test_writes_pngs_and_a_self_contained_page(tmp_path: Path) -> None:
    files = _write(tmp_path, title="Judge <v2> & co", subtitle="a 'b'", method="isotonic")
    assert files.out_dir == tmp_path / "report"
    for png in (files.reliability, files.histograms, files.risk_coverage):
        assert png.parent == files.out_dir
        assert png.read_bytes().startswith(PNG_MAGIC)
    page = files.html.read_text(encoding="utf-8")
    assert "<title>Judge &lt;v2&gt; &amp; co</title>" in page
    assert "Judge <v2>" not in page
    assert "a &#x27;b&#x27;" in page
    for name in ("reliability.png", "histograms.png", "risk_coverage.png"):
        assert f'<img src="{name}" alt="' in page
    lowered = page.lower()
    assert "<script" not in lowered and "http://" not in lowered and "https://" not in lowered
    brier = files.metrics["after"]["brier"]
    assert f'<td data-metric="brier" data-stage="after">{brier:.4f}</td>' in page


def test_without_calibrated_scores_reports_before_only(tmp_path: Path) -> None:
    files = _write(tmp_path, calibrated=None)
    assert set(files.metrics) == {"before"}
    page = files.html.read_text(encoding="utf-8")
    assert 'data-stage="before"' in page and 'data-stage="after"' not in page
    assert files.histograms.read_bytes().startswith(PNG_MAGIC)


def test_figures_are_identical_between_runs_and_the_time_only_on_the_page(
    tmp_path: Path,
) -> None:
    first = _write(tmp_path / "a", generated="2026-11-29 10:00 UTC")
    second = _write(tmp_path / "b", generated="2026-11-30 11:00 UTC")
    for a, b in (
        (first.reliability, second.reliability),
        (first.histograms, second.histograms),
        (first.risk_coverage, second.risk_coverage),
    ):
        assert a.read_bytes() == b.read_bytes()
    assert "2026-11-29 10:00 UTC" in first.html.read_text(encoding="utf-8")
