"""Candidate and weight validation: bad values fail naming field, value and fix."""

from __future__ import annotations

from datetime import date

import pytest

from assay import Candidate, InvalidInputError, Weights
from assay.types import check_unique_ids, parse_date


def make(**overrides: object) -> Candidate:
    fields: dict[str, object] = {
        "id": "c1",
        "text": "some text",
        "similarity": 0.5,
        "source_id": "s",
    }
    fields.update(overrides)
    return Candidate.from_mapping(fields)


def test_similarity_outside_unit_interval_names_field_value_and_fix() -> None:
    with pytest.raises(InvalidInputError) as err:
        make(similarity=1.7)
    message = str(err.value)
    assert "similarity" in message and "1.7" in message and "between 0 and 1" in message


@pytest.mark.parametrize("bad", [-0.01, float("nan"), float("inf"), "0.5", True, None])
def test_similarity_must_be_a_finite_number_in_unit_interval(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="similarity"):
        make(similarity=bad)


@pytest.mark.parametrize("text", ["", "   ", None, 3])
def test_empty_text_is_refused(text: object) -> None:
    with pytest.raises(InvalidInputError, match="text"):
        make(text=text)


def test_unparseable_date_names_field_and_format() -> None:
    with pytest.raises(InvalidInputError) as err:
        make(published="last tuesday")
    assert "published" in str(err.value) and "'last tuesday'" in str(err.value)
    assert "2024-05-01" in str(err.value)


def test_missing_source_is_refused_with_both_choices() -> None:
    with pytest.raises(InvalidInputError, match="source_id or a source_kind"):
        make(source_id=None)


def test_unknown_key_is_refused_and_known_keys_listed() -> None:
    with pytest.raises(InvalidInputError, match="'score' is not a candidate field"):
        make(score=0.3)


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="'c1' is duplicated"):
        check_unique_ids([make(), make()])


@pytest.mark.parametrize("bad", [0, False, "", [], "text"])
def test_metadata_must_be_an_object(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="metadata"):
        make(metadata=bad)


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00-05:00"])
def test_dates_that_overflow_in_utc_are_refused(moment: str) -> None:
    with pytest.raises(InvalidInputError, match="is not a date"):
        make(published=moment)


def test_metadata_must_be_json() -> None:
    with pytest.raises(InvalidInputError, match="metadata"):
        make(metadata={"when": date(2020, 1, 1)})


def test_effective_date_is_the_later_of_published_and_verified() -> None:
    c = make(published="2020-01-01", verified="2024-06-30T23:30:00-02:00")
    assert c.effective_date == date(2024, 7, 1)  # the UTC calendar day
    assert make(published=None).effective_date is None


def test_parse_date_accepts_iso_dates_and_datetimes() -> None:
    assert parse_date("f", "2024-05-01") == date(2024, 5, 1)
    assert parse_date("f", "2024-05-01T10:00:00Z") == date(2024, 5, 1)
    assert parse_date("f", "") is None


def test_weights_must_sum_to_one() -> None:
    with pytest.raises(InvalidInputError, match=r"sum to 1.1, not 1"):
        Weights(0.5, 0.3, 0.3)


def test_weights_must_be_non_negative() -> None:
    with pytest.raises(InvalidInputError, match=r"weights\.source"):
        Weights(0.6, -0.2, 0.6)
