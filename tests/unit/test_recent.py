"""A model's recent results: the least recently used goes first."""

from __future__ import annotations

from assay.models.recent import Recent


def test_the_least_recently_used_result_goes_first() -> None:
    recent: Recent[str, int] = Recent(2)
    recent.keep({"a": 1, "b": 2})
    assert recent.found(["a", "z"]) == {"a": 1}  # "a" is now the newest
    recent.keep({"c": 3})
    assert recent.found(["a", "b", "c"]) == {"a": 1, "c": 3}
    recent.clear()
    assert recent.found(["a", "c"]) == {}
