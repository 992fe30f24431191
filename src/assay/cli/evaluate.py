"""``assay evaluate``: the J1 assessment of one answer, and nothing else on stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from assay.cli.common import emit_json, parse_json
from assay.errors import InvalidInputError
from assay.judge.evaluate import JUDGES, evaluate_request, get_judge
from assay.policy import PolicyBook
from assay.settings import load_settings


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


@click.command()
@click.option(
    "--input", "path", required=True,
    help='JSON file {"query", "answer", "contexts": [{"id", "text"}]} (- for stdin).',
)  # fmt: skip
@click.option("--judge", "judge_name", type=click.Choice(JUDGES), help="[default: $ASSAY_JUDGE]")
@click.option(
    "--policy", help="Policy whose [judge] thresholds pick the action [default: the default]."
)
def evaluate(path: str, judge_name: str | None, policy: str | None) -> None:
    """Rate an answer against its contexts: prints exactly the J1 JSON object (J1-J6)."""
    settings = load_settings()
    book = PolicyBook.load(settings.policy_dirs, severity_policies=settings.severity_policies)
    chosen = book.resolve(name=policy or settings.default_policy)
    support = None if settings.support_model.lower() == "none" else settings.support_model
    judge = get_judge(judge_name or settings.judge, support)
    assessment = evaluate_request(_read(path), judge=judge, thresholds=chosen.judge.thresholds)
    emit_json(assessment.to_dict())
