"""The dashboard's auditor pages: the audit trail (list and one event) and the review queue.

The review form posts a verdict that :meth:`assay.review.ReviewQueue.resolve` records;
the engine :func:`~.rendering.guard` hands out has the key's id as its audit actor, so
the ``review`` event names the reviewer's key.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response

from assay.engine import Assay
from assay.errors import AssayError, ConflictError, NotFoundError
from assay.events import AskRecord, ScoreRecord
from assay.keys import ApiKey, Role
from assay.review import STATUSES
from assay.server.auditor_routes import ItemId
from assay.server.dashboard.rendering import base_path, error_page, guard, render
from assay.server.dashboard.views import evidence_rows, outcome, set_confidence, signal_rows

__all__ = ["router"]

router = APIRouter()

KINDS = ("ask", "score", "review", "calibration", "key", "access", "read", "alert", "policy")
PAGE = 50


@dataclass
class TrailFilters:
    """The audit trail's filters, as the list's form sends them (blank: not filtered)."""

    kind: str = ""
    policy: str = ""
    since: str = ""
    until: str = ""
    actor: str = ""

    def given(self) -> dict[str, str]:
        """The filters set, trimmed, as :meth:`assay.audit.AuditLog.list` takes them."""
        return {k: v.strip() for k, v in asdict(self).items() if v.strip()}


@router.get("/audit")
def audit_list(
    request: Request,
    filters: Annotated[TrailFilters, Depends()],
    before: int | None = None,
) -> Response:
    """The audit trail, newest first, filtered and paged by ``before=<seq>``."""
    caller = guard(request, Role.AUDITOR)
    if isinstance(caller, Response):
        return caller
    engine = caller.engine
    given = filters.given()
    before = before if before is not None and before > 0 else None
    try:
        events = engine.audit.list(limit=PAGE, before_seq=before, **given)
    except AssayError as exc:
        return error_page(request, caller, exc)
    engine.record_read("audit events", given | {"before": before}, len(events))
    names = {k.id: k.name for k in engine.keys.list()}
    base = base_path(request)
    older = None
    if len(events) == PAGE:
        older = f"{base}/audit?" + urlencode(given | {"before": events[-1].seq})
    total, _ = engine.audit.head()
    return render(
        request,
        "audit_list.html",
        key=caller.key,
        active="/audit",
        rows=[
            {"event": e, "outcome": outcome(e), "actor": names.get(e.actor or "")} for e in events
        ],
        filters=filters,
        kinds=KINDS,
        policies=sorted(set(engine.policies.names()) | {filters.policy} - {""}),
        keys=engine.keys.list(),
        older=older,
        newest=f"{base}/audit?" + urlencode(given) if before is not None else None,
        total=total,
        csv_query=urlencode(given),
    )


#: rows a CSV download holds at most: past it, `assay audit export` streams the whole log
CSV_ROWS = 100_000
_CSV_COLUMNS = ("seq", "event_id", "created_at", "kind", "policy", "policy_version", "actor",
                "actor_name", "query", "outcome", "row_hash")  # fmt: skip
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


@router.get("/audit.csv")
def audit_csv(request: Request, filters: Annotated[TrailFilters, Depends()]) -> Response:
    """The audit trail as the list filters it, oldest first, as CSV for a spreadsheet: one
    row per event with its summary (the full rows, hashes and payloads, come from
    ``assay audit export``). A cell that a spreadsheet would run as a formula is quoted
    with a leading ``'``."""
    caller = guard(request, Role.AUDITOR)
    if isinstance(caller, Response):
        return caller
    engine = caller.engine
    names = {k.id: k.name for k in engine.keys.list()}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_CSV_COLUMNS)
    try:
        for n, e in enumerate(engine.audit.iter_all(**filters.given())):
            if n == CSV_ROWS:
                break
            who = e.actor or ""
            row = (e.seq, e.event_id, e.created_at, e.kind, e.policy_name, e.policy_version,
                   who, names.get(who, ""), e.query, outcome(e), e.row_hash)  # fmt: skip
            writer.writerow([_cell(value) for value in row])
    except AssayError as exc:
        return error_page(request, caller, exc)
    engine.record_read("audit export (csv)", filters.given(), n_rows(out))
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="assay-audit.csv"'},
    )


