"""Two ``assay serve`` processes, two workers each, on one PostgreSQL database behave as
one service: keys made or revoked on one hold on the other, and their appends form one
audit chain."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from assay import Assay
from tests.conftest import run_cli
from tests.e2e.conftest import demo_db  # noqa: F401  (a module-scoped fixture)
from tests.http.serving import request, serving

CANDIDATE = {"id": "c1", "text": "Charge between 0 and 45 °C.", "similarity": 0.9,
             "source_id": "halden-sds-2026", "published": "2026-10-15"}  # fmt: skip


def test_b4_two_services_on_one_postgres_database_act_as_one(
    demo_db: Path,  # noqa: F811
    postgres_url: str,
) -> None:
    assert run_cli("db", "copy", "--from", str(demo_db), "--to", postgres_url).exit_code == 0
    with Assay(postgres_url) as engine:
        _, admin = engine.keys.create("ops", ["admin"])
        _, reader = engine.keys.create("app", ["reader"])
        events_before = engine.audit.head()[0]
    with serving(postgres_url) as first, serving(postgres_url) as second:
        for base in (first, second) * 6:
            body = {"query": "charging range", "candidates": [CANDIDATE], "as_of": "2026-11-29"}
            assert json.loads(request(base + "/v1/score", reader, body))["admitted"]
        made = json.loads(request(first + "/v1/keys", admin, {"name": "x", "roles": ["reader"]}))
        body = {"query": "q", "candidates": [CANDIDATE], "as_of": "2026-11-29"}
        assert json.loads(request(second + "/v1/score", made["token"], body))["admitted"]
        _delete(f"{second}/v1/keys/{made['id']}", admin)
        with pytest.raises(urllib.error.HTTPError) as refused:
            request(first + "/v1/score", made["token"], body)
        assert refused.value.code == 401
        refused.value.close()
        report = json.loads(request(second + "/v1/audit/verify", admin))
    assert report["ok"]
    assert report["events"] == events_before + 12 + 1 + 1 + 1  # scores, key made, score, revoked


def _delete(url: str, token: str) -> None:
    revoke = urllib.request.Request(
        url, method="DELETE", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(revoke, timeout=30) as reply:
        assert reply.status == 200
