"""Words people clip, and the full words documents write: "bike" for "bicycle".

A customer asks "How much does it cost to take a bike?" of a baggage policy that writes
"Bicycles must be booked at least 48 hours before departure and cost £50 per flight",
and coverage (R3) found no "bike" there, so the question was sent back: "none that
mention bike". A clipped word and its full form name the same thing, so either counts as
the other. Only clippings whose full word has no common other sense are listed ("app"
would find a job "application", "plane" a flat surface). A few everyday words stand for
the word a document writes in the same way ("house" for "home", "kilos" for "kg").
"""

from __future__ import annotations

__all__ = ["CLIPPINGS", "EVERYDAY", "other_forms"]

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
#: everyday words for one thing, beside the words documents write: a unit's clipping and
#: its symbol ("How many kilos of wool can I wash?" of "Maximum load: 2 kg", "amps" of
#: "4.2 amperes"), "moving house" of "Tell us before you move home", "Who should I
#: ring?" of "Call us on ..."
EVERYDAY: tuple[frozenset[str], ...] = (
    frozenset({"kilo", "kilogram", "kg"}),
    frozenset({"amp", "ampere"}),
    frozenset({"house", "home"}),
    frozenset({"ring", "call"}),
    frozenset({"jab", "vaccination", "vaccine"}),
    frozenset({"bag", "luggage", "baggage"}),
    frozenset({"aircon", "air conditioning"}),  # every word of a form written apart counts
)
_FORMS: dict[str, set[str]] = {}  # each full word with its clippings
for _short, _full in CLIPPINGS.items():
    _FORMS.setdefault(_full, set()).add(_short)


def other_forms(word: str, *, everyday: bool = True) -> set[str]:
    """The clipped or full forms of ``word`` (lower case, singular or plural): "bikes"
    gives ``{"bicycle"}``, "bicycle" gives ``{"bike"}``, and its everyday equivalents
    (:data:`EVERYDAY`; ``everyday=False``: none, as earlier releases read): "kilos" gives
    ``{"kilogram", "kg"}``; an unlisted word none."""
    word = word.lower()
    for form in (word, word[:-1] if word.endswith("s") else word):
        found = {CLIPPINGS[form]} if form in CLIPPINGS else _FORMS.get(form, set()) - {form}
        if everyday:
            found |= {w for group in EVERYDAY if form in group for w in group} - {form}
        if found:
            return found
    return set()
