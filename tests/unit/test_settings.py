"""Settings precedence: arguments > ASSAY_* environment > TOML file > defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay import InvalidInputError, load_settings


def test_defaults() -> None:
    s = load_settings()
    assert s.db == Path("assay.db") and s.default_policy == "informational" and s.policy_dirs == []


def test_precedence_file_then_environment_then_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "assay.toml").write_text('db = "from-file.db"\ndefault_policy = "legal"\n')
    assert load_settings().db == Path("from-file.db")
    monkeypatch.setenv("ASSAY_DB", "from-env.db")
    s = load_settings()
    assert s.db == Path("from-env.db") and s.default_policy == "legal"
    assert load_settings(db="from-arg.db").db == Path("from-arg.db")


def test_policy_dirs_from_environment_are_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_POLICY_DIRS", "a:b")
    assert load_settings().policy_dirs == [Path("a"), Path("b")]


def test_explicit_config_file_must_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_CONFIG", "missing.toml")
    with pytest.raises(InvalidInputError, match=r"ASSAY_CONFIG='missing\.toml'"):
        load_settings()


def test_unknown_setting_in_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "assay.toml").write_text('colour = "red"\n')
    with pytest.raises(InvalidInputError, match="setting colour"):
        load_settings()
