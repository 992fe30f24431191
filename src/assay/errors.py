"""The one exception tree of assay.

Every error assay raises on purpose derives from :class:`AssayError` and carries
its context as attributes, so that the CLI and the HTTP layer can turn it into an
exit code or a status code without parsing messages::

    AssayError
    ├── InvalidInputError       a value given by the caller is wrong (field, value, fix)
    │   ├── UnknownPolicyError  no policy by that name or severity
    │   ├── UnknownSourceError  a source id that the registry does not hold
    │   └── PolicyError         a policy file or profile is inconsistent
    ├── ConflictError           the operation clashes with stored state (duplicate id)
    ├── NotFoundError           a stored record (audit event, ...) does not exist
    ├── ModelUnavailableError   a model's files cannot be found; says what to install
    └── StorageError            the database cannot be opened or migrated

Only ``assay.cli`` (exit codes) and ``assay.server`` (HTTP statuses) catch these.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class AssayError(Exception):
    """Root of every error assay raises on purpose."""

    exit_code: int = 1


#: the value of a setting that was never given: the message names the field alone
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()


class InvalidInputError(AssayError, ValueError):
    """A caller-supplied value is invalid.

    The message names the field, shows the bad value (none for :data:`UNSET`) and says
    how to fix it.
    """

    exit_code = 2

    def __init__(self, field: str, value: Any, fix: str, *, problem: str = "is invalid") -> None:
        self.field = field
        self.value = value
        self.fix = fix
        self.problem = problem
        shown = field if value is UNSET else f"{field}={_show(value)}"
        super().__init__(f"{shown} {problem}; {fix}")

    def at(self, where: str) -> InvalidInputError:
        """The same error, its field prefixed with where it happened (a line, a candidate)."""
        return InvalidInputError(
            f"{where}: {self.field}", self.value, self.fix, problem=self.problem
        )


class UnknownPolicyError(InvalidInputError):
    """No policy is known by the requested name or severity."""

    def __init__(self, field: str, value: str, choices: Iterable[str]) -> None:
        self.choices = sorted(choices)
        super().__init__(
            field,
            value,
            f"{did_you_mean(value, self.choices)}choose one of: {', '.join(self.choices)}",
            problem="is unknown",
        )


class UnknownSourceError(InvalidInputError):
    """A candidate or command names a source the registry does not hold."""

    def __init__(self, value: str, *, field: str = "source_id", or_kind: bool = False) -> None:
        fix = "register it first with `assay sources add ID --kind KIND`"
        super().__init__(
            field,
            value,
            fix + (", or give a source_kind instead" if or_kind else ""),
            problem="is not in the source registry",
        )


class PolicyError(InvalidInputError):
    """A policy definition is inconsistent (weights, bands, thresholds)."""


class ConflictError(AssayError):
    """The operation clashes with stored state, such as adding an existing id."""


class ForbiddenError(AssayError):
    """The caller may not do this (an API key asking under a policy below its floor)."""


class NotFoundError(AssayError):
    """A stored record, such as an audit event, does not exist."""


class ModelUnavailableError(AssayError):
    """The files of a model cannot be found or loaded; the message says what to install."""


class StorageError(AssayError):
    """The database could not be opened, migrated or written."""


class EndpointError(AssayError):
    """The configured LLM endpoint failed or answered something unusable."""


def did_you_mean(value: Any, choices: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the closest choice to a misspelt value, or the one
    choice it abbreviates (``safety`` for ``safety_critical``), else ``""``."""
    options, text = list(choices), str(value)
    close = difflib.get_close_matches(text, options, n=1)
    if not close and len(text) >= 3:
        close = [c for c in options if c.casefold().startswith(text.casefold())][:2]
        close = close if len(close) == 1 else []
    return f"did you mean {close[0]!r}? " if close else ""


def _show(value: Any) -> str:
    """Render a bad value briefly and unambiguously for an error message."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
