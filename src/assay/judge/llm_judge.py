"""A judge that asks a chat model for the J1 assessment, and falls back when it cannot.

The flow, for one answer:

1. An empty answer or a refusal is never sent to the model: it scores 0.0 with
   ``suppress`` (J4, :func:`~assay.judge.base.empty_or_refusal`).
2. The model gets the judge prompt (:data:`~assay.answer.prompts.JUDGE`) with the query,
   the answer and the contexts under their real ids, each headed by who stated it and
   when, where known (its source, the source's kind and reliability, its publication
   date), so that the model can tell an official text from a chat message it contradicts.
3. Its reply must parse as JSON (code fences are tolerated), pass
   :class:`~assay.judge.schema.Assessment` strictly (J1) and quote only what it was given
   (:func:`~assay.judge.schema.grounding_problems`: exact excerpts, no invented ids).
4. A reply that fails is answered, in the same conversation, with what was wrong, and the
   model tries again, at most ``max_retries`` times (J5).
5. When every try failed, or the endpoint failed, the ``fallback`` judge decides, and the
   judgment says why (``fallback_reason``) and how many calls were made (``attempts``).

The model's ``recommended_action`` is advisory: the configured thresholds (J6) decide the
action from the score, so one policy applies whichever judge scored the answer.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from pydantic import ValidationError

from assay.actions import ActionThresholds
from assay.answer.prompts import JUDGE, JUDGE_CORRECTION
from assay.errors import InvalidInputError
from assay.judge.base import Judge, Judgment, empty_or_refusal
from assay.judge.schema import Assessment, Context, grounding_problems
from assay.models.llm import ChatClient, EndpointError, strip_code_fences

__all__ = ["LLMJudge", "extract_json", "heading", "validation_problems"]


def extract_json(reply: str) -> str:
    """The JSON object in ``reply``: without code fences or text before and after it."""
    text = strip_code_fences(reply)
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def _describe(error: ValidationError) -> list[str]:
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "the reply"
        problems.append(f"{where}: {item['msg']}")
    return problems


def validation_problems(
    reply: str, answer: str, contexts: Sequence[Context]
) -> tuple[Assessment | None, list[str]]:
    """The assessment in ``reply`` and ``[]``, or ``None`` and what is wrong with it."""
    payload = extract_json(reply)
    try:
        json.loads(payload)
    except ValueError as exc:
        return None, [f"the reply is not valid JSON ({exc})"]
    try:
        assessment = Assessment.model_validate_json(payload, strict=True)
    except ValidationError as exc:
        return None, _describe(exc)
    problems = grounding_problems(assessment, answer, contexts)
    return (None, problems) if problems else (assessment, [])


def heading(context: Context) -> str:
    """What the prompt says of a context before its text: its id, then whichever of its
    source, source kind (with the kind's reliability) and publication date are known
    (``id: sds-7 | source: halden-sds-2026 | kind: official, reliability 1.00 |
    published: 2026-03-02``)."""
    parts = [f"id: {context.id}"]
    if context.source_id is not None:
        parts.append(f"source: {context.source_id}")
    if context.source_kind is not None:
        trust = "" if context.reliability is None else f", reliability {context.reliability:.2f}"
        parts.append(f"kind: {context.source_kind}{trust}")
    if context.published is not None:
        parts.append(f"published: {context.published.isoformat()}")
    return " | ".join(parts)


class LLMJudge:
    """Scores answers with a chat model, validated and retried (J1, J5); see the module doc.

    ``max_context_chars`` caps each context shown to the model; quotes are still checked
    against the whole context.
    """

    def __init__(
        self,
        client: ChatClient,
        fallback: Judge,
        *,
        max_retries: int = 2,
        max_context_chars: int = 2000,
        max_tokens: int = 700,
    ) -> None:
        for field, value, least in (
            ("max_retries", max_retries, 0),
            ("max_context_chars", max_context_chars, 1),
            ("max_tokens", max_tokens, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InvalidInputError(field, value, f"use an integer of at least {least}")
        self.client = client
        self.fallback = fallback
        self.max_retries = max_retries
        self.max_context_chars = max_context_chars
        self.max_tokens = max_tokens
        self.name = f"llm-judge:{client.name}"
        self.prompt_version = JUDGE.version

    def _contexts(self, contexts: Sequence[Context]) -> str:
        shown = []
        for c in contexts:
            text = (
                c.text
                if len(c.text) <= self.max_context_chars
                else (c.text[: self.max_context_chars] + " ...")
            )
            shown.append(f"[{heading(c)}]\n{text}")
        return "\n\n".join(shown) or "(no contexts)"

    def judge(
        self,
        query: str,
        answer: str,
        contexts: Sequence[Context],
        thresholds: ActionThresholds,
    ) -> Judgment:
        """The model's judgment of ``answer``, or the fallback's when the model fails."""
        early = empty_or_refusal(answer, self.name)
        if early is not None:  # J4: nothing to grade, no call
            return early
        system, user = JUDGE.render(query=query, answer=answer, contexts=self._contexts(contexts))
        history: list[dict[str, str]] = []
        attempts = 0
        problems: list[str] = []
        while attempts <= self.max_retries:
            attempts += 1
            try:
                reply = self.client.complete(
                    system, user, history=history, max_tokens=self.max_tokens
                )
            except EndpointError as exc:
                return self._fall_back(
                    query, answer, contexts, thresholds, attempts, f"endpoint failed: {exc}"
                )
            assessment, problems = validation_problems(reply, answer, contexts)
            if assessment is not None:
                return self._accept(assessment, thresholds, attempts)
            history += [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
            user = JUDGE_CORRECTION.substitute(problems="; ".join(problems))
        reason = f"no valid assessment after {attempts} replies; last: {'; '.join(problems)}"
        return self._fall_back(query, answer, contexts, thresholds, attempts, reason)

    def _accept(
        self, assessment: Assessment, thresholds: ActionThresholds, attempts: int
    ) -> Judgment:
        action = thresholds.action(assessment.confidence_score)
        notes: tuple[str, ...] = ()
        if action != assessment.recommended_action:
            notes = (
                f"the model recommended {assessment.recommended_action}; "
                f"the thresholds give {action}",
            )
        return Judgment(
            assessment.model_copy(update={"recommended_action": action}),
            judge=self.name,
            claims=(),
            prompt_version=self.prompt_version,
            attempts=attempts,
            notes=notes,
        )

    def _fall_back(
        self,
        query: str,
        answer: str,
        contexts: Sequence[Context],
        thresholds: ActionThresholds,
        attempts: int,
        reason: str,
    ) -> Judgment:
        judgment = self.fallback.judge(query, answer, contexts, thresholds)
        return dataclasses.replace(
            judgment,
            attempts=attempts,
            prompt_version=JUDGE.version,  # the prompt the failed attempts used
            fallback_reason=reason[:500],
            notes=(*judgment.notes, f"{self.name} gave no usable assessment"),
        )
