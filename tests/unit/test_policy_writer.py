"""Policies written back as TOML read back identical (the basis of calibrated versions)."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from assay.policy import PolicyBook, builtin_policies, policy_from_mapping
from assay.policy_writer import next_version, policy_to_toml, write_policy_version
from assay.routing import Bands


@pytest.mark.parametrize("name", sorted(builtin_policies()))
def test_every_builtin_policy_round_trips(name: str) -> None:
    policy = builtin_policies()[name]
    assert policy_from_mapping(tomllib.loads(policy_to_toml(policy))) == policy


def test_nested_category_bands_and_odd_strings_round_trip() -> None:
    policy = builtin_policies()["financial"]
    rules = replace(policy.routing, categories={"dosage": Bands(0.95, 0.85, 0.5)})
    odd = replace(policy, routing=rules, description='quotes " and \\ and é')
    text = policy_to_toml(odd, header="calibrated\nby a test")
    assert text.startswith("# calibrated\n# by a test\n")
    assert "[routing.categories.dosage]" in text
    assert policy_from_mapping(tomllib.loads(text)) == odd


def test_versions_go_up() -> None:
    assert [next_version(v) for v in ("1", "2", "2.9", "v1")] == ["2", "3", "2.10", "v1.1"]


def test_a_written_version_replaces_the_builtin(tmp_path: Path) -> None:
    policy = builtin_policies()["legal"]
    written, path = write_policy_version(policy, tmp_path, header="test")
    assert path == tmp_path / "legal.toml" and written.version == next_version(policy.version)
    book = PolicyBook.load([tmp_path])
    assert book.get("legal") == written and book.origin("legal") == str(path)
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
