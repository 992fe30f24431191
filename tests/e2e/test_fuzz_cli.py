"""B4 fuzzing of the CLI's input files: generated JSON (valid shapes with odd values,
wrong shapes, broken text) never makes a command exit with ``internal error``.

Brief in the default suite; ``make test-long`` raises ``ASSAY_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli

EXAMPLES = int(os.environ.get("ASSAY_FUZZ_EXAMPLES", "4")) * 5
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 50,
    suppress_health_check=list(HealthCheck),
    database=None,
)

text = st.text(st.characters(codec=None), max_size=40) | st.sampled_from(
    ["", " ", "\ud800", "2026-02-30", "1e999", "NaN", "../../etc/passwd", "sds"]
)
number = (
    st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.just(10**400)
)
scalar = st.none() | st.booleans() | number | text
json_value = st.recursive(
    scalar, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


def record(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with some of ``fields`` (each an odd value or a wild one) and stray keys."""
    known = st.fixed_dictionaries({}, optional={k: v | json_value for k, v in fields.items()})
    return st.tuples(known, st.dictionaries(text, json_value, max_size=2)).map(
        lambda pair: pair[0] | pair[1]
    )


candidate = record(
    {
        "id": text,
        "text": text,
        "similarity": number,
        "source_id": text,
        "source_kind": text,
        "published": text,
        "verified": text,
        "metadata": json_value,
    }
)
judge_request = record(
    {"query": text, "answer": text, "contexts": st.lists(record({"id": text, "text": text}))}
)
pair = record({"claim": text, "evidence": text})


def lines_of(values: list[Any]) -> str:
    return "".join(json.dumps(v, allow_nan=True) + "\n" for v in values)


def assert_clean(result: Any) -> None:
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output[-500:])
    assert "internal error" not in result.stderr, result.stderr[-500:]
    if result.exit_code == 2:
        assert result.stderr.startswith("error: ") or "Usage:" in result.stderr


@FUZZ
@given(st.lists(candidate | json_value, min_size=1, max_size=4), text | st.none())
def test_b4_score_survives_any_candidates_file(
    tmp_path_factory: Any, items: list[Any], jurisdiction: str | None
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    path, db = folder / "c.jsonl", folder / "assay.db"
    path.write_text(lines_of(items), encoding="utf-8", errors="surrogatepass")
    run_cli("sources", "add", "sds", "--kind", "official", db=db)
    args = ["score", "--query", "q", "--candidates", str(path), "--as-of", "2026-11-29"]
    if jurisdiction:
        args += ["--jurisdiction", jurisdiction]
    assert_clean(run_cli(*args, db=db))


@FUZZ
@given(judge_request | json_value)
def test_b4_evaluate_survives_any_request(tmp_path_factory: Any, request_body: Any) -> None:
    path = Path(tmp_path_factory.mktemp("fuzz")) / "r.json"
    path.write_text(json.dumps(request_body), encoding="utf-8")
    assert_clean(run_cli("evaluate", "--input", str(path)))


@FUZZ
@given(st.lists(pair | json_value, min_size=1, max_size=3))
def test_b4_models_support_survives_any_pairs(tmp_path_factory: Any, items: list[Any]) -> None:
    path = Path(tmp_path_factory.mktemp("fuzz")) / "p.jsonl"
    path.write_text(lines_of(items), encoding="utf-8")
    assert_clean(run_cli("models", "support", "--input", str(path)))
