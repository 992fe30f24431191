"""``assay models``: list the relevance and support models, and score pairs with them.

Contracts::

    assay models relevance --input FILE.jsonl [--model NAME]
        lines {"query", "passage"}  ->  the same objects plus "score" in [0, 1]
    assay models support --input FILE.jsonl [--model NAME]
        lines {"claim", "evidence"} ->  plus "score" (P(supported)), "contradiction"
                                        (P(contradicted), null where the model cannot
                                        tell) and "label": supported | contradicted |
                                        unsupported

Output is JSON Lines on stdout, one line per input line, in order.
"""

from __future__ import annotations

import json
from typing import Any

import click

from assay.cli.common import emit_json, json_option, read_jsonl, table
from assay.errors import InvalidInputError
from assay.models.head import load_head, shipped_head_path
from assay.models.pair_classifier import shipped_pair_classifier
from assay.models.reader import DEFAULT_READER_MODEL, load_reader
from assay.models.relevance import DEFAULT_RELEVANCE_MODEL, get_relevance_model
from assay.models.support import DEFAULT_SUPPORT_MODEL, get_support_model
from assay.models.support_stack import shipped_support_stack
from assay.settings import load_settings
from assay.types import check_encodable

_HEADS = ("assay-relevance", "assay-relevance-lexical", "assay-support", "assay-support-lexical")
_CROSS_ENCODER = {"assay-relevance-ce": "relevance", "assay-support-ce": "support"}
_OTHERS = (
    ("relevance", "cross-encoder:PATH", "your ONNX reranker (folder with model.onnx)"),
    ("relevance", "llm", "yes/no from ASSAY_LLM_URL"),
    ("relevance", "cascade", "assay-relevance on all, the LLM on the top 3"),
    ("support", "cross-encoder:PATH", "your ONNX NLI model (ASSAY_SUPPORT_LABELS)"),
    ("support", "llm", "yes/no from ASSAY_LLM_URL"),
)


def _records(path: str, fields: tuple[str, str]) -> list[dict[str, Any]]:
    """The JSONL objects of ``path``, each checked to hold ``fields`` as text."""
    out = []
    for where, record in read_jsonl(path, "--input"):
        if not isinstance(record, dict):
            raise InvalidInputError(where, record, f"write objects with {' and '.join(fields)}")
        for name in fields:
            if not isinstance(record.get(name), str) or not record[name].strip():
                raise InvalidInputError(
                    f"{where}: {name}", record.get(name), f"give {name} as non-empty text"
                )
        check_encodable(where, json.dumps(record, ensure_ascii=False))  # it is printed back
        out.append(record)
    return out


@click.group()
def models() -> None:
    """The relevance and support models: list them, score pairs."""


@models.command("list")
@json_option
def list_models(as_json: bool) -> None:
    """The shipped models (with their sha256) and the pluggable ones."""
    rows: list[dict[str, Any]] = []
    for name in _HEADS:
        path, sha256 = shipped_head_path(name)
        head = load_head(path, sha256)
        rows.append(
            {
                "name": name,
                "task": head.info.get("task"),
                "id": head.model_id,
                "mode": head.info.get("mode"),
                "sha256": sha256,
                "default": name in (DEFAULT_RELEVANCE_MODEL, DEFAULT_SUPPORT_MODEL),
            }
        )
    encoder = shipped_pair_classifier()
    for name, task in _CROSS_ENCODER.items():
        rows.append(
            {
                "name": name,
                "task": task,
                "id": f"{name}@{encoder.version}",
                "mode": "cross-encoder",
                "sha256": encoder.sha256,
                "default": name in (DEFAULT_RELEVANCE_MODEL, DEFAULT_SUPPORT_MODEL),
            }
        )
    stack = shipped_support_stack()
    rows.append(
        {
            "name": "assay-support-stack",
            "task": "support",
            "id": stack.name,
            "mode": "cross-encoder + trees",
            "sha256": stack.sha256,
            "default": DEFAULT_SUPPORT_MODEL == "assay-support-stack",
        }
    )
    reader = load_reader()
    rows.append(
        {
            "name": "assay-reader",
            "task": "reader",
            "id": reader.name,
            "mode": "cross-encoder span head",
            "sha256": reader.sha256,
            "default": load_settings().reader_model == DEFAULT_READER_MODEL,
        }
    )
    for task, name, what in _OTHERS:
        rows.append({"name": name, "task": task, "id": what, "mode": "plug-in", "default": False})
    if as_json:
        emit_json(rows)
        return
    click.echo(
        table(
            [
                [str(r["task"]), r["name"] + (" *" if r["default"] else ""), r["id"], r["mode"]]
                for r in rows
            ],
            ["task", "name", "model", "mode"],
        )
    )
    click.echo("* default; choose with ASSAY_RELEVANCE_MODEL / ASSAY_SUPPORT_MODEL or --model")


@models.command("relevance")
@click.option("--input", "path", required=True, help='JSONL of {"query", "passage"} (- stdin).')
@click.option(
    "--model", help=f"Model name [default: $ASSAY_RELEVANCE_MODEL or {DEFAULT_RELEVANCE_MODEL}]."
)
def relevance(path: str, model: str | None) -> None:
    """Print each line with "score": the probability that the passage answers the query."""
    records = _records(path, ("query", "passage"))
    scorer = get_relevance_model(model or load_settings().relevance_model)
    by_query: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        by_query.setdefault(r["query"], []).append(i)
    scores = [0.0] * len(records)
    for query, rows in by_query.items():
        for i, s in zip(
            rows, scorer.score(query, [records[i]["passage"] for i in rows]), strict=True
        ):
            scores[i] = s
    for r, s in zip(records, scores, strict=True):
        click.echo(json.dumps({**r, "score": round(s, 6)}, ensure_ascii=False))


@models.command("support")
@click.option("--input", "path", required=True, help='JSONL of {"claim", "evidence"} (- stdin).')
@click.option(
    "--model", help=f"Model name [default: $ASSAY_SUPPORT_MODEL or {DEFAULT_SUPPORT_MODEL}]."
)
def support(path: str, model: str | None) -> None:
    """Print each line with "score" (P(supported)), "contradiction" and "label"."""
    records = _records(path, ("claim", "evidence"))
    scorer = get_support_model(model or load_settings().support_model)
    results = scorer.score([(r["claim"], r["evidence"]) for r in records])
    for r, result in zip(records, results, strict=True):
        line = {**r, **result.to_dict()}
        click.echo(json.dumps(line, ensure_ascii=False))
