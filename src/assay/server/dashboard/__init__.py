"""The web dashboard of the HTTP service (B4): server-rendered pages under ``/dashboard``.

::

    from assay.server.dashboard import STATIC_DIR, router
    app.include_router(router)
    app.mount("/dashboard/static", StaticFiles(directory=STATIC_DIR), name="dashboard-static")

Pages: the overview (volume, decision mix, confidence over time and drift alerts per
policy), the audit trail and each event in full, the human-review queue with a form to
record verdicts, the source registry with review due dates, and the calibration maps.
Logging in with an API key opens a server-side session (a random id in an HttpOnly,
SameSite=Strict cookie, with an expiry; see :meth:`assay.keys.KeyStore.open_session`),
checked on every request with the key's roles, as the API checks them. Everything is
served by the app itself: SVG charts drawn on the server, one stylesheet, no script and
nothing from another host.
"""

from assay.server.dashboard.rendering import STATIC_DIR
from assay.server.dashboard.routes import router

__all__ = ["STATIC_DIR", "router"]
