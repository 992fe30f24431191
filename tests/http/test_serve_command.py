"""``assay serve`` as a user runs it: its own process, two workers, real sockets, and
/metrics merging what both workers counted."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import openai
import pytest

from assay import Assay
from tests.e2e.conftest import demo_db  # noqa: F401  (a module-scoped fixture)

ASSAY = str(Path(sys.executable).with_name("assay"))


def _request(url: str, token: str | None, body: dict[str, Any] | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=30) as r:
        return r.read().decode()


def test_b4_assay_serve_with_two_workers(demo_db: Path) -> None:  # noqa: F811
    with Assay(demo_db) as engine:
        _, reader = engine.keys.create("serve reader", ["reader"])
        _, auditor = engine.keys.create("serve auditor", ["auditor"])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    server = subprocess.Popen(
        [ASSAY, "serve", "--db", str(demo_db), "--port", str(port), "--workers", "2",
         "--log-level", "warning", "--monitor-every", "0"],
        env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                assert json.loads(_request(base + "/readyz", None))["status"] == "ready"
                break
            except (OSError, urllib.error.URLError):
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.25)
        candidate = {"id": "c1", "text": "Charge between 0 and 45 °C.", "similarity": 0.9,
                     "source_id": "halden-sds-2026", "published": "2026-10-15"}  # fmt: skip
        for _ in range(12):
            body = {"query": "charging range", "candidates": [candidate], "as_of": "2026-11-29"}
            assert json.loads(_request(base + "/v1/score", reader, body))["admitted"]
        # any OpenAI client asks the governed knowledge base (B6 of the integrations)
        with openai.OpenAI(base_url=base + "/v1", api_key=reader, max_retries=0) as chat:
            completion = chat.chat.completions.create(
                model="assay/financial",
                messages=[{"role": "user", "content": "What is the HX-40's charging range?"}],
            )
        assert completion.choices[0].message.content
        assert (completion.model_extra or {})["assay"]["event_id"]
        with pytest.raises(urllib.error.HTTPError) as refused:
            _request(base + "/v1/score", None, {"query": "q", "candidates": [candidate]})
        assert refused.value.code == 401
        refused.value.close()
        metrics = _request(base + "/metrics", auditor)
        [line] = [
            m for m in metrics.splitlines()
            if m.startswith('assay_decisions_total{decision="admitted",endpoint="score"')
        ]  # fmt: skip
        assert float(line.split()[-1]) == 12.0  # both workers' counts, merged
    finally:
        server.terminate()
        server.wait(timeout=30)
