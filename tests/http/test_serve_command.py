"""``assay serve`` as a user runs it: its own process, two workers, real sockets, and
/metrics merging what both workers counted."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import openai
import pytest

from assay import Assay
from tests.e2e.conftest import demo_db  # noqa: F401  (a module-scoped fixture)
from tests.http.serving import request, serving


def test_b4_assay_serve_with_two_workers(demo_db: Path) -> None:  # noqa: F811
    with Assay(demo_db) as engine:
        _, reader = engine.keys.create("serve reader", ["reader"])
        _, auditor = engine.keys.create("serve auditor", ["auditor"])
    with serving(demo_db) as base:
        candidate = {"id": "c1", "text": "Charge between 0 and 45 °C.", "similarity": 0.9,
                     "source_id": "halden-sds-2026", "published": "2026-10-15"}  # fmt: skip
        for _ in range(12):
            body = {"query": "charging range", "candidates": [candidate], "as_of": "2026-11-29"}
            assert json.loads(request(base + "/v1/score", reader, body))["admitted"]
        # any OpenAI client asks the governed knowledge base (B6 of the integrations)
        with openai.OpenAI(base_url=base + "/v1", api_key=reader, max_retries=0) as chat:
            completion = chat.chat.completions.create(
                model="assay/financial",
                messages=[{"role": "user", "content": "What is the HX-40's charging range?"}],
            )
        assert completion.choices[0].message.content
        assert (completion.model_extra or {})["assay"]["event_id"]
        with pytest.raises(urllib.error.HTTPError) as refused:
            request(base + "/v1/score", None, {"query": "q", "candidates": [candidate]})
        assert refused.value.code == 401
        refused.value.close()
        metrics = request(base + "/metrics", auditor)
        [line] = [
            m for m in metrics.splitlines()
            if m.startswith('assay_decisions_total{decision="admitted",endpoint="score"')
        ]  # fmt: skip
        assert float(line.split()[-1]) == 12.0  # both workers' counts, merged
