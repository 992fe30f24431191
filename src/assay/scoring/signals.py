"""Set-level confidence (R1-R5): how strong is the *retrieved set*, not just each item?

Per-item confidence says whether a passage may be used; the set signals say whether
the passages that may be used are enough to answer. Over the scored items of one
request, those the gate admitted and those it excluded:

* ``top``           the best *admitted* item's confidence; 0 when nothing was admitted (R1);
* ``gap``           that best confidence minus the second best of all retrieved items,
                    times ``gap_scale`` and capped at 1 (a margin of 0.2 already marks a
                    clear winner); a lone item's margin is its own confidence (R1);
* ``concentration`` share of the ``top_n`` most confident retrieved items that the gate
                    admitted: one usable passage padded with noise scores low (R1);
* ``coherence``     mean pairwise cosine of the admitted chunks' embeddings, clipped to
                    [0, 1]; also per source where the sources differ (R2). One chunk has
                    nothing to agree or disagree with: neutral 0.5; none gives 0;
* ``coverage``      share of the query's subject terms (stemmed; the words that frame a
                    question, "how long", "allowed", "it's", left out) found in the
                    admitted chunks and their title paths (R3); a query without
                    meaningful terms covers nothing.

The composite is the weighted sum with validated weights (R5). A model judgment (R4),
when a later layer provides one, either caps the composite (``min``) or blends into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from assay.clippings import other_forms
from assay.errors import InvalidInputError
from assay.text import (
    ACRONYM,
    content_terms,
    countries_grouped,
    day_kinds,
    holidays_dated,
    measured_figures,
    spelled_out,
    stem,
    subject_terms,
    titled,
)
from assay.times_of_day import parts_timed
from assay.types import Evidence, check_unit_interval, round_score

if TYPE_CHECKING:  # numpy loads where the signals are computed, not where policies are read
    import numpy as np
    from numpy.typing import NDArray

JudgmentMode = Literal["cap", "blend"]
SIGNAL_NAMES = ("top", "gap", "concentration", "coherence", "coverage")
SINGLE_CHUNK_COHERENCE = 0.5


@dataclass(frozen=True, slots=True)
class SignalWeights:
    """Weights of the five set signals: each in [0, 1], summing to 1 (R5)."""

    top: float = 0.40
    gap: float = 0.15
    concentration: float = 0.15
    coherence: float = 0.10
    coverage: float = 0.20

    def __post_init__(self) -> None:
        for name in SIGNAL_NAMES:
            check_unit_interval(f"signals.{name}", getattr(self, name))
        total = sum(self.as_dict().values())
        if abs(total - 1.0) > 1e-9:
            raise InvalidInputError(
                "signal weights",
                self.as_dict(),
                "make the five weights sum to 1",
                problem=f"sum to {total:g}",
            )

    def as_dict(self) -> dict[str, float]:
        """The weights keyed by signal name."""
        return {name: getattr(self, name) for name in SIGNAL_NAMES}


@dataclass(frozen=True, slots=True)
class SignalSettings:
    """How a policy computes set-level confidence."""

    weights: SignalWeights = field(default_factory=SignalWeights)
    top_n: int = 3
    gap_scale: float = 5.0
    judgment_mode: JudgmentMode = "cap"
    judgment_weight: float = 0.5

    def as_dict(self) -> dict[str, Any]:
        """The settings in their TOML shape."""
        return self.weights.as_dict() | {
            "top_n": self.top_n,
            "gap_scale": self.gap_scale,
            "judgment_mode": self.judgment_mode,
            "judgment_weight": self.judgment_weight,
        }


@dataclass(frozen=True, slots=True)
class SetSignals:
    """The set-level signals of one request and their composite."""

    top: float
    gap: float
    concentration: float
    coherence: float
    coverage: float
    composite: float
    coherence_by_source: dict[str, float] = field(default_factory=dict)
    covered_terms: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    judgment: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (as stored in the audit row)."""
        return {
            "top": self.top,
            "gap": self.gap,
            "concentration": self.concentration,
            "coherence": self.coherence,
            "coverage": self.coverage,
            "composite": self.composite,
            "coherence_by_source": self.coherence_by_source,
            "covered_terms": list(self.covered_terms),
            "missing_terms": list(self.missing_terms),
            "judgment": self.judgment,
        }


def top_gap(evidence: Sequence[Evidence]) -> tuple[float, float]:
    """The best admitted confidence and its margin over the second best item (R1)."""
    usable = [e.confidence for e in evidence if e.admitted]
    if not usable:
        return 0.0, 0.0
    top = max(usable)
    ordered = sorted((e.confidence for e in evidence), reverse=True)
    second = ordered[1] if len(ordered) > 1 else 0.0
    return top, max(0.0, top - second)


