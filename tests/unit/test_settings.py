"""Settings precedence: arguments > ASSAY_* environment > TOML file > defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay import InvalidInputError, load_settings
from assay.settings import Settings


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


def test_every_assay_variable_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variables once read ad hoc (the LLM endpoint, support labels, debug, the data
    folder) are fields of Settings, read in one place."""
    monkeypatch.setenv("ASSAY_LLM_URL", " http://127.0.0.1:9/v1 ")
    monkeypatch.setenv("ASSAY_LLM_TIMEOUT", "7.5")
    monkeypatch.setenv("ASSAY_SUPPORT_LABELS", "unsupported,supported")
    monkeypatch.setenv("ASSAY_DEBUG", "1")
    monkeypatch.setenv("ASSAY_DATA", "datasets")
    monkeypatch.setenv("ASSAY_SERVE_SESSION_HOURS", "2")
    s = load_settings()
    assert s.serve.session_hours == 2.0 and s.serve.secure_cookies is False
    assert (s.llm.url, s.llm.timeout, s.llm.configured) == ("http://127.0.0.1:9/v1", 7.5, True)
    assert s.support_labels == "unsupported,supported" and s.debug
    assert s.data == Path("datasets")


def test_the_llm_key_never_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ASSAY_LLM_API_KEY", "sk-very-secret")
    s = load_settings()
    assert s.llm.api_key is not None and s.llm.api_key.get_secret_value() == "sk-very-secret"
    for shown in (repr(s), str(s), s.model_dump_json(), repr(s.llm)):
        assert "sk-very-secret" not in shown


def test_the_llm_endpoint_is_refused_in_the_file(tmp_path: Path) -> None:
    """A key written into assay.toml would end up in version control: refuse the table."""
    (tmp_path / "assay.toml").write_text('[llm]\nurl = "http://h/v1"\napi_key = "sk-1"\n')
    with pytest.raises(InvalidInputError, match=r"remove the \[llm\] table"):
        load_settings()


def test_serve_options_are_refused_in_the_file(tmp_path: Path) -> None:
    (tmp_path / "assay.toml").write_text("[serve]\nsession_hours = 2\n")
    with pytest.raises(InvalidInputError, match=r"remove the \[serve\] table"):
        load_settings()


def test_an_empty_variable_is_unset_and_a_bare_name_is_not_a_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSAY_DEBUG", "")
    monkeypatch.setenv("DATA", "/elsewhere")  # only ASSAY_* variables are settings
    s = load_settings()
    assert s.debug is False and s.data == Path("../shared/data")


def test_a_variable_that_is_not_json_is_named_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_SEVERITY_POLICIES", "high=financial")
    with pytest.raises(InvalidInputError, match=r"ASSAY_SEVERITY_POLICIES='high=financial'.*JSON"):
        load_settings()


def test_a_higher_source_replaces_a_table_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "assay.toml").write_text('[severity_policies]\nhigh = "financial"\n')
    assert load_settings().severity_policies == {"high": "financial"}
    monkeypatch.setenv("ASSAY_SEVERITY_POLICIES", '{"low": "informational"}')
    assert load_settings().severity_policies == {"low": "informational"}


def test_broken_toml_is_named_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "assay.toml").write_text('db = "unterminated\n')
    with pytest.raises(InvalidInputError, match=r"config file='assay\.toml'.*TOML syntax"):
        load_settings()


def test_variables_match_in_any_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("assay_default_policy", "legal")
    assert load_settings().default_policy == "legal"


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "assay.toml"


def test_the_example_config_names_every_setting_and_loads_uncommented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    settings = [line.removeprefix("# ") for line in lines if re.match(r"# [a-z_]+ = ", line)]
    names = {line.split(" = ")[0] for line in settings}
    assert names == set(Settings.model_fields) - {"serve", "llm"}
    config = tmp_path / "assay.toml"
    config.write_text("\n".join(settings) + "\n", encoding="utf-8")
    monkeypatch.setenv("ASSAY_CONFIG", str(config))
    assert load_settings().default_policy == "informational"


def test_a_misspelt_setting_names_the_one_meant_and_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "assay.toml"
    config.write_text('default_polcy = "financial"\n', encoding="utf-8")
    monkeypatch.setenv("ASSAY_CONFIG", str(config))
    with pytest.raises(InvalidInputError) as error:
        load_settings()
    message = str(error.value)
    assert "default_polcy" in message and "did you mean 'default_policy'" in message
    assert str(config) in message and "examples/assay.toml" in message
