"""The real app under uvicorn over the demo knowledge base, and Debian's Chromium driving it.

The server runs in a background thread on a free port of 127.0.0.1; the events the pages
show are written first, with the engine's own ``ask`` and ``score``. Each test gets a
fresh browser context (no cookies) whose every request is recorded, and the test fails
if any of them went to another origin than the server's.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

from assay import Assay, Candidate
from assay.cli.score import read_candidates
from assay.server import create_app
from assay.settings import load_settings
from tests.conftest import AS_OF
from tests.e2e.conftest import demo_db  # noqa: F401  (the module-scoped fixture)
from tests.e2e.test_calibration_report import CHROMIUM_ARGS, _chromium

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
CANDIDATES = ROOT / "examples" / "demo" / "candidates.jsonl"
ROLES = ("reader", "curator", "auditor")

#: (question, policy): the charge-time question under informational goes to review
ASKS = [
    ("How long does a full charge of the HX-40 take?", "informational"),
    ("Can I charge the HX-40 in a hot car at 70 °C?", "informational"),
    ("What ambient temperature range is safe for charging the HX-40?", "informational"),
    ("What ambient temperature range is safe for charging the HX-40?", "financial"),
    ("How long does a full charge of the HX-40 take?", "financial"),
]
SCORE_QUERY = "What ambient temperature is safe for charging the HX-40 battery pack?"
DRIFT_QUERY = "At what temperature may the HX-40 be charged?"
DRIFT_EVENTS = 30  # per window: the monitor's minimum for a verdict


@dataclass(frozen=True)
class Written:
    """What the test wrote before the server started: events, review items and keys."""

    db: Path
    asks: dict[str, str]  # event id -> policy
    scores: dict[str, str]
    review_ids: list[int]
    tokens: dict[str, str]
    key_ids: dict[str, str]
    drift_events: int
    alert_ids: list[int]


@dataclass
class Site:
    """The running dashboard: its origin and what was written into its database."""

    origin: str
    data: Written
    requested: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def written(demo_db: Path) -> Written:  # noqa: F811
    """Real events under two policies, at least one answer queued for review, a drift
    alert opened by the monitor on a third policy, and a key per role."""
    with Assay(demo_db) as engine:
        asks = {}
        review_ids = []
        for question, policy in ASKS:
            response = engine.ask(question, policy=policy, as_of=AS_OF)
            assert response.event_id is not None
            asks[response.event_id] = policy
            if response.review_id is not None:
                review_ids.append(response.review_id)
        candidates = read_candidates(str(CANDIDATES))
        scores = {}
        for policy in ("informational", "financial"):
            result = engine.score(SCORE_QUERY, candidates, policy=policy, as_of=AS_OF)
            assert result.event_id is not None
            scores[result.event_id] = policy
        created = {role: engine.keys.create(f"dash {role}", [role]) for role in ROLES}
        alerts = _drift(engine)
    assert review_ids, "the charge-time question should have gone to human review"
    assert alerts, "the drifting scores should have opened an alert"
    return Written(
        db=demo_db,
        asks=asks,
        scores=scores,
        review_ids=review_ids,
        tokens={role: token for role, (_, token) in created.items()},
        key_ids={role: key.id for role, (key, _) in created.items()},
        drift_events=2 * DRIFT_EVENTS,
        alert_ids=alerts,
    )


def _drift(engine: Assay) -> list[int]:
    """A real drift alert: ``score`` events under the legal policy whose retriever
    similarity falls from 0.9 to 0.55, then the monitor's check over 30-event windows."""
    for n in range(2 * DRIFT_EVENTS):
        similarity = 0.9 if n < DRIFT_EVENTS else 0.55
        passage = Candidate(
            f"sds#{n}",
            "Charge the HX-40 only between 0 °C and 45 °C ambient temperature.",
            similarity - 0.002 * (n % 7),
            source_id="halden-sds-2026",
            published=date(2026, 10, 15),
        )
        engine.score(DRIFT_QUERY, [passage], policy="legal", as_of=AS_OF)
    result = engine.monitor.check(window=DRIFT_EVENTS, baseline=DRIFT_EVENTS)
    return [alert.id for alert in result.opened]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def origin(written: Written) -> Iterator[str]:
    """``http://127.0.0.1:<port>``: the real app under uvicorn, models loaded."""
    port = _free_port()
    config = uvicorn.Config(
        create_app(load_settings(db=written.db)),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws="none",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="dashboard-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive(), "the server stopped while starting"
        assert time.monotonic() < deadline, "the server did not start within 60 s"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=15)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium (never Playwright's download), headless, once per module."""
    executable = _chromium()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def site(origin: str, written: Written) -> Site:
    return Site(origin, written)


@pytest.fixture
def page(browser: Browser, site: Site) -> Iterator[Page]:
    """A fresh context (no session) whose requests must all stay on the server's origin."""
    context = browser.new_context(base_url=site.origin, viewport={"width": 1280, "height": 900})
    context.on("request", lambda request: site.requested.append(request.url))
    tab = context.new_page()
    errors: list[str] = []  # a CSP violation or a broken asset shows up here
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield tab
    context.close()
    expected = "status of 40"  # the 401 and 403 pages the tests ask for on purpose
    assert all(expected in e for e in errors), errors
    assert site.requested, "the test made no request"
    foreign = [url for url in site.requested if not url.startswith(site.origin + "/")]
    assert not foreign, f"requests to another host: {foreign}"


def login(page: Page, token: str) -> None:
    """Log in through the form, as a person would."""
    page.goto("/dashboard/login")
    page.fill("#key", token)
    with page.expect_navigation():
        page.get_by_role("button", name="Log in").click()


def screenshot(page: Page, name: str) -> Path:
    """A full-page screenshot at ``build/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
