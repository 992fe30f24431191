"""The versioned prompts of the LLM answerer and the LLM judge.

Every prompt has a ``name`` and a ``version`` (``standard-v1``) that go into the audit row
with the text it produced, so a changed wording is never mistaken for the old one: bump
the version whenever a template changes. Templates use ``$name`` placeholders
(:class:`string.Template`), so JSON braces in them need no escaping.

The answer prompts show the contexts to the model under short labels (``S1``, ``S2``,
...), which small models copy reliably; :mod:`assay.answer.llm` maps them back to the
real evidence ids. The judge prompt shows the real ids, since its reply must name them.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

__all__ = [
    "CLARIFY",
    "EXPAND",
    "HEDGED",
    "JUDGE",
    "JUDGE_CORRECTION",
    "LLM_ONLY",
    "LLM_ONLY_MARKER",
    "PROMPTS",
    "PROMPT_SET_VERSION",
    "REFUSAL",
    "STANDARD",
    "Prompt",
]

#: the version of the whole set; bump it together with any prompt's own version
PROMPT_SET_VERSION = "prompts-v2"

#: what an answer prompt tells the model to write when its sources do not hold the answer;
#: :func:`assay.judge.base.is_refusal` recognises it, so the judge suppresses it (J4)
REFUSAL = "I cannot answer this question from the knowledge base."

#: the sentence the code (not the model) puts in front of every ``llm_only`` answer (R8)
LLM_ONLY_MARKER = (
    "Not from the knowledge base: this answer was written by a language model without "
    "any of your documents and may be wrong."
)


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt: its name, its version, the system text and the user template."""

    name: str
    version: str
    system: str
    user: str  #: a :class:`string.Template`; every ``$placeholder`` must be given

    def render(self, **values: str) -> tuple[str, str]:
        """The filled-in system text and user message (extra ``values`` are ignored)."""
        return Template(self.system).substitute(values), Template(self.user).substitute(values)


_CITE_RULES = (
    "Rules:\n"
    "- Use nothing but the sources below; leave out anything you know from elsewhere.\n"
    "- End every sentence with the label of the source it comes from, written as "
    "[Source: S1] (or [Source: S1, S2] when two sources say it).\n"
    "- Only use the labels that appear below; never make one up.\n"
    "- If the sources say only part of the answer, give that part and say what is missing.\n"
    f'- If the sources do not answer the question at all, reply with exactly "{REFUSAL}" '
    "and nothing else.\n"
    "- Keep it short: a few sentences, no headings, no lists of sources at the end."
)

STANDARD = Prompt(
    name="standard",
    version="standard-v1",
    system=(
        "You answer questions from a company knowledge base. Each source below has a "
        "label such as S1.\n\n" + _CITE_RULES
    ),
    user="Sources:\n\n$contexts\n\nQuestion: $question\n\nAnswer:",
)

HEDGED = Prompt(
    name="hedged",
    version="hedged-v2",
    system=(
        "You answer questions from a company knowledge base, but the search that found "
        "the sources below is not sure they are enough. Each source has a label such as S1."
        "\n\nYou are told how confident the search is and why. The reader is shown that "
        "separately, so do not write it yourself: answer cautiously, state only what the "
        "sources say, and say plainly which part of the question they leave open.\n\n" + _CITE_RULES
    ),
    user=(
        "Confidence: $label ($confidence)\nReasons for uncertainty: $reasons\n\n"
        "Sources:\n\n$contexts\n\nQuestion: $question\n\nAnswer:"
    ),
)

LLM_ONLY = Prompt(
    name="llm_only",
    version="llm-only-v1",
    system=(
        "No document from the knowledge base covers this question, so you answer from "
        "general knowledge only. Say plainly that the answer does not come from the "
        "knowledge base and may be wrong, keep it to a few sentences, suggest checking an "
        "authoritative source for anything important, and do not cite any source."
    ),
    user="Question: $question\n\nAnswer:",
)

CLARIFY = Prompt(
    name="clarify",
    version="clarify-v1",
    system=(
        "A search of the knowledge base did not find a clear answer to the user's question. "
        "Write a single short question back to the user that would help find the answer, "
        "for example by asking which of the topics found they mean, or what they mean by "
        "the terms the search could not match. Reply with that one question only, ending "
        'in "?", without any preamble.'
    ),
    user=(
        "User's question: $question\n\nWhat the search found:\n\n$contexts\n\n"
        "Terms of the question the search could not match: $missing\n\nYour question:"
    ),
)

