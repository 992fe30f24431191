"""The calibration report opened in a real headless browser: Debian's Chromium, driven by
Playwright (never Playwright's own browser download).

The page must show its title and the Brier and ECE numbers that write_report returned,
before and after, load every figure, and fetch nothing but its own files. Chromium is
required, not optional: without it the test fails and says how to install it
(`.ci/run` installs it in CI).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import sync_playwright

from assay.calibration.maps import IsotonicMap
from assay.calibration.report import write_report

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TITLE = "Support judge <v3> & friends: calibration"


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail(
            "the calibration report's browser test needs Chromium on PATH: "
            "install it with `apt-get install -y chromium` (.ci/run does this in CI)"
        )
    return path


def _synthetic() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Overconfident raw scores on held-out items, and the isotonic map of them fitted on
    a separate half: the "after" a reviewer would see."""
    rng = np.random.default_rng(20261129)
    n = 2000
    p = rng.beta(2.0, 2.0, n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    raw = 1.0 / (1.0 + np.exp(-2.5 * np.log(p / (1.0 - p)) - 0.8))  # too sure, and too high
    fit, held_out = slice(0, n // 2), slice(n // 2, n)
    calibrated = IsotonicMap.fit(raw[fit], y[fit])(raw[held_out])
    return raw[held_out], y[held_out], calibrated


def test_report_opens_in_headless_chromium(tmp_path: Path) -> None:
    executable = _chromium()
    raw, y, calibrated = _synthetic()
    files = write_report(
        tmp_path / "report",
        raw=raw,
        labels=y,
        calibrated=calibrated,
        title=TITLE,
        subtitle="synthetic: overconfident scores, isotonic map fitted on a separate half",
        method="isotonic",
        generated="2026-11-29 12:00 UTC",
    )
    after, before = files.metrics["after"], files.metrics["before"]
    assert after["brier"] < before["brier"] and after["ece_uniform"] < before["ece_uniform"]

    requested: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("request", lambda request: requested.append(request.url))
            page.goto(files.html.resolve().as_uri(), wait_until="load")

            assert page.title() == TITLE
            assert page.locator("h1").inner_text() == TITLE
            for metric in ("brier", "ece_uniform", "ece_quantile", "auroc", "aurc"):
                for stage in ("before", "after"):
                    cell = page.locator(f'td[data-metric="{metric}"][data-stage="{stage}"]')
                    assert cell.inner_text() == f"{files.metrics[stage][metric]:.4f}", (
                        metric,
                        stage,
                    )
            headings = page.locator("#metrics tbody th").all_inner_texts()
            assert {"Brier", "ECE (uniform)", "ECE (quantile)"} <= set(headings)

            images = page.evaluate(
                "() => Array.from(document.images).map(i => ({src: i.getAttribute('src'),"
                " alt: i.alt, ok: i.complete && i.naturalWidth > 0, width: i.naturalWidth}))"
            )
        finally:
            browser.close()

    assert {i["src"] for i in images} == {"reliability.png", "histograms.png", "risk_coverage.png"}
    for image in images:
        assert image["ok"] and image["width"] > 0, image
        assert image["alt"], image
    # self-contained: the page and its three figures, all local files, nothing else
    assert requested and all(url.startswith("file://") for url in requested), requested
    assert len(requested) == 4, requested
