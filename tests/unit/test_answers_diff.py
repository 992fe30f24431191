"""bench/answers_diff.py pairs two runs' rows question by question, repeated questions
included, and bench/answers.py asks another ordinary suite only when not writing the
report of the held-out one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _row(question: str, outcome: str, answer: str = "") -> dict[str, str]:
    return {"set": "tatqa", "condition": "present", "question": question,
            "policy": "informational", "outcome": outcome, "answer": answer}  # fmt: skip


def _run(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text(json.dumps({"figures": {}, "rows": {"run": rows}}))
    return path


def test_a_repeated_question_is_paired_by_its_occurrence(tmp_path: Path) -> None:
    """TAT-QA asks "What was the change in revenue?" of several reports: keyed by its
    text alone, the second report's change hid behind the first's."""
    question = "What was the change in revenue?"
    before = _run(tmp_path / "a.json", [_row(question, "right"), _row(question, "right")])
    after = _run(tmp_path / "b.json", [_row(question, "right"), _row(question, "withheld")])
    done = subprocess.run(
        [sys.executable, str(BENCH / "answers_diff.py"), str(before), str(after)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert lines[0] == f"tatqa/present | {question} | informational #2: right -> withheld"
    assert "tatqa / informational / right: 2 -> 1" in lines


def test_the_report_is_written_only_for_the_held_out_suite() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "answers.py"), "--ordinary", "labels/ordinary-fit",
         "--write"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--write reports the held-out suite" in done.stderr
