"""``assay-support-stack``: the cross-encoder's reading weighed with what the claim adds.

Two boosted-tree heads (:class:`~assay.models.head.TreeHead`) read one row: the
cross-encoder's logits for the pair (P(supported) of its best window, the highest
P(contradicted) of any window) and the lexical :mod:`~assay.models.claim_gaps` of the
claim against the whole evidence. One head gives P(contradicted), fitted on the sets
that label contradiction; the other a support score, fitted on every support set, that
is capped at ``1 - P(contradicted)`` to give P(supported), so that a pair is never called
both. (Capping the other way, contradiction at ``1 - support``, cost 0.05 AUROC on the
public contradiction sets; this way costs support 0.002.)

They were chosen by ``make bench-models``, leave one dataset out: on support sets whose
data they never saw the stack ranks supported claims first with mean AUROC 0.83, where
the cross-encoder alone has 0.78 and the v1 head 0.76 (the figures, per set, are in
docs/benchmarks.md). The heads and the cross-encoder version they were fitted on live in
``shipped/assay-support-stack/model.json`` with their sha256; a head fitted on another
cross-encoder is refused, since its inputs would mean something else.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from assay.errors import ModelUnavailableError
from assay.models.claim_gaps import GAP_FEATURES, claim_gaps
from assay.models.head import SHIPPED_DIR, Head, load_head
from assay.models.pair_classifier import PairClassifier, PairLogits, shipped_pair_classifier

__all__ = [
    "SHIPPED_STACK",
    "STACK_FEATURES",
    "StackScores",
    "SupportStack",
    "shipped_support_stack",
    "stack_rows",
]

SHIPPED_STACK = SHIPPED_DIR / "assay-support-stack"
STACK_FEATURES: tuple[str, ...] = ("ce_supported_logit", "ce_contradicted_logit", *GAP_FEATURES)
Floats = npt.NDArray[np.float64]


def _logit(p: float) -> float:
    q = min(max(p, 1e-5), 1 - 1e-5)
    return float(np.log(q / (1 - q)))


def stack_rows(pairs: Sequence[tuple[str, str]], logits: Sequence[PairLogits]) -> Floats:
    """One :data:`STACK_FEATURES` row per (claim, evidence) pair and its cross-encoder view."""
    rows = [
        np.r_[_logit(view.support[0]), _logit(view.contradicted), claim_gaps(claim, evidence)]
        for (claim, evidence), view in zip(pairs, logits, strict=True)
    ]
    return np.vstack(rows) if rows else np.zeros((0, len(STACK_FEATURES)))


#: the gaps by which a text shows that it states something else
_SHOWN_BY = ("any_missing_number", "any_missing_name", "negation_mismatch")


@dataclass(frozen=True)
class StackScores:
    """The stack's reading of a list of (claim, evidence) pairs, in order."""

    supported: Floats  #: P(supported), at most 1 - P(contradicted)
    contradicted: Floats  #: P(contradicted)
    #: the claim states a figure or a name the evidence lacks, or they differ in negation:
    #: a contradiction the text itself shows (the cross-encoder alone also calls some
    #: rewordings contradicted: "charge it only between 0 and 45 °C" against "may be
    #: charged between 0 and 45 °C")
    shown: npt.NDArray[np.bool_]
    views: list[PairLogits]  #: the cross-encoder's view of each pair


class SupportStack:
    """The two heads of ``folder`` over the cross-encoder they were fitted on."""

    def __init__(
        self, folder: Path = SHIPPED_STACK, classifier: PairClassifier | None = None
    ) -> None:
        """Load both heads (sha256 checked), refusing them unless they were fitted on
        ``classifier`` (by its sha256; default: the shipped cross-encoder)."""
        try:
            raw = (folder / "model.json").read_bytes()
            info = json.loads(raw)
            files, digests = info["files"], info["sha256"]
        except (OSError, ValueError, KeyError) as exc:
            raise ModelUnavailableError(
                f"cannot read {folder / 'model.json'} ({exc}); reinstall assay or retrain "
                "with `make train-models`"
            ) from exc
        self.classifier = classifier or shipped_pair_classifier()
        if info.get("cross_encoder_sha256") != self.classifier.sha256:
            raise ModelUnavailableError(
                f"{folder.name} was fitted on the cross-encoder {info.get('cross_encoder')}, "
                f"not on this {self.classifier.name}; retrain it with `make train-models`"
            )
        self.support: Head = load_head(folder / files["support"], digests[files["support"]])
        self.contradiction: Head = load_head(
            folder / files["contradiction"], digests[files["contradiction"]]
        )
        for head in (self.support, self.contradiction):
            if head.features != STACK_FEATURES:
                raise ModelUnavailableError(
                    f"{head.name} expects features {head.features}, this assay computes "
                    f"{STACK_FEATURES}; retrain with `make train-models`"
                )
        self.version = str(info["version"])
        self.name = f"{info['name']}@{self.version}"
        #: of ``model.json``, which holds the sha256 of both heads and of the cross-encoder
        self.sha256 = hashlib.sha256(raw).hexdigest()

    def score(self, pairs: Sequence[tuple[str, str]]) -> StackScores:
        """Both probabilities of each pair, with what its text shows."""
        views = self.classifier.score(pairs)
        rows = stack_rows(pairs, views)
        if not len(rows):
            return StackScores(np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool), views)
        supported, contradicted = (
            head.probabilities(rows)[:, head.classes.index("1")]
            for head in (self.support, self.contradiction)
        )
        shown: npt.NDArray[np.bool_] = np.any(
            rows[:, [STACK_FEATURES.index(f) for f in _SHOWN_BY]] > 0, axis=1
        )
        return StackScores(np.minimum(supported, 1.0 - contradicted), contradicted, shown, views)


@functools.cache
def shipped_support_stack() -> SupportStack:
    """The shipped stack, loaded once per process."""
    return SupportStack()
