"""The repositories whose SQL is the same on every backend, written once.

``sources``, ``review``, ``keys``, ``calibration``, ``audit`` (appends and reads; each
backend reads raw rows its own way) and ``alerts`` (the drift alerts of monitoring) run
on any :class:`~assay.store.sql.session.Session`. What differs between backends --
schemas and migrations, the knowledge base's vector and lexical search, reading numbers
out of JSON payloads -- stays in :mod:`assay.store.sqlite` and :mod:`assay.store.postgres`.
"""
