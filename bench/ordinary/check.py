"""Check the "ordinary documents" suite: ``python bench/ordinary/check.py [FOLDER]`` (standard
library; FOLDER: another suite in the same layout, such as ``labels/ordinary-fit``).

Every folder here with a ``kb.json`` is a knowledge base. Checks its sources and kinds, parses
each document (Markdown front matter or JSONL records), checks each question, and that every
gold answer appears verbatim (case-insensitive, whitespace normalised) in a document of the
question's source. Prints counts per knowledge base and in total; exits 1 listing the problems.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).parent
KINDS = {"official", "verified_kb", "internal_wiki", "customer", "unverified"}
TYPES = ("direct", "paraphrase", "unanswerable", "disagreement")
SOURCE_KEYS = {"id", "kind", "name", "owner", "reviewed_at"}
QUESTION_KEYS = {"id", "question", "type", "answers", "source", "note"}
NEEDS = {".md": ("title", "source_id", "published"), ".jsonl": ("id", "source_id", "published")}
PROBLEMS: list[str] = []


def problem(where: str, message: str) -> None:
    PROBLEMS.append(f"{where}: {message}")


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def is_date(value: Any) -> bool:
    try:
        return len(value) == 10 and bool(date.fromisoformat(value))
    except (TypeError, ValueError):
        return False


def documents(folder: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Yield (where, suffix, fields) for each Markdown file and each JSONL record."""
    for path in sorted(p for p in (folder / "docs").rglob("*") if p.is_file()):
        where, text = str(path.relative_to(HERE)), path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            for number, line in enumerate(text.splitlines(), 1):
                try:
                    yield f"{where}:{number}", ".jsonl", json.loads(line)
                except json.JSONDecodeError as error:
                    problem(f"{where}:{number}", f"not JSON ({error})")
        elif path.suffix == ".md":
            head, closed, body = text.removeprefix("---\n").partition("\n---\n")
            if not text.startswith("---\n") or not closed:
                problem(where, "no front matter between --- lines")
                continue
            fields: dict[str, Any] = {"text": body}
            for line in head.splitlines():
                key, colon, value = line.partition(":")
                if not colon or not key.strip():
                    problem(where, f"front matter line {line!r} is not key: value")
                fields[key.strip()] = value.strip()
            yield where, ".md", fields
        else:
            problem(where, "only .md and .jsonl documents are expected")


def load_sources(name: str, kb: dict[str, Any]) -> set[str]:
    """Check kb.json and return its source ids."""
    if set(kb) != {"name", "description", "as_of", "sources"} or kb["name"] != name:
        problem(f"{name}/kb.json", "needs name (the folder's), description, as_of, sources")
    if not is_date(kb.get("as_of")):
        problem(f"{name}/kb.json", f"as_of {kb.get('as_of')!r} is not YYYY-MM-DD")
    ids = {source.get("id") for source in kb.get("sources", [])}
    if len(ids) != len(kb.get("sources", [])):
        problem(f"{name}/kb.json", "source ids repeat")
    listed: set[str] = set()  # the sources before this one: what it may supersede
    for source in kb.get("sources", []):
        sid, where = source.get("id"), f"{name}/kb.json source {source.get('id')}"
        if not SOURCE_KEYS <= set(source) <= SOURCE_KEYS | {"supersedes"}:
            problem(where, f"has keys {sorted(source)}")
        if source.get("kind") not in KINDS:
            problem(where, f"kind {source.get('kind')!r} is not one of {sorted(KINDS)}")
        if source.get("reviewed_at") is not None and not is_date(source["reviewed_at"]):
            problem(where, "reviewed_at is neither YYYY-MM-DD nor null")
        if "supersedes" in source and source["supersedes"] not in ids - {sid}:
            problem(where, f"supersedes {source['supersedes']!r}, not another source here")
        elif "supersedes" in source and source["supersedes"] not in listed:
            problem(where, f"supersedes {source['supersedes']!r}, listed after it: list it first")
        listed.add(sid)
    return ids


