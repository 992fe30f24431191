"""A washing machine's manual of my own, asked through the CLI (issue 41):

- "How do I clean the filter?" was answered "Clean the drain filter once a month.", the
  sentence above the five numbered steps of the same section: the fourth step opens with
  "Unscrew", no verb the answerer knew as an instruction, so it gave way to a sentence
  that did;
- "What does E21 mean?" was kept out below the similarity floor: the list of four error
  codes, read whole, rated 0.38, its E21 entry alone 0.79.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

MANUAL = """---
title: Quenby QW8 user manual (2026 edition)
published: 2026-03-01
---
# Quenby QW8 user manual

## Detergent

Use 1 capful of liquid detergent in the main wash drawer for a normal load.

## Cleaning the filter

Clean the drain filter once a month.

1. Switch off and unplug the machine.
2. Open the small flap at the bottom right of the front.
3. Put a shallow tray under it and pull out the emergency drain hose.
4. Unscrew the filter anticlockwise and rinse it under the tap.
5. Screw the filter back in firmly and close the flap.

## Error codes

- E10: water is not coming in. Check that the tap is on and the inlet hose is not kinked.
- E21: the machine cannot drain. Clean the drain filter and check the drain hose.
- E35: the door is not closed properly. Close it firmly until it clicks.
- E60: the load is unbalanced. Spread the clothes out and start the spin again.
"""


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("washer"),
        {"manual.md": (MANUAL, ["manual-2026", "--kind", "official"])},
    )


def test_how_do_i_quotes_every_step_whatever_verb_opens_one(manual: Path) -> None:
    out = ask(manual, "How do I clean the filter?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    for step in ("1. Switch off and unplug", "4. Unscrew the filter", "5. Screw the filter"):
        assert step in out["answer"], out["answer"]


def test_a_code_of_a_long_list_is_read_by_its_own_entry(manual: Path) -> None:
    out = ask(manual, "What does E21 mean?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "cannot drain" in out["answer"] and "unbalanced" not in out["answer"], out["answer"]
