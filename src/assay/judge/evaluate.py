"""``evaluate``: the J1 assessment of one (query, answer, contexts) triple.

The contract of ``assay evaluate --input FILE.json``, ``POST /v1/evaluate`` and
:func:`evaluate_request`::

    {"query": "...", "answer": "...",
     "contexts": [{"id": "...", "text": "...",
                   "source_id": "...", "source_kind": "official", "published": "2026-03-02"},
                  ...]}

Inputs are validated before any model runs (J5): the query is text, the answer is text
(it may be empty: that scores 0.0 with ``suppress``, J4), the contexts are a non-empty
list of objects with ``id`` and ``text`` and, optionally, who stated the text and when
(``source_id``, ``source_kind``, ``published``; :mod:`assay.judge.contexts`). The judge
weighs contexts that disagree by their source (:mod:`assay.judge.strength`); contexts
without source information are judged as they always were.

Judges by name (``ASSAY_JUDGE``): ``assay-judge`` (default, offline,
:class:`~assay.judge.model_judge.ModelJudge`) or ``llm`` (the configured endpoint, with
the offline judge as its fallback, :class:`~assay.judge.llm_judge.LLMJudge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from assay.actions import ActionThresholds
from assay.errors import InvalidInputError
from assay.judge.base import Judge, Judgment
from assay.judge.contexts import CONTEXT_KEYS, check_contexts
from assay.judge.schema import Assessment, Context
from assay.models.support import SupportModel
from assay.settings import LLMSettings

if TYPE_CHECKING:
    from assay.sources import SourceRegistry

__all__ = [
    "CONTEXT_KEYS",
    "JUDGES",
    "check_contexts",
    "evaluate",
    "evaluate_request",
    "get_judge",
]

JUDGES = ("assay-judge", "llm")
_REQUEST_KEYS = {"query", "answer", "contexts"}


def get_judge(
    name: str = "assay-judge",
    support: SupportModel | str | None = None,
    *,
    llm: LLMSettings | None = None,
) -> Judge:
    """The judge called ``name``; ``support`` is the offline judge's support model, ``llm``
    the endpoint of the ``llm`` judge (default: the environment's)."""
    from assay.judge.model_judge import ModelJudge

    key = name.strip().lower() if isinstance(name, str) else name
    if key == "assay-judge":
        return ModelJudge(support)
    if key == "llm":
        from assay.judge.llm_judge import LLMJudge
        from assay.models.llm import required_client

        return LLMJudge(required_client("judge", llm), fallback=ModelJudge(support))
    raise InvalidInputError("judge", name, f"choose one of: {', '.join(JUDGES)}")


def evaluate(
    query: str,
    answer: str,
    contexts: Sequence[Context] | Sequence[Mapping[str, Any]],
    *,
    judge: Judge | None = None,
    thresholds: ActionThresholds | None = None,
    registry: SourceRegistry | None = None,
) -> Judgment:
    """Judge ``answer`` to ``query`` against ``contexts``; ``.assessment`` is the J1 object.

    ``registry``: the caller's source registry, whose kinds and sources the contexts may
    name beside the built-in kinds (:func:`~assay.judge.contexts.check_contexts`)."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query", query, "give the user's question as text")
    if not isinstance(answer, str):
        raise InvalidInputError("answer", answer, 'give the answer as text ("" if none)')
    checked = check_contexts(contexts, registry=registry)
    return (judge or get_judge()).judge(query, answer, checked, thresholds or ActionThresholds())


def evaluate_request(
    request: object,
    *,
    judge: Judge | None = None,
    thresholds: ActionThresholds | None = None,
    registry: SourceRegistry | None = None,
) -> Assessment:
    """The J1 object for one request in the ``{"query", "answer", "contexts"}`` contract;
    ``registry`` as for :func:`evaluate`."""
    if not isinstance(request, Mapping):
        raise InvalidInputError(
            "input", request, 'give a JSON object {"query", "answer", "contexts"}'
        )
    keys: Any = set(request)
    if keys != _REQUEST_KEYS:
        extra, absent = sorted(keys - _REQUEST_KEYS), sorted(_REQUEST_KEYS - keys)
        fix = "; ".join(
            ([f"remove {', '.join(extra)}"] if extra else [])
            + ([f"add {', '.join(absent)}"] if absent else [])
        )
        raise InvalidInputError("input keys", sorted(keys), fix)
    return evaluate(
        request["query"],
        request["answer"],
        request["contexts"],
        judge=judge,
        thresholds=thresholds,
        registry=registry,
    ).assessment