def _source(item: Evidence) -> str:
    return item.basis.source_id or f"kind:{item.basis.source_kind}"


def concentration_score(
    confidences: Sequence[float], admitted: Sequence[bool], top_n: int
) -> float:
    """Share of the ``top_n`` most confident items that were admitted (R1)."""
    ranked = sorted(zip(confidences, admitted, strict=True), key=lambda pair: -pair[0])[:top_n]
    return sum(ok for _, ok in ranked) / len(ranked) if ranked else 0.0


def coherence_score(
    vectors: NDArray[np.float32], sources: Sequence[str]
) -> tuple[float, dict[str, float]]:
    """Mean pairwise cosine of L2-normalised ``vectors`` (R2), overall and per source.

    Per-source values are given only when the chunks come from more than one source
    and that source has at least two chunks.
    """
    import numpy as np

    n = len(vectors)
    if n == 0:
        return 0.0, {}
    if n == 1:
        return SINGLE_CHUNK_COHERENCE, {}
    sims = np.clip(vectors @ vectors.T, 0.0, 1.0)
    upper = np.triu_indices(n, k=1)
    overall = float(sims[upper].mean())
    by_source: dict[str, float] = {}
    if len(set(sources)) > 1:
        for source in sorted(set(sources)):
            idx = [i for i, s in enumerate(sources) if s == source]
            if len(idx) > 1:
                sub = sims[np.ix_(idx, idx)]
                by_source[source] = round_score(float(sub[np.triu_indices(len(idx), k=1)].mean()))
    return overall, by_source


def coverage_score(
    query: str,
    texts: Sequence[str],
    *,
    subject_only: bool = True,
    own_figures: bool = False,
    acronyms: bool = True,
    days: bool = True,
    holidays: bool = True,
    places: bool = True,
    times: bool = True,
    compounds: bool = True,
    clippings: bool = True,
    everyday: bool = True,
    askers_words: bool = True,
    carrying_words: bool = True,
    keep: frozenset[str] = frozenset(),
) -> tuple[float, list[str], list[str]]:
    """Share of the query's meaningful terms found in ``texts`` (R3), with the terms.

    The terms are the query's subject (:func:`assay.text.subject_terms`): "How quickly
    will someone come out for an emergency repair?" is covered by a passage about
    emergency repairs, whatever words it uses for "quickly" or "come out". A query that
    is all frame ("What does it mean?") counts every content word. The figures of the
    asker's own situation (:func:`assay.text.measured_figures`: "my son is 7", "a group
    of 14") are left out: the evidence states the rule ("children under 8"), not the
    asker's number. An acronym of the question that the evidence spells out counts as
    found ("MFA" beside "Multi-factor authentication": :func:`assay.text.spelled_out`), and
    a day the evidence names by its kind counts as found ("weekdays" beside "Monday to
    Friday", "Sunday" beside "at weekends": :func:`assay.text.day_kinds`), and so do a
    holiday the evidence gives by its date ("Boxing Day" beside "25 and 26 December":
    :func:`assay.text.holidays_dated`) and a country the evidence names by its group
    ("France" beside "EU countries": :func:`assay.text.countries_grouped`), and a part of
    the day a clock time of the evidence falls in, or the closing a span of hours gives
    ("evening", "close" beside "08:00 to 18:00": :func:`assay.times_of_day.parts_timed`),
    and a word the evidence writes in a hyphenated compound, or the compound whose parts
    it writes apart ("check" beside "Check-in opens at 3pm", "drop-off" beside "drop off"),
    and a clipped word beside its full form or the reverse, or an everyday word beside
    the word a document writes ("bike" beside "Bicycles", "kilos" beside "2 kg", "aircon"
    beside "air conditioning": :func:`assay.clippings.other_forms`), and a compound
    written without its hyphen ("regas" beside "re-gas").
    ``subject_only=False`` counts every content word always, ``own_figures=True`` those
    figures too, ``acronyms=False`` no acronym as spelled out, ``days=False`` no day by
    its kind (nor a holiday by its date), ``holidays=False`` no holiday by its date and
    ``places=False`` no country by its group and ``times=False`` no part of the day by
    its clock times, ``compounds=False`` no word by its compound nor a compound by its
    parts, ``clippings=False`` no word by its clipped or full form (``everyday=False`` no
    everyday equivalent, nor a compound without its hyphen), ``askers_words=False``
    the asker's people and superlatives as subject and ``carrying_words=False`` "bring"
    (:func:`assay.text.subject_terms`), and ``keep`` counts
    those stopwords as words (the later ones of :data:`assay.text.ADDED_STOPWORDS`), as
    earlier releases did (audit replay of their rows)."""
    terms = list(dict.fromkeys(content_terms(query, keep=keep)))
    if not own_figures:
        own = measured_figures(query)
        terms = [t for t in terms if t.split("-")[0] not in own] or terms
    subject = subject_terms(terms, askers_words=askers_words, carrying_words=carrying_words)
    wanted = (subject or terms) if subject_only else terms
    if not wanted:
        return 0.0, [], []
    said = {t for text in texts for t in content_terms(text, keep=keep)}
    present = {stem(t) for t in said}
    if acronyms:
        present |= {
            stem(a.lower()) for a in ACRONYM.findall(query)
            if stem(a.lower()) not in present and spelled_out(a, texts)
        }  # fmt: skip
    if days:
        stated = {kind for text in texts for kind in day_kinds(text)}
        present |= {stem(t) for t in wanted if day_kinds(t) & stated}
        if holidays:
            present |= {stem(t) for t in holidays_dated(query, texts)}
    if places:
        present |= {stem(t) for t in countries_grouped(query, texts)}
    if times:
        present |= {stem(t) for t in parts_timed(wanted, texts)}
    if compounds:
        present |= {stem(p) for t in said if "-" in t for p in _parts(t, keep)}
        present |= {stem(t) for t in wanted if "-" in t and _parts(t, keep) <= present}
    if everyday:  # "regas" beside "re-gas"
        present |= {stem(t.replace("-", "")) for t in said if "-" in t}
    if clippings:
        present |= {
            stem(t) for t in wanted
            if any(
                all(stem(w) in present for w in f.split())  # "air conditioning" of "aircon"
                for f in other_forms(t, everyday=everyday)
            )
        }  # fmt: skip
    covered = [t for t in wanted if stem(t) in present]
    missing = [t for t in wanted if stem(t) not in present]
    return len(covered) / len(wanted), covered, missing


