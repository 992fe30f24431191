"""A minimal client for any OpenAI-compatible chat endpoint, and yes/no probabilities.

assay never reaches the network unless the user configures an endpoint
(``ASSAY_LLM_URL``, e.g. a local llama.cpp server or a hosted API). Only the standard
library is used: one POST per call, a timeout, and retries with exponential backoff
on connection errors, timeouts, 429 and 5xx replies. 4xx replies other than 429 are
the caller's mistake and fail at once.

:meth:`ChatClient.complete` returns the text of one reply (answers, judgments, query
phrasings), optionally continuing a conversation (a judge's correction round, J5).

:meth:`ChatClient.yes_probability` asks a yes/no question for one reply token and
reads the log-probabilities of the candidate first tokens: ``P(yes) = p_yes / (p_yes +
p_no)`` over every spelling of "yes" and "no" among them. A ranking score, not a
calibrated probability: small models say "yes" too often. At temperature 0 the same
question gets the same answer, so an asker keeps its recent answers in
:class:`RememberedAnswers` and never asks one twice.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.errors import EndpointError, InvalidInputError
from assay.settings import LLMSettings, load_llm_settings

__all__ = [
    "REMEMBERED",
    "ChatClient",
    "EndpointError",
    "RememberedAnswers",
    "client_for",
    "client_from_environment",
    "required_client",
    "strip_code_fences",
]

REMEMBERED = 4096  #: yes/no answers an asker keeps (the oldest is forgotten first)

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?|\n?\s*```\s*$")


def strip_code_fences(reply: str) -> str:
    """A model's reply without the Markdown code fence it may wrap JSON in."""
    return _FENCE.sub("", reply.strip()).strip()


