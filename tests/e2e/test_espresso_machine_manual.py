"""An espresso machine's data sheet of my own, asked through the CLI (issue 41): "How heavy
is it?" was asked back ("Could you say more precisely what you would like to know?")
because no passage writes "heavy", though the relevance model rates the data sheet's
"Weight: 4.6 kg" row 0.73: a passage rated as answering answers in other words
(``routing.clarify_unless_relevance``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

SPECS = """---
title: Pintail Duo technical data
published: 2026-03-10
---
# Pintail Duo: technical data

| Item | Value |
|---|---|
| Pump pressure | 15 bar |
| Power | 1,350 W |
| Water tank | 1.4 litres |
| Weight | 4.6 kg |
| Dimensions (W x D x H) | 22 x 31 x 30 cm |
| Cable length | 0.9 m |
"""

MANUAL = """---
title: Pintail Duo user manual
published: 2026-03-10
---
# Pintail Duo user manual

## Descaling

Descale the machine every 2 months, or every month if you live in a hard water area.
A descaling cycle takes about 25 minutes.

## Auto off

To save energy, the machine switches itself off after 20 minutes without use.
"""


@pytest.fixture(scope="module")
def espresso(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("espresso"),
        {
            "specs.md": (SPECS, ["specs", "--kind", "official"]),
            "manual.md": (MANUAL, ["manual", "--kind", "official"]),
        },
    )


def test_a_row_rated_as_answering_answers_a_question_in_other_words(espresso: Path) -> None:
    out = ask(espresso, "How heavy is it?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "4.6 kg" in out["answer"], out["answer"]


def test_a_question_the_documents_do_not_answer_is_still_declined(espresso: Path) -> None:
    out = ask(espresso, "Does it take ESE pods?", "--policy", "informational")
    assert out["status"] != "answered", out["answer"]
