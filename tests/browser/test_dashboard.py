"""The web dashboard (B4) in a real browser: Debian's Chromium, driven by Playwright,
against the real app under uvicorn over the demo knowledge base.

Every page is checked against what the database holds (event counts, evidence ids,
review verdicts and their audit actor, source due dates, calibration maps), every test
saves a full-page screenshot under ``build/screenshots/``, and no page may fetch
anything from another host (the ``page`` fixture checks every request).
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from playwright.sync_api import Page

from assay import Assay
from assay.calibration.labels import LabeledExample, write_labels
from assay.judge.schema import Context
from tests.browser.conftest import Site, login, screenshot
from tests.conftest import AS_OF, run_cli
from tests.e2e.test_calibrate import ANSWERS, QUESTIONS

NOTE = "3 hours with the 65 W charger, as the 2026 data sheet says; the 2019 manual is outdated"


def test_a_bad_key_is_refused_with_an_error(page: Page, site: Site) -> None:
    page.goto("/dashboard/audit")
    assert page.url == f"{site.origin}/dashboard/login?next=%2Fdashboard%2Faudit"
    page.fill("#key", "assay_000000000000_not-a-real-secret-not-a-real-secret-not-a-re")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.get_by_role("button", name="Log in").click()
    assert posted.value.status == 401
    assert "That key is not valid" in page.locator("p.error").inner_text()
    assert page.context.cookies() == []
    csp = posted.value.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    screenshot(page, "login_bad_key")


def test_overview_shows_the_real_event_count_and_charts(page: Page, site: Site) -> None:
    login(page, site.data.tokens["auditor"])
    assert page.url == f"{site.origin}/dashboard"
    with Assay(site.data.db) as engine:
        total, _ = engine.audit.head()
        pending = len(engine.review.list("pending"))
    page.reload()
    assert page.locator('[data-stat="total-events"]').inner_text() == str(total)
    window = len(site.data.asks) + len(site.data.scores) + site.data.drift_events
    assert page.locator('[data-stat="window-events"]').inner_text() == str(window)
    assert page.locator('[data-stat="pending-reviews"]').inner_text() == str(pending)
    nav = page.locator("header.topbar").inner_text()
    assert "dash auditor" in nav and "auditor" in nav and "Log out" in nav
    for policy in ("informational", "financial"):
        panel = page.locator(f'section[data-policy="{policy}"]')
        asks = sum(1 for p in site.data.asks.values() if p == policy)
        assert f"{asks + 1} events ({asks} asks, 1 scores)" in panel.inner_text()
        bars = panel.locator(f'svg[data-chart="decisions-{policy}"] rect.bar')
        assert bars.count() >= 1
        widths = bars.evaluate_all("(rs) => rs.map(r => Number(r.getAttribute('width')))")
        assert all(w > 0 for w in widths)
        line = panel.locator(f'svg[data-chart="confidence-{policy}"]')
        assert line.locator("circle.point").count() >= 1
        box = line.bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 50
        assert re.search(r"mean confidence \d\.\d{3} (high|medium|low)", panel.inner_text())
    alerts = page.locator('section[data-policy="legal"] p.alert-line')
    assert alerts.count() == len(site.data.alert_ids)
    texts = [re.sub(r"\s+", " ", t) for t in alerts.all_inner_texts()]
    assert any(t.startswith("Drift alert on mean score") for t in texts), texts
    opened = page.locator('[data-stat="open-alerts"]').inner_text()
    assert opened == str(len(site.data.alert_ids))
    screenshot(page, "overview")


def test_audit_trail_opens_an_event_with_its_evidence(page: Page, site: Site) -> None:
    login(page, site.data.tokens["auditor"])
    page.goto("/dashboard/audit")
    rows = page.locator("table.events tbody tr")
    seqs = [int(s) for s in rows.evaluate_all("(rs) => rs.map(r => r.dataset.seq)")]
    assert seqs == sorted(seqs, reverse=True) and len(seqs) == 50  # a page
    screenshot(page, "audit_list")
    with page.expect_navigation():
        page.locator("a.older").click()
    assert page.url.endswith(f"before={seqs[-1]}")
    older = rows.evaluate_all("(rs) => rs.map(r => Number(r.dataset.seq))")
    assert older and max(older) == seqs[-1] - 1

    page.select_option('select[name="kind"]', "ask")
    page.select_option('select[name="policy"]', "informational")
    with page.expect_navigation():
        page.get_by_role("button", name="Filter").click()
    kinds = page.locator("table.events .kind").all_inner_texts()
    informational = [e for e, p in site.data.asks.items() if p == "informational"]
    assert kinds == ["ask"] * len(informational)

    event_id = informational[0]  # the charge-time question, queued for review
    with page.expect_navigation():
        page.locator(f'a.event-link[href$="/audit/{event_id}"]').click()
    with Assay(site.data.db) as engine:
        event = engine.audit.get(event_id)
    shown = page.locator("table.evidence tbody tr").evaluate_all(
        "(rs) => rs.map(r => r.dataset.evidenceId)"
    )
    assert shown == [item["id"] for item in event.payload["evidence"]]
    passages = page.locator('[data-field="passage"]').all_inner_texts()
    first = event.payload["evidence"][0]["text"]
    assert len(passages) == len(shown) and first[:60] in passages[0]  # the text, not only ids
    for conflict in page.locator('[data-field="conflict"]').all_inner_texts():
        assert " between " in conflict and conflict.split(" between ")[1][0] != " "  # a source
    assert page.locator('[data-field="event-id"]').inner_text().startswith(event_id)
    text = page.locator("main").inner_text()
    assert event.query in text and event.row_hash in text and event.prev_hash in text
    assert f"informational version {event.policy_version}" in text
    assert event.payload["route"]["decision"].upper() in text
    assert page.locator('[data-field="status"]').inner_text() == event.payload["status"]
    score = event.payload["assessment"]["confidence_score"]
    assert page.locator('[data-field="judge-score"]').inner_text() == f"{score:.3f}"
    screenshot(page, "audit_event")


def test_a_review_verdict_is_recorded_with_the_key_as_actor(page: Page, site: Site) -> None:
    login(page, site.data.tokens["auditor"])
    page.goto("/dashboard/review")
    item_id = site.data.review_ids[0]
    item = page.locator(f'article[data-item="{item_id}"]')
    assert "How long does a full charge of the HX-40 take?" in item.inner_text()
    screenshot(page, "review_pending")

    item.locator('input[value="correct"]').check()
    item.locator('input[name="note"]').fill(NOTE)
    with page.expect_navigation():
        item.get_by_role("button", name="Record verdict").click()
    assert f"Review item {item_id} resolved" in page.locator("p.success").inner_text()
    assert page.locator(f'article[data-item="{item_id}"]').count() == 0  # gone from pending

    page.goto("/dashboard/review?status=resolved")
    resolved = page.locator(f'article[data-item="{item_id}"]')
    assert resolved.locator('[data-field="status"]').inner_text() == "resolved: correct"
    assert NOTE in resolved.inner_text()
    screenshot(page, "review_resolved")

    with Assay(site.data.db) as engine:
        [event] = engine.audit.list(kind="review", limit=1)
        stored = engine.review.get(item_id)
    assert event.actor == site.data.key_ids["auditor"]
    assert event.payload["review_item"] == item_id and event.payload["verdict"] == "correct"
    assert stored.status == "resolved" and stored.resolution_event_id == event.event_id


def test_sources_show_due_dates_and_flag_overdue_ones(page: Page, site: Site) -> None:
    login(page, site.data.tokens["curator"])
    assert page.url == f"{site.origin}/dashboard/sources"  # the curator's first page
    with Assay(site.data.db) as engine:
        sources = engine.sources.list()
    today = date.today()
    for source in sources:
        row = page.locator(f'tr[data-source="{source.id}"]')
        due = source.review_due()
        expected = due.isoformat() if due else "now"
        assert row.locator('[data-field="due"]').inner_text() == expected
        overdue = source.review_overdue(today)
        assert (row.locator(".flag-overdue").count() == 1) == overdue, source.id
        assert ("overdue" in (row.get_attribute("class") or "")) == overdue
    assert page.locator('tr[data-source="halden-manual-2019"] .flag-overdue').is_visible()
    # never reviewed but registered today: its first review falls due one interval later
    assert page.locator('tr[data-source="community-forum"] .flag-ok').is_visible()
    screenshot(page, "sources")


def test_calibration_page_empty_then_with_fitted_maps(
    page: Page, site: Site, tmp_path: Path
) -> None:
    login(page, site.data.tokens["auditor"])
    page.goto("/dashboard/calibration")
    assert page.locator('[data-state="empty"]').is_visible()
    assert "assay calibrate fit" in page.locator("main").inner_text()
    screenshot(page, "calibration_empty")

    answers, questions = tmp_path / "answers.jsonl", tmp_path / "questions.jsonl"
    write_labels(
        answers,
        [
            LabeledExample(q, label, answer=a, contexts=(Context("c1", text),), id=f"a{i}")
            for i, (q, a, text, label) in enumerate(ANSWERS * 3)
        ],
    )
    write_labels(
        questions, [LabeledExample(q, y, id=f"q{i}") for i, (q, y) in enumerate(QUESTIONS)]
    )
    fitted = []
    for labels, target, method in ((answers, "answer", "isotonic"), (questions, "set", "platt")):
        args = ["--labels", str(labels), "--target", target, "--method", method]
        result = run_cli(
            "calibrate", "fit", *args, "--policy", "informational", "--as-of",
            AS_OF.isoformat(), "--json", db=site.data.db,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        fitted.append(json.loads(result.stdout))

    page.reload()
    maps = page.locator("section.calibration-map")
    assert maps.count() == 2
    for stored in fitted:
        section = page.locator(f'section[data-map="{stored["id"]}"]')
        text = section.inner_text()
        assert stored["model_key"] in text and stored["method"] in text
        assert f"{stored['metrics']['brier_before']:.4f}" in text
        assert f"{stored['metrics']['brier_after']:.4f}" in text
        assert f"{stored['metrics']['ece_after']:.4f}" in text
        curve = section.locator(f'svg[data-chart="map-{stored["id"]}"] polyline.curve')
        assert len((curve.get_attribute("points") or "").split()) == 51
    screenshot(page, "calibration_maps")


def test_a_reader_key_gets_the_403_page(page: Page, site: Site) -> None:
    login(page, site.data.tokens["reader"])
    with page.expect_response(lambda r: r.url.endswith("/dashboard/audit")) as got:
        page.goto("/dashboard/audit")
    assert got.value.status == 403
    assert page.locator(".needed-role").inner_text() == "auditor"
    assert "dash reader" in page.locator("header.topbar").inner_text()
    assert page.locator("table.events").count() == 0
    screenshot(page, "forbidden_reader")


def test_logout_returns_to_the_login_page(page: Page, site: Site) -> None:
    login(page, site.data.tokens["auditor"])
    assert page.context.cookies()[0]["httpOnly"] is True
    assert page.context.cookies()[0]["sameSite"] == "Strict"
    with page.expect_navigation():
        page.get_by_role("button", name="Log out").click()
    assert page.url == f"{site.origin}/dashboard/login"
    assert page.context.cookies() == []
    page.goto("/dashboard")
    assert page.url.startswith(f"{site.origin}/dashboard/login")
    screenshot(page, "logged_out")


def test_a_reviewer_records_the_right_answer_with_an_incorrect_verdict(
    page: Page, site: Site
) -> None:
    """Issue 43: the review form had no field for the right answer."""
    with Assay(site.data.db) as engine:
        event_id = next(iter(site.data.asks))
        queued = engine.review.add(
            event_id=event_id, query="How long does a full charge take?", answer="About 9 hours.",
            reason="recommended_action human_review", assessment={"confidence_score": 0.4},
            policy_name="informational", policy_version="4",
        )  # fmt: skip
    login(page, site.data.tokens["auditor"])
    page.goto("/dashboard/review")
    item = page.locator(f'article[data-item="{queued.id}"]')
    item.locator('input[value="incorrect"]').check()
    item.locator('input[name="correction"]').fill("About 3 hours from empty.")
    with page.expect_navigation():
        item.get_by_role("button", name="Record verdict").click()
    page.goto("/dashboard/review?status=resolved")
    resolved = page.locator(f'article[data-item="{queued.id}"]')
    shown = resolved.locator('[data-field="correction"]').inner_text()
    assert shown == "Right answer: About 3 hours from empty."
    with Assay(site.data.db) as engine:
        assert engine.review.get(queued.id).correction == "About 3 hours from empty."
