"""What every command shares: the database option, JSON output, and error handling."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from assay.errors import AssayError, InvalidInputError

F = TypeVar("F", bound=Callable[..., Any])


class AssayGroup(click.Group):
    """A click group that turns assay errors into one line and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, BrokenPipeError):
            raise
        except AssayError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except Exception as exc:  # a bug: say so plainly, show the trace only on request
            if _debug():
                traceback.print_exc()
            click.echo(
                f"internal error: {type(exc).__name__}: {exc} "
                "(set ASSAY_DEBUG=1 for the traceback and report it)",
                err=True,
            )
            sys.exit(70)


def _debug() -> bool:
    """The ``debug`` setting (``ASSAY_DEBUG``); off when the settings themselves are bad."""
    from assay.settings import load_settings  # not at import: `assay --help` skips pydantic

    try:
        return load_settings().debug
    except AssayError:
        return False


class DatabaseTarget(click.ParamType[Any]):
    """An SQLite file path, or a ``postgresql://`` URL kept as text."""

    name = "PATH|URL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from assay.settings import is_database_url

        if is_database_url(value):
            return value  # the settings check the scheme and name the fix
        return click.Path(dir_okay=False, path_type=Path).convert(value, param, ctx)


def db_option(fn: F) -> F:
    """``--db PATH|URL``: the database (default ``$ASSAY_DB`` or ``./assay.db``)."""
    return click.option(
        "--db",
        "db",
        type=DatabaseTarget(),
        default=None,
        help="Database: an SQLite file, or a postgresql://user@host:port/db URL "
        "[default: $ASSAY_DB or ./assay.db].",
    )(fn)


def json_option(fn: F) -> F:
    """``--json``: print machine-readable JSON instead of text."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(fn)


def emit_json(value: Any) -> None:
    """Print ``value`` as indented JSON on stdout."""
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def today() -> date:
    """The current UTC date, the default ``--as-of`` and review date."""
    return datetime.now(UTC).date()


def parse_meta(pairs: tuple[str, ...]) -> dict[str, Any]:
    """Turn ``--meta key=value`` options into a dict (values parsed as JSON if they can be)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidInputError("--meta", pair, "write it as key=value")
        try:  # JSON values (numbers, true, lists); NaN and Infinity stay text
            out[key.strip()] = json.loads(raw, parse_constant=_not_json)
        except ValueError:
            out[key.strip()] = raw
    return out


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def table(rows: list[list[str]], headers: list[str]) -> str:
    """A plain aligned text table."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=False)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    return "\n".join(lines)


def shorten(text: str, width: int = 70) -> str:
    """One line of at most ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def parse_json(text: str) -> Any:
    """``json.loads``, with nesting too deep for the parser raised as a ``ValueError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply; flatten it") from None


def read_jsonl(path: str, option: str) -> list[tuple[str, Any]]:
    """(``"FILE line N"``, parsed value) for each non-blank line of ``path`` (``-``: stdin).

    An unreadable file or a line that is not JSON is an :class:`InvalidInputError`
    naming ``option``, the file and the line.
    """
    # JSON Lines are separated by "\n" only: str.splitlines would also cut a string at
    # U+2028 and other separators that JSON allows inside strings
    if path == "-":
        lines = sys.stdin.read().split("\n")
    else:
        try:
            lines = Path(path).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(
                option, path, "give a readable UTF-8 JSONL file", problem=f"cannot be read ({exc})"
            ) from None
    out = []
    for number, line in enumerate(lines, start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            out.append((where, parse_json(line)))
        except ValueError as exc:  # JSONDecodeError, too deep, or a number too long
            raise InvalidInputError(
                where,
                shorten(line, 40),
                "write one JSON object per line",
                problem=f"is not JSON ({exc})",
            ) from None
    return out
