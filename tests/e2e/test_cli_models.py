"""``assay models``: list the models, score relevance (R4) and support (E10) from JSON
Lines, one output line per input line in order; bad input is one line and exit code 2.

The shipped models are retrained from time to time: nothing here pins a score or a version.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from assay.models.head import shipped_head_path
from assay.models.pair_classifier import SHIPPED_CROSS_ENCODER
from assay.models.reader import SHIPPED_READER
from assay.models.support_stack import SHIPPED_STACK
from tests.conftest import run_cli, write_jsonl

HEADS = ("assay-relevance", "assay-relevance-lexical", "assay-support", "assay-support-lexical")
CROSS_ENCODER = ("assay-relevance-ce", "assay-support-ce")
SHIPPED = (*HEADS, *CROSS_ENCODER, "assay-support-stack", "assay-reader")
DEFAULTS = ("assay-relevance", "assay-support-stack", "assay-reader")
QUERY = "What is the maximum charging temperature of the battery?"
ANSWER = "The battery may be charged at temperatures up to 45 degrees; charging stops above that."
UNRELATED = "Burmese pythons are large snakes that live in the wetlands of Southeast Asia."
OTHER_QUERY = "How long do refunds take?"
REFUND = "Refunds are issued within 14 days of the return reaching our warehouse."


@pytest.fixture(autouse=True)
def _no_model_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ASSAY_LLM_URL", "ASSAY_RELEVANCE_MODEL", "ASSAY_SUPPORT_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.split("\n") if line.strip()]


def _one_line_error(result: Any, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    message = result.stderr.strip()
    assert message.startswith("error: ") and "\n" not in message
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in message


# -- list ------------------------------------------------------------------------------------


def test_models_list_as_text() -> None:
    result = run_cli("models", "list")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["task", "name", "model", "mode"]
    for name in SHIPPED:
        assert any(line.split()[1] == name for line in lines[1:-1]), name
    defaults = [line.split()[1] for line in lines if " * " in line or line.endswith(" *")]
    assert defaults == list(DEFAULTS)
    for plug_in in ("cross-encoder:PATH", "llm", "cascade"):
        assert plug_in in result.stdout
    assert "ASSAY_RELEVANCE_MODEL" in lines[-1]


def test_models_list_as_json_gives_each_shipped_models_sha256() -> None:
    result = run_cli("models", "list", "--json")
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    shipped = {r["name"]: r for r in rows if r["mode"] != "plug-in"}
    assert set(shipped) == set(SHIPPED)
    onnx = (SHIPPED_CROSS_ENCODER / "model.onnx").read_bytes()
    for name, row in shipped.items():
        assert row["task"] == name.split("-")[1]
        assert row["id"].startswith(f"{name}@")
        assert row["default"] is (name in DEFAULTS)
        if name in ("assay-support-stack", "assay-reader"):
            folder = SHIPPED_STACK if name == "assay-support-stack" else SHIPPED_READER
            assert row["mode"].startswith("cross-encoder ")
            assert row["sha256"] == hashlib.sha256((folder / "model.json").read_bytes()).hexdigest()
            continue
        if name in CROSS_ENCODER:
            assert row["mode"] == "cross-encoder"
            assert row["sha256"] == hashlib.sha256(onnx).hexdigest()
            continue
        path, manifest_digest = shipped_head_path(name)
        assert row["sha256"] == manifest_digest == hashlib.sha256(path.read_bytes()).hexdigest()
        assert row["mode"] == ("lexical" if name.endswith("-lexical") else "neural")
    plug_ins = [r for r in rows if r["mode"] == "plug-in"]
    assert {(r["task"], r["name"]) for r in plug_ins} >= {
        ("relevance", "cross-encoder:PATH"),
        ("relevance", "llm"),
        ("relevance", "cascade"),
        ("support", "cross-encoder:PATH"),
        ("support", "llm"),
    }
    assert not any(r["default"] for r in plug_ins)


# -- relevance -------------------------------------------------------------------------------


@pytest.fixture
def relevance_input(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = [
        {"id": "q1-off", "query": QUERY, "passage": UNRELATED},
        {"id": "q2-refund", "query": OTHER_QUERY, "passage": REFUND, "meta": {"rank": 1}},
        {"id": "q1-answer", "query": QUERY, "passage": ANSWER, "note": "température ✓"},
        {"id": "q2-off", "query": OTHER_QUERY, "passage": UNRELATED},
    ]
    return write_jsonl(tmp_path / "pairs.jsonl", records), records


@pytest.mark.parametrize("model", [None, "assay-relevance-lexical"])
def test_r4_models_relevance_adds_a_score_to_each_line_in_order(
    relevance_input: tuple[Path, list[dict[str, Any]]], model: str | None
) -> None:
    path, records = relevance_input
    options = ["--model", model] if model else []
    result = run_cli("models", "relevance", "--input", str(path), *options)
    assert result.exit_code == 0, result.stderr
    out = _lines(result.stdout)
    assert len(out) == len(records)
    for record, line in zip(records, out, strict=True):
        score = line.pop("score")
        assert isinstance(score, float) and 0.0 <= score <= 1.0
        assert line == record  # every input field kept, unchanged, in the input's order
    assert "température ✓" in result.stdout  # not escaped


def test_r4_models_relevance_scores_the_answer_above_the_off_topic_passage(
    relevance_input: tuple[Path, list[dict[str, Any]]],
) -> None:
    path, _ = relevance_input
    result = run_cli("models", "relevance", "--input", str(path))
    assert result.exit_code == 0, result.stderr
    scores = {line["id"]: line["score"] for line in _lines(result.stdout)}
    assert scores["q1-answer"] > scores["q1-off"]
    assert scores["q2-refund"] > scores["q2-off"]


def test_r4_models_relevance_reads_stdin(
    relevance_input: tuple[Path, list[dict[str, Any]]],
) -> None:
    path, records = relevance_input
    from_file = run_cli("models", "relevance", "--input", str(path))
    from_stdin = run_cli("models", "relevance", "--input", "-", input=path.read_text("utf-8"))
    assert from_stdin.exit_code == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout
    assert [line["id"] for line in _lines(from_stdin.stdout)] == [r["id"] for r in records]


def test_models_relevance_of_an_empty_file_prints_nothing(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    result = run_cli("models", "relevance", "--input", str(path))
    assert result.exit_code == 0 and result.stdout == ""


# -- support ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "model", [None, "assay-support-ce", "assay-support-stack", "assay-support-lexical"]
)
def test_e10_models_support_adds_score_contradiction_and_label(
    tmp_path: Path, model: str | None
) -> None:
    long_claim = " ".join(f"Cell {i} may be charged at up to 45 degrees." for i in range(40))
    records: list[dict[str, Any]] = [
        {"claim": "The battery may be charged at up to 45 degrees.", "evidence": ANSWER, "n": 1},
        {"claim": "Refunds are issued within 14 days.", "evidence": REFUND, "n": 2},
        {"claim": "Refunds are issued within 14 days.", "evidence": UNRELATED, "n": 3},
        {"claim": long_claim, "evidence": long_claim, "n": 4},
    ]
    path = write_jsonl(tmp_path / "claims.jsonl", records)
    options = ["--model", model] if model else []
    result = run_cli("models", "support", "--input", str(path), *options)
    assert result.exit_code == 0, result.stderr
    out = _lines(result.stdout)
    assert [line["n"] for line in out] == [1, 2, 3, 4]
    for record, line in zip(records, out, strict=True):
        assert 0.0 <= line["score"] <= 1.0
        assert line["label"] in {"supported", "contradicted", "unsupported"}
        assert 0.0 <= line["contradiction"] <= 1.0
        added = ("score", "label", "contradiction", "truncated")
        assert {k: v for k, v in line.items() if k not in added} == record
    # a claim longer than one window fails closed
    assert out[3]["score"] == 0.0 and out[3]["label"] != "supported" and out[3]["truncated"]


def test_e10_models_support_reads_stdin() -> None:
    line = json.dumps({"claim": "Refunds are issued within 14 days.", "evidence": REFUND})
    result = run_cli("models", "support", "--input", "-", input=line + "\n")
    assert result.exit_code == 0, result.stderr
    (out,) = _lines(result.stdout)
    assert set(out) == {"claim", "evidence", "score", "label", "contradiction", "truncated"}


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "lines", "fragments"),
    [
        (
            "relevance",
            [json.dumps({"query": QUERY, "passage": ANSWER}), json.dumps({"query": QUERY})],
            ["line 2", "passage", "non-empty text"],
        ),
        (
            "relevance",
            [json.dumps({"query": " ", "passage": ANSWER})],
            ["line 1", "query"],
        ),
        (
            "relevance",
            [json.dumps({"query": QUERY, "passage": 42})],
            ["line 1", "passage"],
        ),
        (
            "relevance",
            [json.dumps({"query": QUERY, "passage": ANSWER}), "", "{not json"],
            ["line 3", "is not JSON"],
        ),
        ("relevance", ["[1, 2]"], ["line 1", "objects with query and passage"]),
        (
            "support",
            [json.dumps({"claim": "c", "evidence": "e"}), json.dumps({"claim": "c"})],
            ["line 2", "evidence"],
        ),
        ("support", ['"just a string"'], ["line 1", "claim and evidence"]),
        ("support", ["{'claim': 'single quotes'}"], ["line 1", "is not JSON"]),
    ],
)
def test_bad_input_lines_exit_2_naming_the_line(
    tmp_path: Path, command: str, lines: list[str], fragments: list[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("models", command, "--input", str(path))
    _one_line_error(result, str(path), *fragments)


@pytest.mark.parametrize("command", ["relevance", "support"])
def test_a_missing_input_file_exits_2(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "absent.jsonl"
    result = run_cli("models", command, "--input", str(missing))
    _one_line_error(result, "--input", "absent.jsonl", "cannot be read")


def test_bad_stdin_names_the_line() -> None:
    result = run_cli("models", "relevance", "--input", "-", input='{"query": "q"}\n')
    _one_line_error(result, "- line 1", "passage")


@pytest.mark.parametrize(
    ("command", "model", "suggestion"),
    [
        ("relevance", "assay-relevence", "assay-relevance"),
        ("support", "assay-suport", "assay-support"),
    ],
)
def test_an_unknown_model_exits_2_with_a_suggestion(
    tmp_path: Path, command: str, model: str, suggestion: str
) -> None:
    record = {"query": QUERY, "passage": ANSWER, "claim": "c", "evidence": "e"}
    path = write_jsonl(tmp_path / "in.jsonl", [record])
    result = run_cli("models", command, "--input", str(path), "--model", model)
    _one_line_error(result, f"did you mean '{suggestion}'", "choose one of")


def test_the_llm_model_without_an_endpoint_exits_2(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [{"query": QUERY, "passage": ANSWER}])
    result = run_cli("models", "relevance", "--input", str(path), "--model", "llm")
    _one_line_error(result, "ASSAY_LLM_URL")


def test_input_is_required_and_help_is_there() -> None:
    result = run_cli("models", "relevance")
    assert result.exit_code == 2 and "--input" in result.stderr
    for command in ("list", "relevance", "support"):
        help_result = run_cli("models", command, "--help")
        assert help_result.exit_code == 0 and "Usage:" in help_result.stdout


def test_the_model_setting_chooses_the_default_model(
    relevance_input: tuple[Path, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = relevance_input
    lexical = run_cli(
        "models", "relevance", "--input", str(path), "--model", "assay-relevance-lexical"
    )
    monkeypatch.setenv("ASSAY_RELEVANCE_MODEL", "assay-relevance-lexical")
    from_setting = run_cli("models", "relevance", "--input", str(path))
    assert from_setting.exit_code == 0, from_setting.stderr
    assert from_setting.stdout == lexical.stdout


def test_a_line_separator_inside_a_json_string_does_not_split_the_line(tmp_path: Path) -> None:
    """JSON Lines are split on "\\n" only: U+2028 is legal inside a JSON string."""
    path = tmp_path / "pairs.jsonl"
    record = {"query": "Who wrote it?", "passage": "Line one\u2028line two, by Tom."}
    path.write_text(json.dumps(record, ensure_ascii=False) + "\r\n", encoding="utf-8")
    result = run_cli("models", "relevance", "--input", str(path))
    assert result.exit_code == 0, result.stderr
    (line,) = _lines(result.stdout)
    assert line["passage"] == record["passage"]
