"""A strict reader for one TOML table of a policy file.

Typed getters with defaults; any problem -- a missing key, a wrong type, a value out
of range, a key the policy does not know -- raises :class:`~assay.errors.PolicyError`
naming the file, the dotted key, the value and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from assay.errors import InvalidInputError, PolicyError, did_you_mean
from assay.types import check_unit_interval

T = TypeVar("T")
_REQUIRED: Any = ...


class TableReader:
    """Reads one table; call :meth:`finish` last to refuse keys nobody asked for."""

    def __init__(self, data: Any, path: str, origin: str) -> None:
        if not isinstance(data, Mapping):
            raise PolicyError(f"{origin}: {path or 'policy'}", data, "write it as a TOML table")
        self.data, self.path, self.origin = data, path, origin
        self.used: set[str] = set()

    def field(self, key: str) -> str:
        """The dotted name of ``key`` as error messages show it."""
        return f"{self.origin}: {self.path + '.' if self.path else ''}{key}"

    def get(self, key: str, default: Any = _REQUIRED) -> Any:
        """The raw value, the default, or an error when a required key is missing."""
        self.used.add(key)
        if key not in self.data:
            if default is _REQUIRED:
                raise PolicyError(self.field(key), None, "add it", problem="is missing")
            return default
        return self.data[key]

    def build(self, what: str, make: Callable[[], T]) -> T:
        """Run a constructor that validates itself, re-raising its error as a policy error."""
        try:
            return make()
        except InvalidInputError as exc:
            named = (
                exc.field
                if exc.field.startswith(f"{self.origin}: ")
                else f"{self.origin}: {exc.field}"
            )
            raise PolicyError(named, exc.value, exc.fix, problem=exc.problem) from None

    def unit(self, key: str, default: Any = _REQUIRED) -> float:
        """A number in [0, 1]."""
        value = self.get(key, default)
        return self.build(key, lambda: check_unit_interval(self.field(key), value))

    def string(self, key: str, default: Any = _REQUIRED) -> str:
        """A string (non-empty when required)."""
        value = self.get(key, default)
        if not isinstance(value, str) or (default is _REQUIRED and not value.strip()):
            raise PolicyError(self.field(key), value, "give a non-empty string")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        """true or false."""
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise PolicyError(self.field(key), value, "use true or false")
        return value

    def integer(self, key: str, default: int, minimum: int) -> int:
        """A whole number of at least ``minimum``."""
        value = self.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise PolicyError(self.field(key), value, f"give a whole number >= {minimum}")
        return value

    def choice(self, key: str, default: str, choices: Iterable[str]) -> str:
        """One of ``choices``."""
        options = list(choices)
        value = self.get(key, default)
        if value not in options:
            raise PolicyError(self.field(key), value, f"use one of {', '.join(options)}")
        return str(value)

    def section(self, key: str) -> TableReader:
        """A reader for the sub-table ``key`` (empty when absent)."""
        return TableReader(self.get(key, {}), f"{self.path}.{key}".strip("."), self.origin)

    def sections(self, key: str) -> dict[str, TableReader]:
        """Readers for each sub-table of ``key``, by name."""
        table = self.get(key, {})
        if not isinstance(table, Mapping):
            raise PolicyError(self.field(key), table, "write it as tables, one per name")
        return {
            name: TableReader(sub, f"{self.path}.{key}.{name}".strip("."), self.origin)
            for name, sub in table.items()
        }

    def number_map(self, key: str, low: float, high: float) -> dict[str, float]:
        """A table of name = number, each number in [low, high]."""
        table = self.get(key, {})
        if not isinstance(table, Mapping):
            raise PolicyError(self.field(key), table, "write it as a table of name = number")
        out: dict[str, float] = {}
        for name, value in table.items():
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or not low <= value <= high:
                raise PolicyError(
                    self.field(f"{key}.{name}"), value, f"give a number in [{low:g}, {high:g}]"
                )
            out[str(name)] = float(value)
        return out

    def finish(self) -> None:
        """Refuse any key of this table that no getter asked for."""
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise PolicyError(
                self.field(unknown[0]),
                self.data[unknown[0]],
                (f"{guess}otherwise " if (guess := did_you_mean(unknown[0], self.used)) else "")
                + f"remove it; known keys here are {', '.join(sorted(self.used))}",
                problem="is not a policy setting",
            )
