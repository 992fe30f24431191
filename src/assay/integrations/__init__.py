"""assay inside the stacks people already use: ``langchain`` (extra ``assay[langchain]``),
``llamaindex`` (extra ``assay[llamaindex]``) and ``haystack`` (extra ``assay[haystack]``).

Each module imports its framework, so import the one you use; the core never does.
"""
