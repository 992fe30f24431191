"""Policies: built-in profiles, user files, selection by name or severity (E2, E6)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from assay import (
    InvalidInputError,
    PolicyBook,
    PolicyError,
    Severity,
    UnknownPolicyError,
    load_policy_file,
)
from assay.cli.policies import to_toml
from assay.hashing import canonical_json, sha256_hex
from assay.policy import builtin_policies, policy_from_mapping


def test_e2_builtin_profiles_carry_the_documented_weights_and_thresholds() -> None:
    book = PolicyBook.load()
    fin, safe = book.get("financial"), book.get("safety_critical")
    assert fin.weights.as_dict() == {"similarity": 0.40, "source": 0.35, "freshness": 0.25}
    assert fin.threshold == 0.75
    assert safe.weights.as_dict() == {"similarity": 0.30, "source": 0.40, "freshness": 0.30}
    assert safe.threshold == 0.80
    assert set(book.names()) == {"informational", "financial", "legal", "safety_critical"}


def test_e6_thresholds_rise_with_severity() -> None:
    book = PolicyBook.load()
    thresholds = [book.for_severity(s.value).threshold for s in Severity]
    assert thresholds == sorted(thresholds)
    assert thresholds[0] < thresholds[-1]


def test_e4_default_decay_rate_and_per_kind_override(tmp_path: Path) -> None:
    data = builtin_policies()["financial"].as_dict()
    data["name"] = "fast_news"
    data["freshness"]["decay_rate_by_kind"] = {"customer": 0.02}
    policy = policy_from_mapping(data)
    assert policy.decay_rate_for("official") == 0.005
    assert policy.decay_rate_for("customer") == 0.02


def test_unknown_policy_lists_the_choices() -> None:
    with pytest.raises(UnknownPolicyError) as err:
        PolicyBook.load().get("finacial")
    assert "'finacial' is unknown; did you mean 'financial'?" in str(err.value)
    assert "financial, informational, legal, safety_critical" in str(err.value)


def test_unknown_severity_lists_the_choices() -> None:
    with pytest.raises(UnknownPolicyError, match="severity='urgent' is unknown"):
        PolicyBook.load().for_severity("urgent")


def test_severity_can_be_mapped_to_another_policy_of_that_severity(tmp_path: Path) -> None:
    data = builtin_policies()["financial"].as_dict() | {"name": "financial_eu", "threshold": 0.8}
    (tmp_path / "eu.toml").write_text(to_toml(data))
    book = PolicyBook.load([tmp_path], severity_policies={"financial": "financial_eu"})
    assert book.for_severity("financial").name == "financial_eu"


def test_severity_cannot_be_mapped_to_a_milder_policy() -> None:
    book = PolicyBook.load(severity_policies={"safety_critical": "informational"})
    with pytest.raises(PolicyError, match="'informational' is written for informational decisions"):
        book.for_severity("safety_critical")


def test_user_policy_file_is_loaded_and_replaces_a_builtin(tmp_path: Path) -> None:
    data = builtin_policies()["financial"].as_dict()
    data["version"] = "2"
    data["threshold"] = 0.7
    (tmp_path / "financial.toml").write_text(to_toml(data))
    book = PolicyBook.load([tmp_path])
    assert book.get("financial").version == "2"
    assert book.get("financial").threshold == 0.7
    assert book.origin("financial").endswith("financial.toml")


def test_exported_toml_round_trips_to_the_same_policy(tmp_path: Path) -> None:
    for policy in builtin_policies().values():
        path = tmp_path / f"{policy.name}.toml"
        path.write_text(to_toml(policy.as_dict()))
        assert load_policy_file(path) == policy


def test_policy_file_with_weights_not_summing_to_one_is_refused(tmp_path: Path) -> None:
    data = builtin_policies()["financial"].as_dict()
    data["weights"]["source"] = 0.5
    path = tmp_path / "bad.toml"
    path.write_text(to_toml(data))
    with pytest.raises(PolicyError, match=r"bad.toml: weights.*sum to 1.15"):
        load_policy_file(path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(threshold=1.5), "threshold=1.5 is outside"),
        (lambda d: d.update(severity="urgent"), "severity='urgent'"),
        (lambda d: d.update(colour="red"), "colour='red' is not a policy setting; remove it"),
        (  # a typo is named with its fix, not only "remove it"
            lambda d: d.update(similarity_flor=0.45),
            "similarity_flor=0.45 is not a policy setting; did you mean 'similarity_floor'\\? "
            "otherwise remove it",
        ),
        (lambda d: d["labels"].update(medium=0.95), "labels.medium=0.95"),
        (lambda d: d["corroboration"].update(min_independent_sources=1), "min_independent"),
        (lambda d: d["sources"]["adjustment_by_kind"].update(customer=2), "customer=2"),
    ],
)
def test_invalid_policy_settings_are_named(edit: object, message: str) -> None:
    data = builtin_policies()["financial"].as_dict()
    edit(data)  # type: ignore[operator]
    with pytest.raises(PolicyError, match=message):
        policy_from_mapping(data, origin="test.toml")


def test_digest_changes_with_any_parameter() -> None:
    a = builtin_policies()["legal"]
    data = a.as_dict()
    data["freshness"]["decay_rate"] = 0.0011
    assert policy_from_mapping(data).digest != a.digest
    # a policy derived with replace() (as a drift alert tightens one) is hashed anew
    tightened = dataclasses.replace(a, threshold=0.91)
    assert tightened.digest == sha256_hex(canonical_json(tightened.as_dict())) != a.digest


def test_missing_policy_dir_is_reported(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="create it or fix ASSAY_POLICY_DIRS"):
        PolicyBook.load([tmp_path / "nope"])


def test_high_stakes_policies_ask_for_the_llm_cascade_and_the_others_keep_their_shape() -> None:
    policies = builtin_policies()
    asking = {name for name, p in policies.items() if p.models.llm_cascade}
    assert asking == {"legal", "safety_critical"}
    assert policies["legal"].as_dict()["models"] == {"llm_cascade": True}
    judged = {name for name, p in policies.items() if p.models.llm_judgment}
    assert judged == {"informational", "financial"}
    for name in judged:
        assert policies[name].as_dict()["models"] == {"llm_cascade": False, "llm_judgment": True}


def test_a_models_setting_that_is_not_a_boolean_is_named() -> None:
    data = builtin_policies()["legal"].as_dict()
    data["models"]["llm_cascade"] = "sometimes"
    with pytest.raises(PolicyError, match="llm_cascade"):
        policy_from_mapping(data, origin="test.toml")
    data["models"] = {"llm_judgment": "yes"}
    with pytest.raises(PolicyError, match="llm_judgment"):
        policy_from_mapping(data, origin="test.toml")
    data["models"] = {"reranker": "big"}
    with pytest.raises(PolicyError, match="reranker"):
        policy_from_mapping(data, origin="test.toml")


def test_judge_correctness_thresholds_are_read_checked_and_written_back(tmp_path: Path) -> None:
    data = builtin_policies()["financial"].as_dict()
    assert data["judge"]["correctness"] == {"publish": 0.7, "caveat": 0.55, "human_review": 0.3}
    data["judge"]["correctness"] = {"publish": 0.9, "caveat": 0.8, "human_review": 0.5}
    (tmp_path / "financial.toml").write_text(to_toml(data))
    assert PolicyBook.load([tmp_path]).get("financial").judge.correctness.caveat == 0.8
    data["judge"]["correctness"] = {"publish": 0.5, "caveat": 0.8, "human_review": 0.1}
    (tmp_path / "financial.toml").write_text(to_toml(data))
    with pytest.raises(PolicyError, match=r"judge\.correctness"):
        PolicyBook.load([tmp_path])
    data["judge"]["correctness"] = {"publish": 0.9, "cavet": 0.8}
    (tmp_path / "financial.toml").write_text(to_toml(data))
    with pytest.raises(PolicyError, match="cavet"):
        PolicyBook.load([tmp_path])


def test_a_severity_abbreviated_is_suggested_in_full() -> None:
    """Issue 43 (second pass): `--severity safety` got no suggestion."""
    from assay.errors import did_you_mean

    assert (
        did_you_mean("safety", ["financial", "safety_critical"])
        == "did you mean 'safety_critical'? "
    )
    assert did_you_mean("saf", ["safeguard", "safety_critical"]) == ""  # two: no guess
