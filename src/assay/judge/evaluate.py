"""``evaluate``: the J1 assessment of one (query, answer, contexts) triple.

The contract of ``assay evaluate --input FILE.json`` and of :func:`evaluate_request`::

    {"query": "...", "answer": "...", "contexts": [{"id": "...", "text": "..."}, ...]}

Inputs are validated before any model runs (J5): the query is text, the answer is text
(it may be empty: that scores 0.0 with ``suppress``, J4), the contexts are a non-empty
list of objects with exactly ``id`` and ``text``. Contexts are deduplicated: a repeat
of an earlier context's text is dropped, while one id given two different texts is
refused, because the judge could not say which one a source id means.

Judges by name (``ASSAY_JUDGE``): ``assay-judge`` (default, offline,
:class:`~assay.judge.model_judge.ModelJudge`) or ``llm`` (the configured endpoint, with
the offline judge as its fallback, :class:`~assay.judge.llm_judge.LLMJudge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay.actions import ActionThresholds
from assay.errors import InvalidInputError
from assay.judge.base import Judge, Judgment
from assay.judge.schema import Assessment, Context
from assay.models.support import SupportModel
from assay.settings import LLMSettings

__all__ = ["JUDGES", "check_contexts", "evaluate", "evaluate_request", "get_judge"]

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


def check_contexts(contexts: object) -> list[Context]:
    """``contexts`` validated and deduplicated (see the module docstring)."""
    if isinstance(contexts, str | bytes | Mapping) or not isinstance(contexts, Sequence):
        raise InvalidInputError("contexts", contexts, 'give a list of {"id", "text"} objects')
    if not contexts:
        raise InvalidInputError(
            "contexts", contexts, "give at least one context the answer may rest on",
            problem="is empty",
        )  # fmt: skip
    kept: dict[str, Context] = {}
    texts: set[str] = set()
    for i, item in enumerate(contexts):
        given = item if isinstance(item, Context) else None
        if given is not None:
            item = given.to_dict()
        if not isinstance(item, Mapping) or set(item) != {"id", "text"}:
            raise InvalidInputError(
                f"contexts[{i}]", item, 'give an object with exactly "id" and "text"'
            )
        cid, text = item["id"], item["text"]
        if not isinstance(cid, str) or not cid.strip():
            raise InvalidInputError(f"contexts[{i}].id", cid, "give a non-empty string id")
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError(f"contexts[{i}].text", text, "give the context's text")
        if cid in kept:
            if kept[cid].text != text:
                raise InvalidInputError(
                    f"contexts[{i}].id", cid, "give each different text its own id",
                    problem="names two different texts",
                )  # fmt: skip
            continue
        if text in texts:
            continue  # the same passage under another id adds nothing
        kept[cid] = given if given is not None else Context(cid, text)
        texts.add(text)
    return list(kept.values())


def evaluate(
    query: str,
    answer: str,
    contexts: Sequence[Context] | Sequence[Mapping[str, str]],
    *,
    judge: Judge | None = None,
    thresholds: ActionThresholds | None = None,
) -> Judgment:
    """Judge ``answer`` to ``query`` against ``contexts``; ``.assessment`` is the J1 object."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query", query, "give the user's question as text")
    if not isinstance(answer, str):
        raise InvalidInputError("answer", answer, 'give the answer as text ("" if none)')
    checked = check_contexts(contexts)
    return (judge or get_judge()).judge(query, answer, checked, thresholds or ActionThresholds())


def evaluate_request(
    request: object, *, judge: Judge | None = None, thresholds: ActionThresholds | None = None
) -> Assessment:
    """The J1 object for one request in the ``{"query", "answer", "contexts"}`` contract."""
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
    ).assessment
