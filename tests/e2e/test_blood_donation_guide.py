"""A blood service's donor guide of my own, asked through the CLI (issue 41): "I'm 68,
can I still give blood?" was answered "If you are over 70, you can keep donating if you
have given blood in the last 2 years", a case the asker is not in, beside "You can give
blood if you are aged 17 to 70", the rule whose ages hold 68.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

GUIDE = """---
title: Who can give blood (2026)
published: 2026-10-15
---
# Who can give blood

You can give blood if you are aged 17 to 70 and weigh at least 50 kg.
If you are over 70, you can keep donating if you have given blood in the last 2 years.

## Tattoos and piercings

If you have had a tattoo or a piercing, wait 4 months before you donate.
"""


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("donors"),
        {"guide.md": (GUIDE, ["eligibility-2026", "--kind", "official"])},
    )


def test_the_rule_whose_ages_hold_the_asker_answers(guide: Path) -> None:
    out = ask(guide, "I'm 68, can I still give blood?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "aged 17 to 70" in out["answer"] and "over 70" not in out["answer"], out["answer"]
