"""The HTTP service: the API under ``/v1``, health, metrics and the dashboard (B4).

::

    from assay.server import create_app
    app = create_app()          # settings from ASSAY_* and assay.toml, as the CLI

``assay serve`` runs it under uvicorn. Every route but ``/healthz``, ``/readyz``, the
OpenAPI page and the dashboard's login page needs an API key (:mod:`.access`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio.to_thread
from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from assay import __version__
from assay.keys import Role
from assay.server import metrics
from assay.server.access import EnginePool, SessionRules, require, route_roles
from assay.server.admin_routes import router as admin_router
from assay.server.auditor_routes import router as auditor_router
from assay.server.curator_routes import router as curator_router
from assay.server.dashboard import STATIC_DIR
from assay.server.dashboard import router as dashboard_router
from assay.server.errors import install_error_handlers
from assay.server.ingest_worker import IngestWorker
from assay.server.middleware import RequestContext
from assay.server.monitor_routes import router as monitor_router
from assay.server.openai_routes import router as openai_router
from assay.server.query_routes import router as query_router
from assay.settings import ServeSettings, Settings, load_settings

log = logging.getLogger("assay.server")


def create_app(
    settings: Settings | None = None,
    *,
    warm: bool = True,
    options: ServeSettings | None = None,
) -> FastAPI:
    """The FastAPI application over the database of ``settings``.

    ``warm`` loads every configured model at start-up (before the first request is
    accepted), so no request pays for loading one; ``/readyz`` says when that is done.
    ``options`` (:class:`~assay.settings.ServeSettings`; ``None``: ``settings.serve``):
    every ``monitor_every`` seconds (0: never) the drift check runs (J9, E12); a
    dashboard login lasts ``session_hours``; its cookie is ``Secure`` over https, and
    always with ``secure_cookies`` (TLS ended by a proxy in front).
    """
    settings = settings or load_settings()
    options = options or settings.serve
    monitor_every = options.monitor_every
    engines = EnginePool(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm:
            await anyio.to_thread.run_sync(engines.warm)
        else:
            engines.ready.set()
        checks = (
            asyncio.create_task(_check_drift(engines, monitor_every)) if monitor_every else None
        )
        yield
        if checks is not None:
            checks.cancel()
        await anyio.to_thread.run_sync(app.state.ingest_worker.close)
        anchors = settings.audit_checkpoint_file
        if anchors is not None:  # the head as the service leaves it, on a thread's own engine
            await anyio.to_thread.run_sync(lambda: engines.get().audit.anchor(anchors))

    app = FastAPI(
        title="assay",
        version=__version__,
        summary="Confidence-governed retrieval: score, gate, answer, judge and audit.",
        lifespan=lifespan,
        docs_url=None,  # served below from local files: no CDN, works offline
        redoc_url=None,
    )
    app.mount("/docs/static", StaticFiles(directory=swagger_ui_path), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="assay API",
            swagger_js_url="/docs/static/swagger-ui-bundle.js",
            swagger_css_url="/docs/static/swagger-ui.css",
            swagger_favicon_url="/docs/static/favicon-32x32.png",
        )

    app.state.engines = engines
    app.state.ingest_worker = IngestWorker(settings)
    app.state.sessions = SessionRules(
        timedelta(hours=options.session_hours), options.secure_cookies
    )
    install_error_handlers(app)
    routers = (query_router, openai_router, curator_router, auditor_router, monitor_router,
               admin_router)  # fmt: skip
    app.add_middleware(
        RequestContext,
        authenticate=lambda token: engines.get().keys.authenticate(token),
        rate_per_minute=options.rate_limit,
        required_role=route_roles(lambda: [*app.routes, *(r for x in routers for r in x.routes)]),
        max_body_bytes=options.max_body_bytes,
        max_upload_bytes=options.max_upload_bytes,
    )
    for router in (*routers, dashboard_router):
        app.include_router(router)
    app.mount("/dashboard/static", StaticFiles(directory=STATIC_DIR), name="dashboard-static")

    @app.get("/healthz", tags=["health"], summary="Liveness: the process answers")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok", "version": __version__}

    @app.get("/readyz", tags=["health"], summary="Readiness: database open, models loaded")
    def readyz(request: Request) -> JSONResponse:
        checks = {"models_loaded": engines.ready.is_set()}
        try:
            engines.get().audit.head()
            checks["database"] = True
        except Exception:  # any failure to read the database means not ready
            checks["database"] = False
        ready = all(checks.values())
        return JSONResponse(
            {"status": "ready" if ready else "not ready", "checks": checks},
            status_code=200 if ready else 503,
        )

    @app.get(
        "/metrics",
        tags=["health"],
        summary="Prometheus metrics (auditor key)",
        dependencies=[Depends(require(Role.AUDITOR))],
    )
    def prometheus() -> Response:
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)

    return app


async def _check_drift(engines: EnginePool, every: float) -> None:
    """Run the monitor's drift check every ``every`` seconds, off the event loop; a
    failure is logged and the next round tries again."""
    while True:
        await asyncio.sleep(every)
        try:
            result = await anyio.to_thread.run_sync(lambda: engines.get().monitor.check())
        except Exception:  # the service must outlive a failed check; the log says why
            log.exception("drift check failed")
            continue
        for alert in result.opened:
            log.warning("drift alert opened: %s", alert.to_dict())


def app_from_environment() -> FastAPI:
    """The app as ``assay serve`` starts it in each worker process: its settings, the
    command's options among them (``ASSAY_SERVE_*``, :class:`~assay.settings.ServeSettings`),
    from the environment the command set."""
    return create_app(load_settings())
