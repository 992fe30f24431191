"""The time one file may take to ingest (``ingest_max_file_seconds``), enforced.

Checked between steps (read, chunk, embed), before every token count while chunking,
and, around reading and chunking, as a hard limit: where the platform has interval
timers and ingestion runs on the main thread (``assay ingest``, and the server's
ingestion process), an alarm interrupts whatever runs when the time is up. A parser
can spend long in one call: a 130 KB PDF whose ten pages share one compressed stream of
40 MB kept pypdf busy for 10 s a page, and a limit checked only between pages let it
run on. Elsewhere (an engine on another thread) the checks between steps remain.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from assay.ingest.textutil import bad_file

__all__ = ["FileDeadline"]

T = TypeVar("T")


class _Expired(BaseException):
    """The alarm went off (a BaseException: a parser's ``except Exception`` lets it by)."""


#: seconds between alarms once the time is up, until :func:`_disarm`
_REPEAT = 0.05


def _expire(signum: int, frame: Any) -> None:
    raise _Expired


def _quiet_about_expiry(
    previous: Callable[[Any], object],
) -> Callable[[Any], object]:
    """``sys.unraisablehook`` that drops this module's own alarms: one that lands
    where Python can only report it (a ``__del__``, a garbage-collector callback) is
    expected, and the next alarm follows; reported, it printed noise, and a test runner
    collecting unraisable exceptions failed the test."""

    def hook(unraisable: Any) -> object:
        if isinstance(unraisable.exc_value, _Expired):
            return None
        return previous(unraisable)

    return hook


def _disarm() -> None:
    """Stop the alarm, even when it goes off once more while this runs."""
    while True:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            return
        except _Expired:
            continue


class FileDeadline:
    """The time one file may take (``seconds``; ``None``: no limit); see the module."""

    def __init__(self, path: Path, seconds: float | None) -> None:
        self.path, self.seconds = path, seconds
        self.until = None if seconds is None else time.monotonic() + seconds

    def guarding(self, count: Callable[[str], int]) -> Callable[[str], int]:
        """``count`` checking the deadline before each call, so that chunking a text a
        tokenizer is slow on stops at the limit instead of after it."""

        @functools.wraps(count)
        def guarded(text: str) -> int:
            self.check("chunking")
            return count(text)

        return guarded

    def run(self, step: str, work: Callable[[], T]) -> T:
        """``work()``, interrupted when the time is up (see the module docstring).

        The alarm repeats every :data:`_REPEAT` seconds until disarmed: an interruption
        that lands where Python swallows exceptions (a garbage-collector callback) is
        followed by the next one."""
        armed = (
            self.until is not None
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        if not armed or self.until is None:
            return work()
        remaining = self.until - time.monotonic()
        if remaining <= 0:
            raise self._error(step)
        previous = signal.signal(signal.SIGALRM, _expire)
        previous_hook = sys.unraisablehook
        sys.unraisablehook = _quiet_about_expiry(previous_hook)
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, remaining, _REPEAT)
                return work()
            finally:
                _disarm()
                sys.unraisablehook = previous_hook
                signal.signal(signal.SIGALRM, previous)
        except _Expired:  # from the work, or from the cleanup before it was disarmed
            raise self._error(step) from None

    def check(self, step: str) -> None:
        """Fail the file when its time is up."""
        if self.until is not None and time.monotonic() > self.until:
            raise self._error(step)

    def _error(self, step: str) -> Exception:
        return bad_file(
            self.path,
            f"took more than {self.seconds:g} s (stopped while {step})",
            "split it into smaller files, or raise the setting ingest_max_file_seconds "
            "(ASSAY_INGEST_MAX_FILE_SECONDS)",
        )
