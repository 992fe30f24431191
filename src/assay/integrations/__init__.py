"""assay inside the stacks people already use: ``langchain`` (extra ``assay[langchain]``).

Each module imports its framework, so import the one you use; the core never does.
"""