EXPAND = Prompt(
    name="expand",
    version="expand-v1",
    system=(
        "You help a search engine. Rewrite the user's search query in other words so that "
        "a second search finds more documents: use synonyms, a broader or a narrower "
        "wording, or the vocabulary of the passages shown. Reply with nothing but a JSON "
        "array of 1 to $n strings, each one a complete alternative query, for example "
        '["first phrasing", "second phrasing"]. Do not repeat the original query.'
    ),
    user="Query: $question\n\nPassages the first search found:\n\n$contexts\n\nJSON array:",
)

JUDGE = Prompt(
    name="judge",
    version="judge-v2",
    system="""\
You check answers written by a retrieval-augmented assistant. You are given a query, the
answer, and the contexts the answer was meant to rest on, each with its id and, where
known, its source, the kind of source with its reliability (official 1.00, verified_kb
0.90, internal_wiki 0.70, customer 0.40, unverified 0.30, or another kind with its own)
and the date it was published. You do not change the answer and you do not write a new
one: you only evaluate it.

How to evaluate:
1. Grounding: take each factual statement of the answer and decide whether the contexts
   support it fully, support it in part, or contradict it. Compare every number, date,
   name and yes/no with what the contexts say: one that differs is a contradiction. A
   statement that no context speaks to is unsupported.
2. Sufficiency: decide whether the contexts together hold everything needed to answer the
   query completely; name what is missing (a person, a product, a period, a number).
3. Conflicts: look for contexts that disagree with each other, and note which two
   contexts disagree and how. Where they disagree, the context whose source is clearly
   more reliable (by 0.15 or more) wins; between equally reliable sources, the one
   published later. A statement that a weaker source supports but a clearly stronger
   one contradicts is contradicted. A statement that a stronger source supports stays
   supported, and the conflict is still reported. Contexts of unknown source settle
   nothing.
4. Speculation: note statements of the answer that go beyond what the contexts say:
   guesses, generalisations, conclusions drawn from them.

How to score (confidence_score):
- 1.0: every statement is supported, the contexts are sufficient and agree, nothing is
  speculative.
- 0.8 to 0.99: a small omission, or one statement only partly supported; no conflicts.
- 0.5 to 0.79: several partly supported statements, a minor conflict, or clear gaps that
  leave the core of the answer standing.
- 0.2 to 0.49: large gaps, important unsupported statements, or unresolved conflicts.
- 0.0 to 0.19: a context contradicts the answer, the answer is pure speculation, or the
  contexts have nothing to do with the query. A contradicted statement always puts the
  score in this band, however much of the rest is supported.

Constraints:
- Every quote must be copied exactly, character for character: unsupported_claims and
  speculation_flags quote the answer; a conflict's claim quotes a context or the answer.
- source_a and source_b are ids of the contexts you are given (or exact excerpts of a
  context). Never invent an id.
- An empty answer, or one that declines to answer, gets confidence_score 0.0 and
  recommended_action "suppress".
- When is_sufficient is true, missing_information is an empty list.
- nature is one of "direct contradiction", "temporal inconsistency",
  "definitional conflict"; recommended_action is one of "publish", "append_caveat",
  "human_review", "suppress".

Reply with only one JSON object with exactly these seven keys and nothing else: no code
fences, no text before or after it.
{
  "confidence_score": <number from 0.0 to 1.0>,
  "score_rationale": "<one or two sentences on what drives the score>",
  "evidence_sufficiency": {
    "is_sufficient": <true or false>,
    "missing_information": [<strings naming what is missing; [] when sufficient>]
  },
  "source_conflicts": [
    {"claim": "<exact quote>", "source_a": "<context id>", "source_b": "<context id>",
     "nature": "<one of the three natures>"}
  ],
  "unsupported_claims": [<exact quotes of the answer>],
  "speculation_flags": [<exact quotes of the answer>],
  "recommended_action": "<one of the four actions>"
}
Use [] for a list with nothing in it.""",
    user="Query: $query\n\nAnswer: $answer\n\nContexts:\n\n$contexts\n\nJSON object:",
)

#: the correction message an LLM judge gets after a reply that failed validation (J5)
JUDGE_CORRECTION = Template(
    "That reply was rejected: $problems\n"
    "Reply again with only the corrected JSON object, with exactly the seven keys, "
    "and nothing else."
)

#: every prompt by name, for listing and audit lookups
PROMPTS: dict[str, Prompt] = {
    p.name: p for p in (STANDARD, HEDGED, LLM_ONLY, CLARIFY, EXPAND, JUDGE)
}
