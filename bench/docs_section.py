"""Replace one benchmark script's section of docs/benchmarks.md, leaving the others."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs/benchmarks.md"


def write_section(heading: str, section: str, docs: Path = DOCS) -> None:
    """Put ``section`` (which starts with ``heading``) in place of the old one, or append it."""
    text = docs.read_text() if docs.exists() else "# Benchmarks\n"
    if heading not in text:
        docs.write_text(text.rstrip("\n") + "\n\n" + section)
        return
    head, rest = text.split(heading, 1)
    tail = rest.find("\n## ")
    docs.write_text(head + section + ("" if tail < 0 else "\n" + rest[tail + 1 :]))
