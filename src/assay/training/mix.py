"""Which data the shipped cross-encoder learns from, and which it never sees.

The cross-encoder is trained once on a mix of commercially usable sets (their groups
outside the held-out 20%, :func:`~assay.training.pairsets.in_test_split`) and is
measured on the rest: sets held aside whole (:data:`HELD_ASIDE`: whole domains such as
finance, news summaries and fact-checked dialogue, plus every non-commercial or
research-only set) and the held-out groups of the sets in the mix. A pair whose
passage or claim also occurs in a measured set is dropped from the mix
(:func:`~assay.training.pairsets.dedupe_against`).
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from assay.errors import InvalidInputError
from assay.training.answerability_sets import ANSWERABILITY_SETS
from assay.training.pairsets import DatasetInfo, LabeledPair, cap, dedupe_against, in_test_split
from assay.training.qualifier_swaps import qualifier_swaps
from assay.training.stress import stress_pairs
from assay.training.support_sets import SUPPORT_SETS

__all__ = [
    "ALL_SETS", "HELD_ASIDE", "RECIPES", "SWAP_SOURCES", "TRAINING_CAPS", "evaluation_sets",
    "training_mix",
]  # fmt: skip

ALL_SETS: dict[str, DatasetInfo] = {**ANSWERABILITY_SETS, **SUPPORT_SETS}

#: pairs drawn (by whole groups) from each set's training part
TRAINING_CAPS: dict[str, int] = {
    "squad_v2": 6000,
    "boolq": 3000,
    "privacy_qa": 3000,
    "policyqa": 3000,
    "pubmedqa": 1400,
    "covid_qa": 2000,
    "halueval": 3000,
    "scifact": 1500,
    "contract_nli": 1700,
    "faithdial": 1800,
    "q2": 500,
    "stress:squad_v2": 4000,
}

#: commercially usable sets kept out of fitting entirely, so that whole domains are
#: measured on data the model never saw (the non-commercial sets are never trained on)
HELD_ASIDE = frozenset(
    {"xquad", "contract_qa", "tatqa", "xsumfaith", "factcc", "summeval", "dialfact"}
)


#: answerability sets made into qualifier-swap stress sets (:mod:`.qualifier_swaps`): those
#: whose questions name years, quarters, months, genders and names often enough
SWAP_SOURCES = ("squad_v2", "xquad", "tatqa", "covid_qa")

#: the mixes: "1" is the shipped cross-encoder 1.1.0's; "2" adds the stress kinds that came
#: after it and qualifier swaps made from the training groups of :data:`SWAP_TRAINING`. A
#: candidate trained on "2" read the swaps far better and users' documents worse, so it did
#: not ship (docs/benchmarks.md, "Cross-encoder candidates"). "3" is "2" taught by the
#: local LLM: the fitting suite's questions against their nearest chunks join the mix, and
#: the pairs of the sets where the teacher ranks better carry its soft targets
#: (:mod:`assay.training.distill`)
RECIPES = ("1", "2", "3")

#: stress pairs the cross-encoder 1.1.0 was trained without (recipe "1")
_NEWER_STRESS_KINDS = frozenset({"negated_claim", "removed"})

#: qualifier-swap pairs drawn from the training groups of the sets in the mix (recipe "2")
SWAP_TRAINING: dict[str, int] = {"squad_v2": 3000, "covid_qa": 1000}


def _load_stress(source: str, data: Path, more: Path) -> list[LabeledPair]:
    """Stress pairs generated from the span-QA set ``source``."""
    files = {
        "squad_v2": data / "squad_v2_dev" / "dev-v2.0.reconstructed.json",
        "policyqa": more / "policyqa" / "test.json",
        "covid_qa": more / "covid_qa_prelim" / "200423_covidQA.json",
        "xquad": more / "xquad_en" / "xquad.en.json",
    }
    return stress_pairs(files[source], source)


def _held_out(name: str, pairs: list[LabeledPair]) -> list[LabeledPair]:
    return [p for p in pairs if in_test_split(name, p.group)]


def _whole(name: str) -> bool:
    info = ALL_SETS.get(name)
    return name in HELD_ASIDE or (
        info is not None and (not info.commercial or name not in TRAINING_CAPS)
    )


def evaluation_sets(data: Path, more: Path) -> dict[str, list[LabeledPair]]:
    """Every measured set: whole sets held aside, and the held-out groups of the rest.

    Stress sets are made from the held-out articles, policies and papers of SQuAD 2.0,
    PolicyQA and COVID-QA, and from all of XQuAD; qualifier-swap sets (``swap:``) from
    the measured part of each of :data:`SWAP_SOURCES`.
    """
    out: dict[str, list[LabeledPair]] = {}
    for name, info in ALL_SETS.items():
        pairs = info.loader(data, more)
        out[name] = pairs if _whole(name) else _held_out(name, pairs)
    for source in SWAP_SOURCES:
        out[f"swap:{source}"] = qualifier_swaps(out[source], source)
    for source in ("squad_v2", "xquad", "policyqa", "covid_qa"):
        pairs = _load_stress(source, data, more)
        out[f"stress:{source}"] = pairs if _whole(source) else _held_out(source, pairs)
    return out


def training_mix(
    data: Path, more: Path, *, seed: int = 13, recipe: str = RECIPES[0]
) -> list[LabeledPair]:
    """The pairs the cross-encoder is trained on under ``recipe`` (module docstring)."""
    if recipe not in RECIPES:
        raise InvalidInputError("recipe", recipe, f"use one of {', '.join(RECIPES)}")
    aside = [p for name, info in ALL_SETS.items() if _whole(name) for p in info.loader(data, more)]
    mix: list[LabeledPair] = []
    for name, limit in TRAINING_CAPS.items():
        source = name.removeprefix("stress:")
        if name.startswith("stress:"):
            pairs = _load_stress(source, data, more)
            if recipe == "1":
                pairs = [p for p in pairs if p.kind not in _NEWER_STRESS_KINDS]
        else:
            info = ALL_SETS[name]
            if not info.commercial or name in HELD_ASIDE:
                raise ValueError(f"{name} may not be in the training mix")
            pairs = info.loader(data, more)
        train = [p for p in pairs if not in_test_split(source, p.group)]
        if name == "halueval":  # right answers are short, hallucinated long: keep short ones
            train = [p for p in train if p.kind == "short"]
        mix.extend(cap(train, limit, seed=seed))
        if recipe != "1" and name in SWAP_TRAINING:
            swaps = qualifier_swaps(train, name, seed=seed)
            mix.extend(cap(swaps, SWAP_TRAINING[name], seed=seed))
    if recipe == "3":
        mix.extend(_users_documents())
    mix = dedupe_against(mix, aside)
    mix += off_topic(mix, seed=seed)
    if recipe == "3":
        from assay.training.distill import beliefs, with_targets  # reads the teacher's labels

        mix = with_targets(mix, beliefs())
    return mix


def _users_documents() -> list[LabeledPair]:
    """The fitting suite's questions against their nearest chunks (it builds each of its
    knowledge bases, so it is read only for the recipe that needs it)."""
    from assay.training.ordinary_pairs import ORDINARY_SUITES, ordinary_pairs

    return ordinary_pairs("ordinary_fit", ORDINARY_SUITES["ordinary_fit"])


def off_topic(mix: list[LabeledPair], *, share: float = 0.08, seed: int = 13) -> list[LabeledPair]:
    """Pairs of a question or claim with another set's passage: easy negatives, without
    which a model trained on hard ones alone scores unrelated text arbitrarily."""
    rng = random.Random(seed)
    out = []
    for pair in rng.sample(mix, int(len(mix) * share)):
        other = rng.choice(mix)
        if other.dataset == pair.dataset:
            continue
        label = "irrelevant" if pair.task == "relevance" else "unsupported"
        out.append(replace(pair, second=other.second, label=label, kind="off_topic"))
    return out
