"""How long an empty lexical search takes when its word is hidden, or nowhere (issue 44).

A caller granted nothing searches a knowledge base whose restricted documents hold a
marker word: in 1, 100 or 10,000 of their chunks. Its reply is the same as for a word
that occurs nowhere (nothing readable holds either), but the search reads the hidden
word's postings and checks their labels first. This measures by how much, so that
docs/security.md can state the timing channel it leaves. SQLite, the synthetic corpus of
:mod:`postgres` (every document 1,000 chunks; 90% of them labelled ``restricted``).

    .venv/bin/python bench/access_timing.py [--chunks 100000] [--repeats 200]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from postgres import Corpus

from assay import SourceRegistry
from assay.access import Access
from assay.store import open_database

SPREADS = (1, 100, 10_000)  #: how many hidden chunks hold each marker word


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    corpus = Corpus(args.chunks)
    db = open_database(Path(tempfile.mkdtemp()) / "timing.db")
    SourceRegistry(db).add("bench", "official")
    hidden_at = 0
    for number, (uri, [(doc, chunks, vectors)]) in enumerate(corpus.files()):
        if number % 10:  # 9 documents of 10 are restricted; markers go into their chunks
            doc = replace(doc, access=("restricted",))
            marked = []
            for chunk in chunks:
                words = [f"hidden{s}" for s in SPREADS if hidden_at < s]
                marked.append(replace(chunk, text=" ".join([chunk.text, *words])))
                hidden_at += 1
            chunks = marked
        db.knowledge.sync_file(uri, [(doc, chunks, vectors)])
    db.knowledge.prepare_search()
    caller = Access()  # granted nothing: reads the unlabelled tenth
    cases = {f"hidden in {s:,} chunks": f"hidden{s}" for s in SPREADS} | {"nowhere": "nowhere1"}
    print(f"{args.chunks:,} chunks, {args.repeats} searches each, lexical top 50, p50 / p95 ms")
    print("| word | results | p50 ms | p95 ms |\n|---|---|---|---|")
    for name, word in cases.items():
        times, found = [], 0
        for _ in range(args.repeats):
            start = time.perf_counter()
            found = len(db.knowledge.lexical_search(word, 50, caller))
            times.append((time.perf_counter() - start) * 1000)
        p50, p95 = np.percentile(times, [50, 95])
        print(f"| {name} | {found} | {p50:.2f} | {p95:.2f} |")
    db.close()


if __name__ == "__main__":
    main()
