"""R10, J9, E12 over HTTP: the monitoring report, and drift checked by the service on its
own schedule, opening an alert that tightens the policy the next request runs under."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from assay import Assay
from assay.server import create_app
from assay.settings import ServeSettings, load_settings
from tests.conftest import FINANCIAL_VERSION
from tests.e2e.test_monitor_cli import write
from tests.http.conftest import Service


def test_r10_monitor_report_over_http(service: Service) -> None:
    service.client.post(
        "/v1/ask",
        json={"question": "How long does a full charge of the HX-40 take?", "as_of": "2026-11-29"},
        headers=service.headers("reader"),
    )
    report = service.client.get("/v1/monitor", headers=service.headers("auditor")).json()
    overall = report["overall"]
    assert overall["score"]["n"] >= 1 and 0 <= overall["score"]["mean"] <= 1
    assert "informational" in report["by_policy"] and report["by_source"]
    assert report["timeline"]["buckets"]
    alerts = service.client.get("/v1/monitor/alerts", headers=service.headers("auditor"))
    assert alerts.json() == {"alerts": []}
    checked = service.client.post("/v1/monitor/check", headers=service.headers("admin")).json()
    assert checked["opened"] == [] and checked["closed"] == []


def test_j9_e12_the_service_checks_drift_and_tightens(
    engine: Assay, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(engine, 0.85, 0.95, 120, seed=1)  # a strong baseline, then weaker requests
    write(engine, 0.65, 0.80, 40, seed=2)
    _, token = engine.keys.create("reader", ["reader"])
    monkeypatch.setenv("ASSAY_AUTO_TIGHTEN", "0.05")
    monkeypatch.setenv("ASSAY_MONITOR_WINDOW", "40")
    monkeypatch.setenv("ASSAY_MONITOR_BASELINE", "120")
    app = create_app(
        load_settings(db=db_path), warm=False, options=ServeSettings(monitor_every=0.2)
    )
    with TestClient(app) as client:
        deadline = time.monotonic() + 20
        while not engine.monitor.alerts() and time.monotonic() < deadline:
            time.sleep(0.1)
        [alert] = [a for a in engine.monitor.alerts() if a.metric == "mean_score"]
        assert alert.policy_name == "financial" and alert.tightened_by == 0.05
        candidate = {"id": "c", "text": "Charge between 0 and 45 degrees.", "similarity": 0.9,
                     "source_id": "sds", "published": "2026-11-01"}  # fmt: skip
        scored = client.post(
            "/v1/score",
            json={"query": "q", "candidates": [candidate], "policy": "financial"},
            headers={"Authorization": f"Bearer {token}"},
        ).json()
    assert scored["policy"]["version"] == f"{FINANCIAL_VERSION}+tightened0.05"
    assert [e.payload["action"] for e in engine.audit.list(kind="policy")] == ["tighten"]
    assert engine.audit.verify().ok