def check_question(at: str, q: dict[str, Any], texts: dict[str, list[str]]) -> None:
    if q["type"] == "unanswerable":
        if q["answers"] != [] or q["source"] is not None:
            problem(at, "an unanswerable question needs answers [] and source null")
        return
    if q["source"] not in texts or not isinstance(q["answers"], list) or not q["answers"]:
        problem(at, f"needs a list of answers and a source of this KB, not {q['source']!r}")
        return
    for answer in q["answers"]:
        if norm(str(answer)) in {"yes", "no"}:
            problem(at, f"answer {answer!r}: give the deciding fact, not yes/no")
        elif not any(norm(str(answer)) in text for text in texts[q["source"]]):
            problem(at, f"answer {answer!r} is not in any document of {q['source']}")
    if q["type"] == "disagreement" and q["weaker"] not in set(texts) - {q["source"]}:
        problem(at, f"weaker {q['weaker']!r} is not another source of this KB")


def check_kb(folder: Path, seen: set[str]) -> Counter[str]:
    """Check one knowledge base; return its counts of documents and of questions per type."""
    name, counts = folder.name, Counter[str]()
    kb = json.loads((folder / "kb.json").read_text(encoding="utf-8"))
    ids = load_sources(name, kb)
    texts: dict[str, list[str]] = {sid: [] for sid in ids}
    counts["documents"] = sum(path.is_file() for path in (folder / "docs").rglob("*"))
    for where, suffix, doc in documents(folder):
        for key in (*NEEDS[suffix], "text"):
            if not doc.get(key):
                problem(where, f"lacks {key}")
        for key in ("published", "verified"):
            if key in doc and not (is_date(doc[key]) and doc[key] <= str(kb.get("as_of"))):
                problem(where, f"{key} {doc[key]!r} is not a date on or before as_of")
        if doc.get("source_id") not in ids:
            problem(where, f"source_id {doc.get('source_id')!r} is not in kb.json")
        else:
            texts[doc["source_id"]].append(norm(f"{doc.get('title', '')}\n{doc.get('text')}"))
    for sid in sorted(sid for sid in ids if not texts[sid]):
        problem(f"{name}/kb.json", f"source {sid} has no documents")
    lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        at = f"{name}/questions.jsonl:{number}"
        try:
            q = json.loads(line)
        except json.JSONDecodeError as error:
            problem(at, f"not JSON ({error})")
            continue
        want = QUESTION_KEYS | ({"weaker"} if q.get("type") == "disagreement" else set())
        if set(q) != want or q["type"] not in TYPES or not str(q["question"]).strip():
            problem(at, f"type {q.get('type')!r} with keys {sorted(q)}, expected {sorted(want)}")
            continue
        counts[q["type"]] += 1
        if q["id"] in seen or not str(q["id"]).startswith(f"{name}-q"):
            problem(at, f"id {q['id']!r} repeats or does not start with {name}-q")
        seen.add(q["id"])
        check_question(at, q, texts)
    return counts


def main() -> int:
    seen: set[str] = set()
    total: Counter[str] = Counter()
    columns = ("documents", "questions", *TYPES)
    print(f"{'knowledge base':32}" + "".join(f"{column:>13}" for column in columns))
    for folder in sorted(path.parent for path in HERE.glob("*/kb.json")):
        try:
            counts = check_kb(folder, seen)
        except (OSError, ValueError) as error:  # unreadable kb.json or questions.jsonl
            problem(folder.name, f"cannot read kb.json or questions.jsonl ({error})")
            continue
        counts["questions"] = sum(counts[kind] for kind in TYPES)
        total.update(counts)
        print(f"{folder.name:32}" + "".join(f"{counts[column]:>13}" for column in columns))
    print(f"{'total':32}" + "".join(f"{total[column]:>13}" for column in columns))
    for line in PROBLEMS:
        print(f"PROBLEM {line}", file=sys.stderr)
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
