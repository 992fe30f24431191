"""Who may call what: API keys checked against roles, and one engine per thread.

Every route except health (and the dashboard's login page) is guarded by
:func:`require` (or calls :func:`authorize`). The key comes as ``Authorization: Bearer
<key>`` or ``X-API-Key: <key>`` (the dashboard's pages: a session cookie instead). A
missing or unknown key is 401, a key without the role 403. The engine a route acts
through (:func:`acting_engine`) writes the key's id as the actor of every audit event.

SQLite connections must stay on the thread that opened them, and FastAPI runs plain
``def`` routes on a thread pool, so :class:`EnginePool` keeps one :class:`Assay` per
thread, all sharing the models loaded once at start-up.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.routing import BaseRoute, Match

from assay.engine import Assay
from assay.keys import ApiKey, Role
from assay.server.errors import ApiError
from assay.server.middleware import (
    BAD_KEY,
    NO_KEY,
    Scope,
    forbidden_message,
    header_key,
    route_path,
)
from assay.settings import Settings

SESSION_COOKIE = "assay_session"


class EnginePool:
    """One :class:`Assay` per thread on the same database, sharing loaded models."""

    def __init__(self, settings: Settings) -> None:
        self.root = Assay(settings=settings)
        self.root.audit.require_key_if_sealed()  # no service that would break a sealed log
        if settings.audit_checkpoint_file is not None:  # nor one on a log cut while down
            self.root.audit.anchor(settings.audit_checkpoint_file)
        self._local = threading.local()
        self.ready = threading.Event()

    def warm(self) -> None:
        """Load every model the configuration uses, so no request pays for it."""
        root = self.root
        _ = root.embedder, root.relevance, root.support, root.answerer, root.judge
        self.ready.set()

    def get(self) -> Assay:
        """This thread's engine (opened on first use)."""
        engine: Assay | None = getattr(self._local, "engine", None)
        if engine is None:
            engine = self.root.fork()
            self._local.engine = engine
        return engine


@dataclass(frozen=True, slots=True)
class Caller:
    """The authenticated key of a request and the engine that acts for it."""

    key: ApiKey
    engine: Assay


@dataclass(frozen=True, slots=True)
class SessionRules:
    """How dashboard sessions are issued: how long they last, whether always ``Secure``."""

    lifetime: timedelta
    secure_cookies: bool


def presented_key(request: Request) -> tuple[bool, ApiKey | None]:
    """Whether the request presents credentials, and the active key they stand for.

    An API key in a header, or, on the dashboard's pages only, a session cookie (so a
    cookie can never drive the API from another page). A session stands for the key
    that opened it while it is open, unexpired, and the key not revoked.
    """
    keys = request.app.state.engines.get().keys
    token = header_key(request.headers)
    if token is not None:
        return True, keys.authenticate(token)
    if route_path(request.scope).startswith("/dashboard"):
        session = request.cookies.get(SESSION_COOKIE)
        if session:
            return True, keys.session_key(session)
    return False, None


def authenticate(request: Request, role: Role) -> ApiKey:
    """The request's key, or 401 (no or bad key) / 403 (the key lacks ``role``).

    On the API the key was already checked before the body was read
    (:class:`~assay.server.middleware.RequestContext`); only the role is left.
    """
    key: ApiKey | None = getattr(request.state, "key", None)
    if key is None:
        challenge = {"WWW-Authenticate": "Bearer"}
        presented, key = presented_key(request)
        if not presented:
            raise ApiError(401, "unauthenticated", NO_KEY, headers=challenge)
        if key is None:
            raise ApiError(401, "invalid_key", BAD_KEY, headers=challenge)
    if not key.allows(role):
        raise ApiError(403, "forbidden", forbidden_message(key, role))
    request.state.key = key
    return key


_bearer = HTTPBearer(auto_error=False, description="An API key: `assay keys create`.")


def require(role: Role) -> Callable[..., Awaitable[ApiKey]]:
    """A route dependency that admits keys with ``role`` (the key itself was checked
    before the body was read; see :mod:`assay.server.middleware`)."""

    async def check_key(
        request: Request, _: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
    ) -> ApiKey:
        return authenticate(request, role)

    check_key.role = role  # type: ignore[attr-defined]  # read by :func:`route_roles`
    return check_key


def route_roles(routes: Callable[[], Sequence[BaseRoute]]) -> Callable[[Scope], Role | None]:
    """For the middleware: the role the route a request matches needs (from its
    :func:`require` dependency), so a key without it gets 403 before its body is read;
    ``None`` for a route without one, or no route. ``routes`` (the app's and its
    routers' own, as defined: how an app nests included routers varies between FastAPI
    releases) is read on each request; each route's role is looked up once."""
    roles: dict[int, Role | None] = {}

    def required(scope: Scope) -> Role | None:
        for route in routes():
            if not isinstance(route, APIRoute) or route.matches(scope)[0] is not Match.FULL:
                continue
            if id(route) not in roles:
                found = (getattr(d.dependency, "role", None) for d in route.dependencies)
                roles[id(route)] = next((r for r in found if isinstance(r, Role)), None)
            return roles[id(route)]
        return None

    return required


def acting_engine(request: Request) -> Assay:
    """This thread's engine, writing audit events as the request's key (checked first
    by :func:`require`), searching and listing only what the key may read (its grants;
    :mod:`assay.access`). Call it from the route's own body."""
    engine: Assay = request.app.state.engines.get()
    key: ApiKey = request.state.key
    return engine.acting_as(key.id, severity_floor=key.min_severity, access=key.access)


def authorize(request: Request, role: Role) -> Caller:
    """Check the key (as :func:`require`) and return it with this thread's engine."""
    key = authenticate(request, role)
    return Caller(key, acting_engine(request))
