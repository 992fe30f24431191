"""An answerer that asks any OpenAI-compatible chat endpoint (R8, G2).

The model sees the admitted contexts under short labels, ``S1`` to ``Sn``, because small
models copy a two-character label far more reliably than an id such as
``kb-2024-07#chunk-12``. Every ``[Source: S<k>]`` of the reply is then rewritten to the real
evidence id, so :func:`~assay.answer.citations.validate_citations` can check it (G2). A
label the model made up (``S9`` with three contexts) is left as written: it names no
admitted evidence, so validation rejects the answer instead of letting it pass.

What must hold whatever the model writes is done in code, not asked for in the prompt:
an ``llm_only`` answer always starts with :data:`~assay.answer.prompts.LLM_ONLY_MARKER`
and carries no citations, and a clarifying question always ends in "?". A hedged
answer is worded with its uncertainty in mind, but the statement of the confidence is
put in front by :mod:`assay.flow.respond` for every answerer alike, so the judge grades the
answer's claims only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from assay.answer.base import AnswerMode, Draft, Uncertainty
from assay.answer.citations import CITATION, split_ids, strip_citations
from assay.answer.prompts import (
    CLARIFY,
    EXPAND,
    HEDGED,
    LLM_ONLY,
    LLM_ONLY_MARKER,
    STANDARD,
    Prompt,
)
from assay.errors import InvalidInputError
from assay.judge.schema import Context
from assay.models.llm import ChatClient, EndpointError, strip_code_fences
from assay.text import clip_words, squash_spaces

__all__ = ["LLMAnswerer", "parse_phrasings", "rewrite_labels"]

_MODES: tuple[AnswerMode, ...] = ("standard", "hedged", "llm_only")
_LABEL = re.compile(r"^S(\d+)$", re.IGNORECASE)
#: ``[S1]`` or ``[S1, S2]``: the citation without its ``Source:``, as small models write it
_BARE = re.compile(r"\[\s*(S\d+(?:\s*[,;]\s*S\d+)*)\s*\]", re.IGNORECASE)


def rewrite_labels(text: str, evidence_ids: Sequence[str]) -> str:
    """``text`` with every cited label ``S<k>`` replaced by ``evidence_ids[k - 1]``.

    Labels outside ``1..len(evidence_ids)`` and ids that are not labels stay as written,
    so citation validation (G2) sees and rejects them. Bare ``[S1]`` brackets become
    ``[Source: <id>]`` too.
    """

    def real(part: str) -> str:
        match = _LABEL.match(part.strip())
        if match and 1 <= int(match.group(1)) <= len(evidence_ids):
            return evidence_ids[int(match.group(1)) - 1]
        return part.strip()

    def rewrite(match: re.Match[str]) -> str:
        parts = split_ids(match.group(1))
        return f"[Source: {', '.join(real(p) for p in parts)}]"

    return _BARE.sub(rewrite, CITATION.sub(rewrite, text))


def parse_phrasings(reply: str, question: str, n: int) -> list[str]:
    """The distinct, non-empty phrasings of a JSON-array reply that differ from ``question``.

    Tolerates code fences and text around the array, and ``{"queries": [...]}``. Anything
    that is not such an array gives ``[]``.
    """
    text = strip_code_fences(reply)
    start, end = text.find("["), text.rfind("]")
    candidates: Any = None
    for chunk in (text, text[start : end + 1] if 0 <= start < end else ""):
        try:
            candidates = json.loads(chunk)
            break
        except ValueError:
            continue
    if isinstance(candidates, dict):
        candidates = next((v for v in candidates.values() if isinstance(v, list)), None)
    if not isinstance(candidates, list):
        return []
    seen = {squash_spaces(question).casefold()}
    phrasings: list[str] = []
    for item in candidates:
        if not isinstance(item, str) or not squash_spaces(item):
            continue
        key = squash_spaces(item).casefold()
        if key not in seen:
            seen.add(key)
            phrasings.append(squash_spaces(item))
        if len(phrasings) == n:
            break
    return phrasings


class LLMAnswerer:
    """Answers, hedges, clarifies and rephrases with a chat model (see the module doc).

    ``max_context_chars`` caps each context shown to the model (cut at a word boundary);
    ``max_tokens`` caps each reply. :meth:`answer` and :meth:`clarify` raise
    :class:`~assay.models.llm.EndpointError` when the endpoint fails; :meth:`expand`
    returns ``[]`` instead, so the caller can fall back to offline expansion.
    """

    can_answer_without_evidence = True

    def __init__(
        self, client: ChatClient, *, max_context_chars: int = 1200, max_tokens: int = 400
    ) -> None:
        for field, value in (("max_context_chars", max_context_chars), ("max_tokens", max_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(field, value, "use a positive integer")
        self.client = client
        self.max_context_chars = max_context_chars
        self.max_tokens = max_tokens
        self.name = f"llm:{client.name}"

    # -- prompts ---------------------------------------------------------------------------

    def _clip(self, text: str) -> str:
        return clip_words(text, self.max_context_chars)

    def _contexts(self, evidence: Sequence[Context]) -> str:
        return "\n\n".join(f"Source S{i}:\n{self._clip(c.text)}" for i, c in enumerate(evidence, 1))

    def _ask(self, prompt: Prompt, *, temperature: float = 0.0, **values: str) -> str:
        system, user = prompt.render(**values)
        reply = self.client.complete(
            system, user, max_tokens=self.max_tokens, temperature=temperature
        )
        return reply.strip()

    def _draft(self, text: str, prompt: Prompt, mode: str) -> Draft:
        return Draft(text=text, answerer=self.name, prompt_version=prompt.version, mode=mode)

    # -- the Answerer protocol -------------------------------------------------------------

    def answer(
        self,
        question: str,
        evidence: Sequence[Context],
        *,
        mode: AnswerMode = "standard",
        uncertainty: Uncertainty | None = None,
    ) -> Draft:
        """An answer citing ``evidence`` inline by real id; ``hedged`` needs ``uncertainty``.

        ``llm_only`` ignores ``evidence`` and is marked as not from the knowledge base by
        :data:`~assay.answer.prompts.LLM_ONLY_MARKER`.
        """
        if mode not in _MODES:
            raise InvalidInputError("mode", mode, f"use one of {', '.join(_MODES)}")
        if mode == "llm_only":
            reply = strip_citations(self._ask(LLM_ONLY, question=question))
            return self._draft(f"{LLM_ONLY_MARKER} {reply}".strip(), LLM_ONLY, mode)
        if not evidence:
            raise InvalidInputError(
                "evidence", [], "give at least one context, or ask with mode='llm_only'"
            )
        ids = [c.id for c in evidence]
        if mode == "standard":
            reply = self._ask(STANDARD, question=question, contexts=self._contexts(evidence))
            return self._draft(rewrite_labels(reply, ids), STANDARD, mode)
        if uncertainty is None:
            raise InvalidInputError(
                "uncertainty", None, "a hedged answer needs an Uncertainty to state"
            )
        reasons = "; ".join(uncertainty.reasons) or "none given"
        reply = self._ask(
            HEDGED,
            question=question,
            contexts=self._contexts(evidence),
            label=uncertainty.label,
            confidence=f"{uncertainty.confidence:.2f}",
            reasons=reasons,
        )
        return self._draft(rewrite_labels(reply, ids), HEDGED, mode)

    def clarify(self, question: str, evidence: Sequence[Context], missing: Sequence[str]) -> Draft:
        """One question back to the user, built from what was found and what was not."""
        contexts = "\n\n".join(self._clip(c.text) for c in evidence[:3]) or "(nothing)"
        reply = self._ask(
            CLARIFY,
            temperature=0.2,
            question=question,
            contexts=contexts,
            missing=", ".join(missing) or "(none)",
        )
        return self._draft(_one_question(reply, question, missing), CLARIFY, "clarify")

    def expand(self, question: str, evidence: Sequence[Context], n: int = 3) -> list[str]:
        """Up to ``n`` other phrasings of ``question``; ``[]`` when the model gives none."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InvalidInputError("n", n, "ask for at least one phrasing")
        contexts = "\n\n".join(self._clip(c.text) for c in evidence[:2]) or "(nothing)"
        try:
            reply = self._ask(
                EXPAND, temperature=0.3, question=question, contexts=contexts, n=str(n)
            )
        except EndpointError:
            return []
        return parse_phrasings(reply, question, n)


def _one_question(reply: str, question: str, missing: Sequence[str]) -> str:
    """The first question of ``reply``, ending in "?"; a fixed one when there is none."""
    text = squash_spaces(strip_citations(strip_code_fences(reply))).strip("\"' ")
    if "?" in text:  # the sentence that holds the first "?", without any preamble
        text = re.split(r"(?<=[.!:])\s+", text[: text.index("?") + 1])[-1]
    elif text:
        text = text.rstrip(".!:; ") + "?"
    if len(text) < 3:
        about = ", ".join(missing) if missing else question.rstrip("?. ")
        text = f"Could you say more about what you mean by: {about}?"
    return text
