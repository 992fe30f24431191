"""Models by name: the registry behind ``get_relevance_model`` and ``get_support_model``.

A name maps to a factory. Shipped heads are built once per process (they are
read-only); models bound to the LLM endpoint are built on every lookup, from the
endpoint settings the caller passes (default: the environment's), so an engine built
with its own :class:`~assay.settings.LLMSettings` asks that endpoint.
``cross-encoder:PATH`` builds the user's ONNX model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from assay.errors import InvalidInputError, did_you_mean
from assay.models.llm import ChatClient, required_client
from assay.settings import LLMSettings

__all__ = ["ModelRegistry"]

M = TypeVar("M")
CROSS_ENCODER = "cross-encoder:"


class ModelRegistry(Generic[M]):
    """Factories by lower-case name; ``setting`` names the option in error messages."""

    def __init__(
        self, setting: str, *, shipped: frozenset[str], cross_encoder: Callable[[str], M]
    ) -> None:
        """``shipped`` names are cached once built; ``cross_encoder`` builds from a path."""
        self.setting = setting
        self._shipped = shipped
        self._cross_encoder = cross_encoder
        self._factories: dict[str, Callable[[LLMSettings | None], M]] = {}
        self._built: dict[str, M] = {}
        self._lock = threading.Lock()

    def register(self, name: str, factory: Callable[[], M]) -> None:
        """Make ``get(name)`` build the model with ``factory``; replaces an earlier one."""
        self._add(name, factory, lambda llm: factory())

    def register_endpoint(self, name: str, factory: Callable[[ChatClient], M]) -> None:
        """Make ``get(name)`` build the model with ``factory`` around the LLM endpoint's
        client (a lookup without a configured endpoint is an error naming the fix)."""
        self._add(name, factory, lambda llm: factory(required_client(self.setting, llm)))

    def _add(self, name: str, given: object, build: Callable[[LLMSettings | None], M]) -> None:
        if not isinstance(name, str) or not name.strip():
            raise InvalidInputError("name", name, "give the model a non-empty name")
        if not callable(given):
            raise InvalidInputError("factory", given, "pass a callable that returns a model")
        key = name.strip().lower()
        self._factories[key] = build
        self._built.pop(key, None)

    def get(self, spec: object, *, llm: LLMSettings | None = None) -> M:
        """The model registered as ``spec`` (a name, or ``cross-encoder:PATH``); a model
        of the LLM endpoint asks the one ``llm`` names (default: the environment's)."""
        if not isinstance(spec, str) or not spec.strip():
            raise InvalidInputError(self.setting, spec, "pass a registered name or a model")
        if spec.strip().lower().startswith(CROSS_ENCODER):
            return self._cross_encoder(spec.strip()[len(CROSS_ENCODER) :])
        key = spec.strip().lower()
        factory = self._factories.get(key)
        if factory is None:
            names = [*sorted(self._factories), f"{CROSS_ENCODER}PATH"]
            raise InvalidInputError(
                self.setting,
                spec,
                f"{did_you_mean(spec, names)}choose one of: {', '.join(names)}",
                problem="is unknown",
            )
        if key not in self._shipped:
            return factory(llm)
        with self._lock:
            if key not in self._built:
                self._built[key] = factory(llm)
            return self._built[key]
