"""A combi boiler's user guide, warranty and care plans of my own, asked through the CLI
(issue 41), as a homeowner asks them:

- "What does F22 mean?" was kept out below the similarity floor: the relevance model
  reads the guide's "- F22: the water pressure is too low" at 0.35 (the same words as a
  sentence, "F22 means ...", at 0.78);
- "How do I top up the boiler pressure?" quoted one step of four;
- "The pipe outside is frozen ..., what do I do?" quoted the sentence before the
  instruction ("Pour warm, not boiling, water ..." was not read as one);
- "Does Care Basic include the yearly service?" was refused as stated "only for another
  rate than asked" beside the row "Monthly price: £9, Annual service: Not included".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

GUIDE = """---
title: Pelton C-series user guide (2026)
published: 2026-03-15
---
# Pelton C24 and C30 combi boilers: user guide

## Water pressure

With the heating off and the system cold, the pressure gauge on the front panel should
read between 1 and 1.5 bar. It rises a little when the heating runs.

### Topping up the pressure

1. Turn the boiler off at the switch and let the system cool.
2. Open both valves on the filling loop under the boiler (a quarter turn each).
3. Watch the gauge and close both valves as soon as it reaches 1.5 bar.
4. Turn the boiler back on.

If you have to top up more than once a month, there is a leak: call an engineer.

## Fault codes

The display shows a code when the boiler locks out.

- F22: the water pressure is too low. Top up the pressure (see above), then press reset.
- F28: the burner did not light. Check that the gas is on at the meter and press reset.
- F75: the pump cannot detect a change of pressure. Call an engineer.
- EA: the condensate pipe is blocked, usually frozen in cold weather.

## Frozen condensate pipe

In freezing weather the plastic pipe that leaves the boiler through the outside wall can
freeze and the boiler shows EA. Pour warm, not boiling, water along the outside section of
the pipe until it thaws, then reset the boiler.

## Servicing

Have the boiler serviced every 12 months by a Gas Safe registered engineer. Keep the
service record: the warranty depends on it.
"""

WARRANTY = """---
title: Pelton boiler warranty
published: 2026-02-01
---
# Pelton boiler warranty

## How long it lasts

Pelton C24 and C30 boilers installed from 1 January 2026 carry a 7-year parts and labour
warranty, provided the boiler is registered with us within 30 days of installation and
serviced every 12 months.

## Making a claim

Call 0800 555 0142 with the serial number and the date of the last service.
"""

CARE_PLANS = """---
title: Pelton Boiler Care plans
published: 2026-06-01
---
# Pelton Boiler Care

| Plan | Monthly price | Annual service | Callouts |
|---|---|---|---|
| Care Basic | £9 | Not included | Unlimited, parts included |
| Care Plus | £16 | Included | Unlimited, parts and radiators included |
"""

FORUM = """---
title: HomeFix DIY forum
published: 2026-01-08
---
# F22 on my Pelton

F22 is the ignition lockout, just hold reset and it'll fire up again.
"""


@pytest.fixture(scope="module")
def boiler(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("boiler"),
        {
            "guide.md": (GUIDE, ["guide-2026", "--kind", "official"]),
            "warranty.md": (WARRANTY, ["warranty", "--kind", "official"]),
            "care-plans.md": (CARE_PLANS, ["care-plans", "--kind", "official"]),
            "forum.md": (FORUM, ["diy-forum", "--kind", "unverified"]),
        },
    )


def test_a_fault_code_is_read_from_its_glossary_entry(boiler: Path) -> None:
    out = ask(boiler, "What does F22 mean?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "F22: the water pressure is too low" in out["answer"], out["answer"]
    assert "ignition" not in out["answer"], out["answer"]


def test_how_do_i_quotes_every_numbered_step(boiler: Path) -> None:
    out = ask(boiler, "How do I top up the boiler pressure?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    for step in ("1. Turn the boiler off", "2. Open both valves", "4. Turn the boiler back on"):
        assert step in out["answer"], out["answer"]


def test_what_do_i_do_quotes_the_instruction(boiler: Path) -> None:
    question = "The pipe outside is frozen and the boiler has stopped, what do I do?"
    out = ask(boiler, question, "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("Pour warm, not boiling, water"), out["answer"]


def test_an_annual_column_is_the_yearly_service_asked_about(boiler: Path) -> None:
    out = ask(boiler, "Does Care Basic include the yearly service?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "Annual service: Not included" in out["answer"], out["answer"]
