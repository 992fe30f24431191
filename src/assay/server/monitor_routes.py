"""Monitoring over HTTP (R10, J9, E12): rolling statistics, drift alerts, and a drift
check on demand (the service also runs one every ``--monitor-every`` seconds)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from assay.keys import Role
from assay.server.access import acting_engine, require

router = APIRouter(prefix="/v1/monitor", tags=["monitoring"])


@router.get(
    "",
    summary="Rolling statistics per policy and source",
    dependencies=[Depends(require(Role.AUDITOR))],
)
def report(
    request: Request,
    policy: str | None = None,
    window: int | None = Query(None, ge=1, le=1_000_000, description="The last N events"),
    since: str | None = Query(None, description="Events since this ISO time"),
) -> dict[str, Any]:
    """Score distribution, decision mix, fallback and abstention rates, feedback by
    confidence band and a timeline, as ``assay monitor report --json``."""
    return (
        acting_engine(request).monitor.report(policy=policy, window=window, since=since).to_dict()
    )


@router.get(
    "/alerts", summary="Drift alerts, newest first", dependencies=[Depends(require(Role.AUDITOR))]
)
def alerts(
    request: Request, include_closed: bool = False, policy: str | None = None
) -> dict[str, Any]:
    listed = acting_engine(request).monitor.alerts(include_closed=include_closed, policy=policy)
    return {"alerts": [a.to_dict() for a in listed]}


@router.post(
    "/check",
    summary="Compare the recent window with the baseline; open or close alerts",
    dependencies=[Depends(require(Role.ADMIN))],
)
def check(request: Request) -> dict[str, Any]:
    """Admin only: an opened alert may tighten a policy (``ASSAY_AUTO_TIGHTEN``)."""
    return acting_engine(request).monitor.check().to_dict()
