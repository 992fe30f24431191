"""Words people clip, and the full words documents write: "bike" for "bicycle".

A customer asks "How much does it cost to take a bike?" of a baggage policy that writes
"Bicycles must be booked at least 48 hours before departure and cost £50 per flight",
and coverage (R3) found no "bike" there, so the question was sent back: "none that
mention bike". A clipped word and its full form name the same thing, so either counts as
the other. Only clippings whose full word has no common other sense are listed ("app"
would find a job "application", "plane" a flat surface).
"""

from __future__ import annotations

__all__ = ["CLIPPINGS", "other_forms"]

#: a clipped word and its full form (either may be asked, either written)
CLIPPINGS: dict[str, str] = {
    "bike": "bicycle",
    "phone": "telephone",
    "fridge": "refrigerator",
    "telly": "television",
    "tv": "television",
    "photo": "photograph",
    "exam": "examination",
    "lab": "laboratory",
    "flu": "influenza",
    "info": "information",
    "vet": "veterinarian",
    "maths": "mathematics",
    "uni": "university",
    "mic": "microphone",
    "specs": "specifications",
}
_FULL: dict[str, set[str]] = {}
for _short, _full in CLIPPINGS.items():
    _FULL.setdefault(_full, set()).add(_short)


def other_forms(word: str) -> set[str]:
    """The clipped or full forms of ``word`` (lower case, singular or plural): "bikes"
    gives ``{"bicycle"}``, "bicycle" gives ``{"bike"}``; an unlisted word none."""
    word = word.lower()
    for form in (word, word[:-1] if word.endswith("s") else word):
        if form in CLIPPINGS:
            return {CLIPPINGS[form]}
        if form in _FULL:
            return set(_FULL[form])
    return set()
