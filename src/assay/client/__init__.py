"""A client for ``assay serve``: every ``/v1`` route, as :class:`Client` or
:class:`AsyncClient` (``http``); the main replies typed (``replies``)."""

from assay.client.http import AccessDeniedError, AsyncClient, Client, ServiceError
from assay.client.replies import AskReply, Assessment, ScoreReply

__all__ = [
    "AccessDeniedError",
    "AskReply",
    "Assessment",
    "AsyncClient",
    "Client",
    "ScoreReply",
    "ServiceError",
]
