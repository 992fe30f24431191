"""assay inside the stacks people already use: ``langchain`` (extra ``assay[langchain]``)
and ``llamaindex`` (extra ``assay[llamaindex]``).

Each module imports its framework, so import the one you use; the core never does.
"""
