"""Two runs of ``bench/answers.py`` compared question by question.

A change to the answer layer is judged by what it does to each question, not by the
shares alone: a right answer lost on one set and another gained elsewhere leave the
shares where they were. Rows are paired by set, condition, question (its id in the
ordinary suites, else its text), policy and occurrence: TAT-QA asks the same question
of several reports, so the text alone would pair the wrong rows and hide changes.

    python bench/answers.py [...] --out BEFORE.json      # on the code before
    python bench/answers.py [...] --out AFTER.json       # on the code after
    python bench/answers_diff.py BEFORE.json AFTER.json [--answers]

Prints every question whose outcome changed (with both answers under ``--answers``),
then the count of each outcome per set and policy where it changed.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Key = tuple[str, str, str, str, int]


def keyed(rows: Sequence[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    """Each row under its key: set, condition, question, policy and occurrence."""
    out: dict[Key, dict[str, Any]] = {}
    seen: Counter[tuple[str, str, str, str]] = Counter()
    for row in rows:
        base = (row["set"], row.get("condition", ""), row.get("id") or row["question"],
                row["policy"])  # fmt: skip
        seen[base] += 1
        out[(*base, seen[base])] = row
    return out


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of one run (its only release, or "this release")."""
    runs = json.loads(path.read_text())["rows"]
    if len(runs) == 1:
        return list(next(iter(runs.values())))
    return list(runs["this release"])


def changes(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> list[Key]:
    """The keys of the questions whose outcome differs, in the order of ``before``."""
    a, b = keyed(before), keyed(after)
    return [k for k in a if k in b and a[k]["outcome"] != b[k]["outcome"]]


def _plain(answer: str) -> str:
    return re.sub(r"\s*\[Source: \w+\]", "", answer).replace("\n", " ")[:240]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--answers", action="store_true", help="print both answers")
    args = parser.parse_args()
    before, after = load(args.before), load(args.after)
    a, b = keyed(before), keyed(after)
    for key in changes(before, after):
        name, condition, question, policy, n = key
        where = f"{name}{'/' + condition if condition else ''}"
        print(f"{where} | {question} | {policy}{f' #{n}' if n > 1 else ''}: "
              f"{a[key]['outcome']} -> {b[key]['outcome']}")  # fmt: skip
        if args.answers:
            print(f"    before: {_plain(a[key]['answer'])}")
            print(f"    after:  {_plain(b[key]['answer'])}")
    counts_a = Counter((r["set"], r["policy"], r["outcome"]) for r in before)
    counts_b = Counter((r["set"], r["policy"], r["outcome"]) for r in after)
    for k in sorted(set(counts_a) | set(counts_b)):
        if counts_a[k] != counts_b[k]:
            print(f"{' / '.join(k)}: {counts_a[k]} -> {counts_b[k]}")
    unpaired = len(set(a) ^ set(b))
    if unpaired:
        print(f"{unpaired} rows are in one run only (other sets, policies or question counts)")


if __name__ == "__main__":
    main()