def _parts(compound: str, keep: frozenset[str]) -> set[str]:
    """The stemmed meaningful parts of a hyphenated ``compound`` ("check-in": "check")."""
    return {stem(p) for p in content_terms(compound.replace("-", " "), keep=keep)}


def coverage_texts(admitted: Sequence[Evidence]) -> list[str]:
    """What coverage reads of each admitted item: its title path (document title and
    headings) and its text, so that a question naming the product of a data sheet's
    title is covered by the data sheet's passages."""
    return [titled(e.candidate.title, e.candidate.text) for e in admitted]


def set_confidence(
    values: dict[str, float],
    weights: SignalWeights,
    judgment: float | None = None,
    *,
    mode: JudgmentMode = "cap",
    judgment_weight: float = 0.5,
) -> float:
    """The composite set confidence (R5), with an optional model judgment (R4)."""
    composite = sum(getattr(weights, name) * values[name] for name in SIGNAL_NAMES)
    if judgment is not None:
        judgment = check_unit_interval("judgment", judgment)
        if mode == "cap":
            composite = min(composite, judgment)
        else:
            composite = (1 - judgment_weight) * composite + judgment_weight * judgment
    return round_score(composite)


def compute_set_signals(
    query: str,
    evidence: Sequence[Evidence],
    admitted_vectors: NDArray[np.float32],
    *,
    settings: SignalSettings,
    judgment: float | None = None,
) -> SetSignals:
    """All set signals of one request.

    ``evidence`` is every scored item, admitted or not; ``admitted_vectors`` holds the
    embeddings of the admitted ones, in the order they appear in ``evidence``.
    """
    confidences = [e.confidence for e in evidence]
    flags = [e.admitted for e in evidence]
    admitted = [e for e in evidence if e.admitted]
    top, gap = top_gap(evidence)
    coherence, by_source = coherence_score(admitted_vectors, [_source(e) for e in admitted])
    coverage, covered, missing = coverage_score(query, coverage_texts(admitted))
    values = {
        "top": top,
        "gap": min(1.0, gap * settings.gap_scale),
        "concentration": concentration_score(confidences, flags, settings.top_n),
        "coherence": coherence,
        "coverage": coverage,
    }
    values = {k: round_score(v) for k, v in values.items()}
    composite = set_confidence(
        values,
        settings.weights,
        judgment,
        mode=settings.judgment_mode,
        judgment_weight=settings.judgment_weight,
    )
    return SetSignals(
        **values,
        composite=composite,
        coherence_by_source=by_source,
        covered_terms=tuple(covered),
        missing_terms=tuple(missing),
        judgment=judgment,
    )
