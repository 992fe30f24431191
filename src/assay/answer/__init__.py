"""Answerers, citation checks and query expansion: see :mod:`assay.answer.answerers`."""
