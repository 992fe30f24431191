"""The HTTP service over the demo knowledge base, with one key per role."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from assay import Assay
from assay.server import create_app
from assay.settings import load_settings
from tests.e2e.conftest import demo_db  # noqa: F401  (the module-scoped fixture)

ROLES = ("reader", "curator", "auditor", "admin")


@dataclass(frozen=True)
class Service:
    """A running app (in-process) and a token per role."""

    client: TestClient
    tokens: dict[str, str]
    db: Path

    def headers(self, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}


@pytest.fixture(scope="module")
def service(demo_db: Path) -> Iterator[Service]:  # noqa: F811
    """The app on the demo database; the models load once, at start-up."""
    with Assay(demo_db) as engine:
        tokens = {role: engine.keys.create(f"test {role}", [role])[1] for role in ROLES}
    app = create_app(load_settings(db=demo_db))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Service(client, tokens, demo_db)
