"""The HTTP service of assay: API, metrics and dashboard (see :mod:`assay.server.app`)."""

from assay.server.app import create_app

__all__ = ["create_app"]
