"""The question flow, in the order a question takes it.

``retrieval`` (hybrid search of the knowledge base and the cosine -> similarity map),
``score`` (candidates scored, gated and corroborated: one pure function, and the audit
record of a scoring event), ``assess`` (set signals and the route of a question, and its
audit record), ``respond`` (the answer, its citation check, the judge and the statuses).
:class:`assay.Assay` wires them to one database and its models.
"""
