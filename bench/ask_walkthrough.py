"""`ask` on the walkthrough's knowledge base: warm p50 of new questions (issue 41's target).

Issue 41 asks that `ask`, warm, stays at or under 100 ms p50 on the walkthrough's
knowledge base while the answer step grows. `bench/speed.py` measures `ask` on SQuAD's
1,324 chunks; this measures it where the walkthrough asks, on the demo knowledge base of
`examples/kb` (built as `bench/serve.py` builds it, through the CLI). "Warm" is the
engine: its models loaded and the walkthrough's four questions asked once; each question
timed is new to it, so every model runs (nothing comes from the caches). The floor is
the model work of the same questions, timed inside them (`bench/speed.py`'s clock: the
question's encoding, the cross-encoder's runs, the reader's reads).

    python bench/ask_walkthrough.py [--rounds 3]

Prints p50 / p95 of `ask` and of its floor, per round and over all rounds (each round a
fresh copy of the database, the models' caches in memory emptied, so no round finds
another's readings).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np
from cold import forget_models_caches
from serve import QUESTIONS, build_database
from speed import floor_clock

from assay import Assay

TARGET_MS = 100.0
AS_OF = date(2026, 11, 29)  # the walkthrough's day
#: questions a user of the walkthrough's knowledge base asks, none of them the
#: walkthrough's own: answerable, worded otherwise, and not answered by it
NEW_QUESTIONS = [
    "What is the capacity of the HX-40?",
    "What voltage is the HX-40?",
    "Which charger should I use with the HX-40?",
    "How warm can it get before the pack cuts out?",
    "When does the pack reconnect after overheating?",
    "What does a blinking amber light mean?",
    "How should I store the battery over winter?",
    "How often should I top up a stored pack?",
    "Can I throw the HX-40 in the bin?",
    "Where do I recycle an old pack?",
    "Do I need paperwork to fly with the HX-40?",
    "What UN number is the HX-40 shipped under?",
    "What is the emergency phone number?",
    "Can I open the battery case?",
    "What happens if I charge it below freezing?",
    "How do I pair the pack with the app?",
    "Is the HX-40 waterproof?",
    "How much does a replacement HX-40 cost?",
    "Does the HX-40 work with solar panels?",
    "What is the warranty on the HX-40?",
    "Who makes the HX-40?",
    "How many watt-hours does the pack hold?",
    "Can I leave it charging in the car overnight?",
    "What should I do if the pack swells?",
]


def round_figures(db: Path) -> tuple[list[float], list[float]]:
    """``ask`` times and floors (ms) of :data:`NEW_QUESTIONS` on a warm engine over ``db``."""
    totals, floors = [], []
    with Assay(db) as engine:
        for question in QUESTIONS:  # warm: models loaded, the walkthrough asked once
            engine.ask(question, policy="informational", as_of=AS_OF)
        forget_models_caches(engine.reader)  # nothing an earlier round read is kept
        with floor_clock() as clock:
            for question in NEW_QUESTIONS:
                clock.seconds = 0.0
                start = time.perf_counter()
                engine.ask(question, policy="informational", as_of=AS_OF)
                totals.append((time.perf_counter() - start) * 1000)
                floors.append(clock.seconds * 1000)
    return totals, floors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh database copies")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="assay-walkthrough-") as tmp:
        (Path(tmp) / "built").mkdir()
        built, _ = build_database(Path(tmp) / "built")
        everything: list[float] = []
        floor: list[float] = []
        for n in range(1, args.rounds + 1):
            folder = Path(tmp) / f"round-{n}"
            shutil.copytree(built.parent, folder)
            totals, floors = round_figures(folder / built.name)
            everything += totals
            floor += floors
            print(
                f"round {n}: ask p50 {np.percentile(totals, 50):.0f} ms, "
                f"p95 {np.percentile(totals, 95):.0f} ms; floor p50 "
                f"{np.percentile(floors, 50):.0f} ms ({len(totals)} new questions)"
            )
    p50 = float(np.percentile(everything, 50))
    verdict = "PASS" if p50 <= TARGET_MS else "MISS"
    print(
        f"all rounds: ask p50 {p50:.0f} ms, p95 {np.percentile(everything, 95):.0f} ms; "
        f"floor p50 {np.percentile(floor, 50):.0f} ms; target p50 <= {TARGET_MS:.0f} ms: "
        f"{verdict}"
    )


if __name__ == "__main__":
    main()
