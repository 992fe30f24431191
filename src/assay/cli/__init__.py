"""The ``assay`` command line: nouns with verbs, ``--json`` on every command."""
