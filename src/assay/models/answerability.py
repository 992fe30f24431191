"""Whether a passage states the answer to a question, as a chat model reads it.

The offline reader (:mod:`assay.models.reader`) finds answer spans, but SQuAD 2.0's
unanswerable questions, written to look answerable from their paragraph, fool it: it
finds a plausible span either way. A chat model asked "does the passage state the
answer to this exact question?" separates them better (measured in the card of
``assay-correctness-llm``): its P(yes) is the correctness model's ``llm_cited`` feature
when an endpoint is configured (:mod:`assay.answer.correctness`).

One request per (question, passage): the first reply token's log-probabilities, read by
:meth:`~assay.models.llm.ChatClient.yes_probability`. The same pair is asked once per
instance (:class:`~assay.models.llm.RememberedAnswers`): a question asked under several
policies cites the same passage.
"""

from __future__ import annotations

from assay.errors import InvalidInputError
from assay.models.llm import ChatClient, RememberedAnswers
from assay.text import clip_words, squash_spaces

__all__ = ["ANSWERABILITY_PROMPT_VERSION", "LLMAnswerability"]

#: bump with any change of the wording below: a correctness model fitted on one wording's
#: beliefs does not apply to another's
ANSWERABILITY_PROMPT_VERSION = "answerability-v1"
_SYSTEM = "You judge reading comprehension. Reply with one word: yes or no."
_USER = (
    "{passage}\n\nQuestion: {question}\n\n"
    "Does the passage state the answer to this exact question? Questions may be written "
    "to look answerable while asking about something the passage does not say."
)


class LLMAnswerability:
    """P(the passage states the answer), from the chat endpoint of ``client``.

    Passages longer than ``max_chars`` are cut at a word boundary (the endpoint's context
    is finite); the passage's title goes in front of it, as a reader sees a section title.
    """

    def __init__(self, client: ChatClient, *, max_chars: int = 4000) -> None:
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 200:
            raise InvalidInputError("max_chars", max_chars, "use an integer of at least 200")
        self._client = client
        self._max_chars = max_chars
        self._remembered = RememberedAnswers()  # engines are shared by threads
        #: what a fitted correctness model records: the prompt's version and the model
        #: (not the host: the same model answers alike wherever it runs)
        self.name = f"{ANSWERABILITY_PROMPT_VERSION}:{client.model}"

    def belief(self, question: str, passage: str, title: str = "") -> float:
        """P(yes) that ``passage`` (under ``title``) states the answer to ``question``.

        Raises :class:`~assay.models.llm.EndpointError` when the endpoint fails.
        """
        if not isinstance(question, str) or not question.strip():
            raise InvalidInputError("question", question, "give the question asked")
        if not isinstance(passage, str):
            raise InvalidInputError("passage", type(passage).__name__, "give the passage text")
        text = clip_words(passage, self._max_chars)
        head = f"Passage ({squash_spaces(title)}):" if title.strip() else "Passage:"
        user = _USER.format(passage=f"{head} {text}", question=squash_spaces(question))
        return self._remembered.get(
            user, lambda: round(self._client.yes_probability(_SYSTEM, user), 6)
        )
