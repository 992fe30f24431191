"""Where chunks live: the :class:`~assay.store.base.Store` interface and its backends."""
