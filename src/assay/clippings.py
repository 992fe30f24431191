"""Words people clip, and the full words documents write: "bike" for "bicycle".

A customer asks "How much does it cost to take a bike?" of a baggage policy that writes
"Bicycles must be booked at least 48 hours before departure and cost £50 per flight",
and coverage (R3) found no "bike" there, so the question was sent back: "none that
mention bike". A clipped word and its full form name the same thing, so either counts as
the other. Only clippings whose full word has no common other sense are listed ("app"
would find a job "application", "plane" a flat surface).
"""

from __future__ import annotations

__all__ = ["CLIPPINGS", "UNITS", "other_forms"]

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
#: a unit's clipping and its symbol: "How many kilos of wool can I wash?" of "2 kg"
UNITS: dict[str, str] = {"kilo": "kilogram", "kg": "kilogram"}


def _forms(clippings: dict[str, str]) -> dict[str, set[str]]:
    """Each full word of ``clippings`` with all its forms."""
    forms: dict[str, set[str]] = {}
    for short, full in clippings.items():
        forms.setdefault(full, {full}).add(short)
    return forms


_FORMS = _forms(CLIPPINGS)
_WITH_UNITS = _forms(CLIPPINGS | UNITS)


def other_forms(word: str, *, units: bool = True) -> set[str]:
    """The clipped or full forms of ``word`` (lower case, singular or plural): "bikes"
    gives ``{"bicycle"}``, "bicycle" gives ``{"bike"}``, "kilos" ``{"kilogram", "kg"}``
    (``units=False``: no unit's forms, as earlier releases read); an unlisted word none."""
    word = word.lower()
    clippings, forms = (CLIPPINGS | UNITS, _WITH_UNITS) if units else (CLIPPINGS, _FORMS)
    for form in (word, word[:-1] if word.endswith("s") else word):
        full = clippings.get(form, form)
        if full in forms:
            return forms[full] - {form}
    return set()