@dataclass(frozen=True)
class ChatClient:
    """POSTs chat completions to ``base_url`` (``.../v1``) for ``model``."""

    base_url: str
    model: str = "default"
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 30.0
    retries: int = 2
    backoff: float = 0.5  #: seconds before the first retry; doubles each time

    def __post_init__(self) -> None:
        """Reject a URL that is not http(s) and nonsensical timeouts or retry counts."""
        if not isinstance(self.base_url, str) or not self.base_url.startswith(
            ("http://", "https://")
        ):
            raise InvalidInputError(
                "llm_url",
                self.base_url,
                "give the endpoint's base URL, e.g. http://127.0.0.1:8765/v1",
            )
        if not 0 < self.timeout < math.inf:
            raise InvalidInputError("llm_timeout", self.timeout, "use a positive number of seconds")
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or self.retries < 0:
            raise InvalidInputError("llm_retries", self.retries, "use 0 or a positive integer")

    @property
    def name(self) -> str:
        """``model@host``, recorded with every score the endpoint produced."""
        host = self.base_url.split("://", 1)[1].split("/", 1)[0]
        return f"{self.model}@{host}"

    def chat(self, messages: list[dict[str, str]], **options: Any) -> dict[str, Any]:
        """The endpoint's JSON reply to ``messages`` (``options`` join the request body)."""
        body = json.dumps({"model": self.model, "messages": messages, **options}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = self.base_url.rstrip("/") + "/chat/completions"
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    reply: dict[str, Any] = json.loads(response.read())
                    return reply
            except urllib.error.HTTPError as exc:
                with exc:  # close the error response's socket, retried or not
                    if exc.code != 429 and exc.code < 500:
                        detail = exc.read()[:300].decode(errors="replace")
                        raise EndpointError(
                            f"{url} refused the request: {exc.code} {detail}"
                        ) from exc
                last = exc
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last = exc
            except ValueError as exc:  # the reply was not JSON
                last = exc
        raise EndpointError(
            f"{url} failed after {self.retries + 1} attempts ({last}); check that the server "
            "is running (`scripts/llm.sh start`) or unset ASSAY_LLM_URL"
        )

    def complete(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        history: list[dict[str, str]] | None = None,
    ) -> str:
        """The reply text to ``user`` after ``system`` and the earlier turns in ``history``.

        ``history`` holds ``{"role", "content"}`` messages that go between the system
        message and ``user``: a conversation so far, e.g. a rejected reply and the
        correction asked for (J5). An unexpected reply shape is an :class:`EndpointError`.
        """
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InvalidInputError("max_tokens", max_tokens, "use a positive integer")
        if not 0.0 <= temperature <= 2.0:
            raise InvalidInputError("temperature", temperature, "use a number from 0 to 2")
        turns = list(history or [])
        for i, turn in enumerate(turns):
            if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
                raise InvalidInputError(
                    f"history[{i}]", turn, 'give {"role": ..., "content": "..."} messages'
                )
        messages = [{"role": "system", "content": system}, *turns]
        messages.append({"role": "user", "content": user})
        reply = self.chat(messages, max_tokens=max_tokens, temperature=temperature)
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise EndpointError(f"unexpected reply shape from {self.name}: {reply!r:.300}") from exc
        if not isinstance(content, str):
            raise EndpointError(f"unexpected reply shape from {self.name}: {reply!r:.300}")
        return content

    def yes_probability(self, system: str, user: str) -> float:
        """P(yes) of the first reply token to a yes/no question; see the module docstring."""
        reply = self.chat(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            max_tokens=1,
            temperature=0,
            logprobs=True,
            top_logprobs=10,
        )
        try:
            choice = reply["choices"][0]
            content = choice.get("logprobs") or {}
            candidates = content.get("content") or []
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise EndpointError(f"unexpected reply shape from {self.name}: {reply!r:.300}") from exc
        yes = no = 0.0
        for item in candidates[0].get("top_logprobs", []) if candidates else []:
            word = str(item.get("token", "")).strip().lower()
            if word in ("yes", "no"):
                p = math.exp(float(item.get("logprob", -math.inf)))
                yes, no = (yes + p, no) if word == "yes" else (yes, no + p)
        if yes + no == 0.0:  # no log-probabilities: fall back to the reply text
            text = str((choice.get("message") or {}).get("content") or "").lower()
            first = re.match(r"\W*(\w+)", text)
            word = first.group(1) if first else ""
            if word in ("yes", "no"):
                return 1.0 if word == "yes" else 0.0
            raise EndpointError(f"{self.name} answered neither yes nor no: {text!r:.80}")
        return yes / (yes + no)


class RememberedAnswers:
    """The last :data:`REMEMBERED` answers of one asker, by question.

    A question asked under several policies, or a broadened search that finds the same
    passages again, costs no second request. Safe to share between threads: two threads
    asking the same new question at once may both ask it, and get the same answer.
    """

    def __init__(self) -> None:
        self._known: dict[Hashable, float] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, ask: Callable[[], float]) -> float:
        """The answer kept for ``key``, or ``ask()``'s, kept from now on."""
        with self._lock:
            known = self._known.get(key)
        if known is None:
            known = ask()
            with self._lock:
                if len(self._known) >= REMEMBERED:
                    del self._known[next(iter(self._known))]
                self._known[key] = known
        return known


def client_for(llm: LLMSettings) -> ChatClient | None:
    """The client of the endpoint ``llm`` names; ``None`` when none is configured (assay
    then stays offline)."""
    if not llm.configured:
        return None
    key = llm.api_key.get_secret_value() if llm.api_key is not None else None
    return ChatClient(base_url=llm.url, model=llm.model, api_key=key, timeout=llm.timeout)


def client_from_environment(environ: Mapping[str, str] | None = None) -> ChatClient | None:
    """The client configured by ``ASSAY_LLM_URL`` (+ ``_MODEL``, ``_API_KEY``, ``_TIMEOUT``)
    in ``environ`` (default: this process's), or ``None``."""
    return client_for(load_llm_settings(environ))


def required_client(setting: str, llm: LLMSettings | None = None) -> ChatClient:
    """The client of ``llm`` (default: the environment's endpoint), for a model that
    cannot work without one (``setting`` names the option that asked for it, e.g.
    ``relevance_model``)."""
    client = client_for(llm if llm is not None else load_llm_settings())
    if client is None:
        raise InvalidInputError(
            setting, "llm", "set ASSAY_LLM_URL to an OpenAI-compatible endpoint first"
        )
    return client