def n_rows(out: io.StringIO) -> int:
    """The data rows of a CSV written to ``out`` (its header not counted)."""
    return max(out.getvalue().count("\r\n") - 1, 0)


def _cell(value: object) -> object:
    """A text cell a spreadsheet would evaluate ("=HYPERLINK(...)" in a query) as text."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


@router.get("/audit/{event_id}")
def audit_event(event_id: str, request: Request) -> Response:
    """One event in full: query, policy, actor, hashes, route, answer, judge, evidence."""
    caller = guard(request, Role.AUDITOR)
    if isinstance(caller, Response):
        return caller
    engine = caller.engine
    try:
        event = engine.audit.get(event_id)
    except AssayError as exc:
        return error_page(request, caller, exc)
    engine.record_read("audit event", {"event_id": event.event_id}, 1)
    actor_name = None
    if event.actor is not None:
        actor_name = next((k.name for k in engine.keys.list() if k.id == event.actor), None)
    p = event.payload
    try:
        record, unreadable = event.record(), None
    except ValueError as exc:  # shown with its raw payload; `audit verify` names it too
        record, unreadable = None, str(exc)
    asked = record if isinstance(record, AskRecord) else None
    scored = record if isinstance(record, ScoreRecord) else None
    score, label, calibrated = set_confidence(asked) if asked else (None, None, False)
    judgment = asked.judgment if asked else None
    shown = {"evidence", "signals", "route", "assessment", "judgment", "draft", "answer"}
    return render(
        request,
        "audit_event.html",
        key=caller.key,
        active="/audit",
        event=event,
        actor_name=actor_name,
        payload=p,
        unreadable=unreadable,
        score=score,
        label=label,
        calibrated=calibrated,
        signals=signal_rows(asked.signals) if asked else [],
        route=asked.route.model_dump() if asked else None,
        assessment=asked.assessment.model_dump() if asked and asked.assessment else None,
        claims=list(judgment.claims) if judgment else [],
        draft=asked.draft if asked else None,
        evidence=evidence_rows(scored.evidence) if scored else [],
        rest=json.dumps(
            {k: v for k, v in p.items() if k not in shown},
            indent=2,
            ensure_ascii=False,
            sort_keys=True,
        ),
    )


@router.get("/review")
def review_queue(
    request: Request, status: str = "pending", resolved: int | None = None
) -> Response:
    """The human-review queue: pending, resolved or all items, newest first."""
    caller = guard(request, Role.AUDITOR)
    if isinstance(caller, Response):
        return caller
    return _queue(request, caller.engine, caller.key, status, resolved=resolved)


def _queue(
    request: Request,
    engine: Assay,
    key: ApiKey,
    status: str,
    *,
    resolved: int | None = None,
    error: str | None = None,
    http_status: int = 200,
) -> Response:
    status = status if status in STATUSES else "pending"
    items = engine.review.list(status, limit=200)
    engine.record_read("review queue", {"status": status}, len(items))
    counts = engine.review.counts()
    return render(
        request,
        "review.html",
        key=key,
        active="/review",
        status=http_status,
        shown=status,
        items=items,
        counts=counts,
        resolved=resolved,
        error=error,
    )


@router.post("/review/{item_id}")
def review_resolve(
    item_id: ItemId,
    request: Request,
    verdict: Annotated[str, Form()] = "",
    note: Annotated[str, Form()] = "",
    correction: Annotated[str, Form()] = "",
    back: Annotated[str, Form()] = "pending",
) -> Response:
    """Record a verdict (audited, with the key as actor) and go back to the queue."""
    caller = guard(request, Role.AUDITOR)
    if isinstance(caller, Response):
        return caller
    back = back if back in STATUSES else "pending"
    try:
        caller.engine.review.resolve(
            item_id, verdict, note.strip() or None, correction=correction.strip() or None
        )
    except AssayError as exc:
        code = 409 if isinstance(exc, ConflictError) else 400
        code = 404 if isinstance(exc, NotFoundError) else code
        message = f"review item {item_id} was not resolved: {exc}"
        return _queue(request, caller.engine, caller.key, back, error=message, http_status=code)
    query = urlencode({"status": back, "resolved": item_id})
    return RedirectResponse(f"{base_path(request)}/review?{query}#item-{item_id}", status_code=303)
