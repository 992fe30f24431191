"""The dashboard's templates, its page guard and its error pages.

:func:`guard` wraps :func:`assay.server.access.authorize` (which reads the session
cookie) for HTML: no or a bad key redirects to the login page (303), a key without
the page's role gets a 403 page that names the role needed. Templates are Jinja2 with
autoescaping on, so stored text (queries, answers, evidence) is always shown as text.
"""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, select_autoescape

from assay import __version__
from assay.errors import AssayError, ConflictError, NotFoundError
from assay.keys import ApiKey, Role
from assay.server.access import Caller, authorize, presented_key
from assay.server.errors import ApiError

__all__ = ["NAV", "STATIC_DIR", "error_page", "guard", "render"]

NONE = "\u2013"  #: shown for a missing number or time (an en dash)
HERE = Path(__file__).resolve().parent
STATIC_DIR = HERE / "static"

#: every page: nothing from another host, no framing, forms post only here, no caching
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

#: the pages of the nav bar: (title, path under /dashboard, role needed)
NAV: tuple[tuple[str, str, Role], ...] = (
    ("Overview", "", Role.AUDITOR),
    ("Audit trail", "/audit", Role.AUDITOR),
    ("Review queue", "/review", Role.AUDITOR),
    ("Sources", "/sources", Role.CURATOR),
    ("Calibration", "/calibration", Role.AUDITOR),
)


def _when(value: Any) -> str:
    """An ISO time as ``YYYY-MM-DD HH:MM:SS UTC`` (text that is not one, as it is)."""
    if not value:
        return NONE
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _num(value: Any, places: int = 3) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return NONE
    return f"{value:.{places}f}"


def _pct(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return NONE
    return f"{value:.0%}" if value in (0, 1) or value >= 0.1 else f"{value:.1%}"


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(when=_when, num=_num, pct=_pct)
    return env


templates = Jinja2Templates(env=_environment())


def base_path(request: Request) -> str:
    """Where the dashboard lives (``/dashboard``, below the app's root path if any)."""
    return f"{request.scope.get('root_path', '')}/dashboard"


def render(
    request: Request,
    template: str,
    *,
    key: ApiKey | None,
    status: int = 200,
    active: str = "",
    **context: Any,
) -> HTMLResponse:
    """``template`` rendered with the layout's values: the key, its pages, the paths."""
    base = base_path(request)
    nav = [
        {"title": t, "href": base + path, "active": path == active}
        for t, path, role in NAV
        if key is not None and key.allows(role)
    ]
    values = {
        "base": base,
        "static": f"{base}/static",
        "key": key,
        "roles": sorted(r.value for r in key.roles) if key else [],
        "nav": nav,
        "version": __version__,
        **context,
    }
    response = templates.TemplateResponse(request, template, values, status_code=status)
    response.headers.update(SECURITY_HEADERS)
    return response


def guard(request: Request, role: Role) -> Caller | Response:
    """The caller of a page, or the response to send instead: a redirect to the login
    page (no or a bad key), or the 403 page naming ``role`` (the key lacks it)."""
    try:
        return authorize(request, role)
    except ApiError as exc:
        if exc.status == 401:
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            login = f"{base_path(request)}/login?next={quote(target, safe='')}"
            return RedirectResponse(login, status_code=303)
        if exc.status != 403:
            raise
    key = current_key(request)
    allowed = [(t, base_path(request) + p) for t, p, r in NAV if key is not None and key.allows(r)]
    return render(
        request, "forbidden.html", key=key, status=403, needed=role.value, allowed=allowed
    )


def current_key(request: Request) -> ApiKey | None:
    """The active key the request presents, if any (for pages that need no role)."""
    return presented_key(request)[1]


def error_page(request: Request, caller: Caller, exc: AssayError) -> HTMLResponse:
    """An HTML page for an error of assay's own (a bad filter, an unknown id)."""
    status = 400
    if isinstance(exc, NotFoundError):
        status = 404
    elif isinstance(exc, ConflictError):
        status = 409
    return render(request, "error.html", key=caller.key, status=status, message=str(exc))
