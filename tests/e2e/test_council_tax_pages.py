"""A district council's tax pages of my own, asked through the CLI (issue 41):

- "How much did council tax go up this year?" was drafted as "£2,208.09" from the band D
  row of the charges table, beside "The Band D charge rose by 4.99% on last year": how
  much something went up asks for the rise, not for the figure it rose to;
- "Which days can my Direct Debit come out?" was withheld: the judge found no date in
  "on the 1st, 8th, 15th or 22nd of the month", and once found, the reader's "22nd of
  the month" led, one of the four days.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

CHARGES = """---
title: Council tax charges 2026/27
published: 2026-10-09
---
# Council tax charges for 2026/27

These charges apply from 1 April 2026 to 31 March 2027.
The Band D charge rose by 4.99% on last year.

| Band | Property value (1991) | Yearly charge |
|---|---|---|
| A | up to £40,000 | £1,472.06 |
| B | £40,001 to £52,000 | £1,717.40 |
| C | £52,001 to £68,000 | £1,962.74 |
| D | £68,001 to £88,000 | £2,208.09 |
"""

PAYING = """---
title: Paying your council tax
published: 2026-10-14
---
# Paying your council tax

Bills are sent out in March.
You pay in 10 monthly instalments from April to January,
or you can ask to pay in 12 instalments from April to March.

## Direct Debit

Direct Debit payments can be taken on the 1st, 8th, 15th or 22nd of the month.
Set it up online or by phoning 01632 960 310.
"""


@pytest.fixture(scope="module")
def council(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("council"),
        {
            "charges.md": (CHARGES, ["charges-2026", "--kind", "official"]),
            "paying.md": (PAYING, ["paying", "--kind", "official"]),
        },
    )


def test_how_much_it_went_up_is_answered_by_the_rise(council: Path) -> None:
    out = ask(council, "How much did council tax go up this year?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "4.99%" in out["answer"] and "£2,208.09" not in out["answer"], out["answer"]


def test_days_of_the_month_answer_which_days_every_one_leading(council: Path) -> None:
    out = ask(council, "Which days can my Direct Debit come out?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("1st, 8th, 15th or 22nd of the month"), out["answer"]
