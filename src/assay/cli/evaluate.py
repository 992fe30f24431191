"""``assay evaluate``: the J1 assessment of one answer, and nothing else on stdout.

A context may say who stated it: a built-in ``source_kind`` needs no database; a kind
added with ``assay sources add-kind``, or a ``source_id`` that the registry holds, is
read from the database (``--db``, else the configured one when it exists; opened only
then, and never created).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import click

from assay.cli.common import db_option, emit_json, parse_json
from assay.errors import AssayError, InvalidInputError
from assay.judge.evaluate import JUDGES, evaluate_request, get_judge
from assay.judge.strength import BUILTIN_KINDS
from assay.policy import PolicyBook
from assay.settings import load_settings
from assay.sources import SourceRegistry


def _read(path: str) -> object:
    """The JSON object in ``path`` (``-``: stdin)."""
    try:
        if path == "-":
            text = sys.stdin.read().removeprefix("\ufeff")
        else:
            text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark is fine
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            "--input", path, f"give a readable UTF-8 JSON file ({exc})"
        ) from None
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            "--input", path, f"fix the JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            problem="is not valid JSON",
        ) from None  # fmt: skip
    except ValueError as exc:  # nested too deeply
        raise InvalidInputError("--input", path, str(exc), problem="is not usable JSON") from None


def _names_the_registry(request: object) -> bool:
    """Whether a context of ``request`` names a source id or a kind that is not built in."""
    contexts = request.get("contexts") if isinstance(request, Mapping) else None
    if not isinstance(contexts, list):
        return False  # evaluate_request says what is wrong with it
    for context in contexts:
        if isinstance(context, Mapping):
            kind = context.get("source_kind")
            if context.get("source_id") is not None or (kind and kind not in BUILTIN_KINDS):
                return True
    return False


@contextmanager
def _registry(request: object, db: Path | None) -> Iterator[SourceRegistry | None]:
    """The source registry the request needs, if any (see the module docstring). Without
    ``--db``, a configured database that cannot be opened leaves only the built-in kinds,
    so that a misspelt kind is reported as such."""
    if not _names_the_registry(request):
        yield None
        return
    from assay.engine import Assay  # only now: the built-in kinds need no database

    try:
        engine = Assay(db, create=False)
    except AssayError:
        if db is not None:
            raise
        yield None
        return
    with engine:
        yield engine.sources


@click.command()
@click.option(
    "--input", "path", required=True,
    help='JSON file {"query", "answer", "contexts": [{"id", "text"}]} (- for stdin); a '
    'context may add "source_id", "source_kind" and "published" (an ISO date).',
)  # fmt: skip
@click.option("--judge", "judge_name", type=click.Choice(JUDGES), help="[default: $ASSAY_JUDGE]")
@click.option(
    "--policy", help="Policy whose [judge] thresholds pick the action [default: the default]."
)
@db_option
def evaluate(path: str, judge_name: str | None, policy: str | None, db: Path | None) -> None:
    """Rate an answer against its contexts: prints one strict JSON assessment.

    The database is read only for a context's source id, or a kind added with `assay
    sources add-kind`."""
    settings = load_settings()
    book = PolicyBook.load(settings.policy_dirs, severity_policies=settings.severity_policies)
    chosen = book.resolve(name=policy or settings.default_policy)
    support = None if settings.support_model.lower() == "none" else settings.support_model
    judge = get_judge(judge_name or settings.judge, support)
    request = _read(path)
    with _registry(request, db) as registry:
        assessment = evaluate_request(
            request, judge=judge, thresholds=chosen.judge.thresholds, registry=registry
        )
    emit_json(assessment.to_dict())
