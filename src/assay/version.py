"""The version of assay, recorded in every audit row so a replay knows which code scored it."""

__version__ = "0.1.0"
