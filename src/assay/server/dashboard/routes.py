"""The dashboard's pages: login and logout, the overview, sources and calibration maps.

The audit trail and the review queue are in :mod:`.audit_pages`, included here. Every
route is a plain ``def``: the engine :func:`~.rendering.guard` returns belongs to the
thread the route runs on, and is used only inside the route's body.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from assay.engine import Assay
from assay.errors import AssayError
from assay.keys import Role
from assay.monitor import Monitor, MonitorReport, WindowStats
from assay.server.access import SESSION_COOKIE, EnginePool, SessionRules
from assay.server.dashboard.audit_pages import router as audit_router
from assay.server.dashboard.charts import (
    bar_chart,
    calibration_chart,
    line_chart,
    reliability_chart,
)
from assay.server.dashboard.rendering import NAV, base_path, error_page, guard, render
from assay.server.dashboard.views import (
    band_label,
    calibration_curve,
    expected_calibration_error,
    metric_rows,
    review_reliability,
)

__all__ = ["router"]

router = APIRouter(prefix="/dashboard", include_in_schema=False)
router.include_router(audit_router)

DECISION_ORDER = ("proceed", "hedge", "clarify", "broaden", "llm_only", "refuse")


# -- session -------------------------------------------------------------------------
@router.get("/login")
def login_form(request: Request, next: str = "") -> Response:
    """The login page: paste an API key (open to anyone)."""
    return render(request, "login.html", key=None, next=_safe_next(request, next), error=None)


@router.post("/login")
def login(
    request: Request, key: Annotated[str, Form()] = "", next: Annotated[str, Form()] = ""
) -> Response:
    """Check the key; on success open a session, kept in an HttpOnly, SameSite=Strict
    cookie that expires with it (the key itself is never stored in the browser)."""
    pool: EnginePool = request.app.state.engines
    found = pool.get().keys.authenticate(key.strip()) if key.strip() else None
    if found is None:
        message = (
            "That key is not valid: mistyped, unknown or revoked. Paste the whole key "
            "(assay_<id>_<secret>) as 'assay keys create' printed it."
        )
        return render(
            request,
            "login.html",
            key=None,
            status=401,
            next=_safe_next(request, next),
            error=message,
        )
    target = _safe_next(request, next)
    if not target:  # the first page this key may open
        paths = [p for _, p, role in NAV if found.allows(role)]
        target = base_path(request) + (paths[0] if paths else "")
    rules: SessionRules = request.app.state.sessions
    session = pool.get().keys.open_session(found, rules.lifetime)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session,
        max_age=int(rules.lifetime.total_seconds()),
        httponly=True,
        samesite="strict",
        path="/",
        secure=rules.secure_cookies or request.url.scheme == "https",
    )
    return response


@router.post("/logout")
def logout(request: Request) -> Response:
    """End the session (its cookie no longer works, even if kept) and go to the login page."""
    pool: EnginePool = request.app.state.engines
    pool.get().keys.close_session(request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse(f"{base_path(request)}/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return response


def _safe_next(request: Request, target: str) -> str:
    """``target`` if it is a dashboard page of this app (never another host), else ''."""
    base = base_path(request)
    ok = target == base or target.startswith(f"{base}/") or target.startswith(f"{base}?")
    if not ok or "\\" in target or target.startswith(f"{base}/login"):
        return ""
    return target


# -- overview ------------------------------------------------------------------------
@router.get("")
def overview(request: Request) -> Response:
    """Volume, decision mix, confidence over time and open drift alerts, per policy."""
    caller = guard(request, Role.AUDITOR)
    if isinstance(caller, Response):
        return caller
    engine = caller.engine
    monitor = engine.monitor
    report = monitor.report()
    alerts = monitor.alerts()
    total, head = engine.audit.head()
    names = sorted(set(report.by_policy) | {a.policy_name for a in alerts})
    policies = [_policy_panel(engine, monitor, report, name, alerts) for name in names]
    return render(
        request,
        "overview.html",
        key=caller.key,
        total_events=total,
        head=head,
        report=report,
        overall=report.overall,
        pending_reviews=engine.review.counts()["pending"],
        open_alerts=len(alerts),
        policies=policies,
        sources=report.by_source[:10],
        feedback=report.feedback,
    )


def _policy_panel(
    engine: Assay, monitor: Monitor, report: MonitorReport, name: str, alerts: list[Any]
) -> dict[str, Any]:
    stats: WindowStats | None = report.by_policy.get(name)
    bands = None
    if name in engine.policies.names():
        labels = engine.policies.get(name).labels
        bands = (labels.medium, labels.high)
    panel: dict[str, Any] = {
        "name": name,
        "stats": stats,
        "alerts": [a for a in alerts if a.policy_name == name],
        "mean_label": None,
        "decisions": None,
        "timeline": None,
    }
    if stats is None:
        return panel
    mean = stats.score.mean
    if bands is not None:
        panel["mean_label"] = band_label(mean, {"medium": bands[0], "high": bands[1]})
    counts = stats.decisions.counts
    order = [d for d in DECISION_ORDER if d in counts] + sorted(set(counts) - set(DECISION_ORDER))
    if counts:
        panel["decisions"] = bar_chart(
            [(d, counts[d]) for d in order],
            name=f"decisions-{name}",
            title=f"Route decisions of {name}'s ask events",
        )
    elif stats.scores:  # scores only: what the gate let through
        panel["decisions"] = bar_chart(
            [("admitted", stats.scores - stats.abstentions), ("none admitted", stats.abstentions)],
            name=f"decisions-{name}",
            title=f"Outcome of {name}'s score events",
        )
    timeline = monitor.timeline(policy=name)
    panel["granularity"] = timeline.granularity
    panel["timeline"] = line_chart(
        [(b.start, b.mean_score) for b in timeline.buckets],
        name=f"confidence-{name}",
        title=f"Mean confidence per {timeline.granularity} of {name}",
        bands=bands,
        granularity=timeline.granularity,
    )
    return panel


# -- sources -------------------------------------------------------------------------
@router.get("/sources")
def sources(request: Request, as_of: str | None = None) -> Response:
    """Every registered source with its review due date; overdue ones flagged."""
    caller = guard(request, Role.CURATOR)
    if isinstance(caller, Response):
        return caller
    try:
        day = date.fromisoformat(as_of) if as_of else date.today()
    except ValueError:
        day = date.today()
    try:
        listed = caller.engine.sources.list()
    except AssayError as exc:
        return error_page(request, caller, exc)
    rows = [
        {"source": s, "due": s.review_due(), "overdue": not s.retired and s.review_overdue(day)}
        for s in listed
    ]
    return render(
        request,
        "sources.html",
        key=caller.key,
        active="/sources",
        rows=rows,
        as_of=day,
        overdue=sum(1 for r in rows if r["overdue"]),
    )


# -- calibration ---------------------------------------------------------------------
@router.get("/calibration")
def calibration(request: Request) -> Response:
    """The stored calibration maps, newest first, each with its fit metrics and curve."""
    caller = guard(request, Role.AUDITOR)
    if isinstance(caller, Response):
        return caller
    try:
        stored = caller.engine.calibration.list()
    except AssayError as exc:
        return error_page(request, caller, exc)
    binned = review_reliability(
        [(score, right) for score, right, _ in caller.engine.review.labels()]
    )
    reviews = {
        "count": sum(b.count for b in binned),
        "ece": expected_calibration_error(binned),
        "chart": reliability_chart(
            [(b.mean_score, b.correct, b.count) for b in binned],
            name="review-reliability",
            title="Reviewed answers: confidence given against the share reviewers found correct",
        ),
    }
    maps = [
        {
            "map": m,
            "metrics": metric_rows(m.metrics),
            "chart": calibration_chart(
                calibration_curve(m),
                name=f"map-{m.id}",
                title=f"{m.target} map v{m.version} ({m.method}): raw score to probability",
                method=m.method,
            ),
        }
        for m in reversed(stored)
    ]
    return render(
        request, "calibration.html", key=caller.key, active="/calibration", maps=maps,
        reviews=reviews,
    )  # fmt: skip
