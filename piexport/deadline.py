"""Hard time limits for work on hostile text: a block that takes too long is stopped.

A check between blocks is not a bound: one regex in one Pygments lexer can backtrack for
hours on a few kilobytes. Python's regex engine and its interpreter loop both look at
pending signals as they run, so a real-time timer (``SIGALRM``) stops any of it mid-match.
Timers nest: an inner limit never outlives the one around it (a page's limit around a
block's), and when both have passed, the outer one is the one reported.

Where there is no ``SIGALRM`` (Windows) or the caller is not the main thread (signals go to
the main thread only), :func:`limit` cannot stop anything; :func:`bounded` says so
(``can_stop()``), and callers that must be bounded run the work in a child process instead
(see ``highlight.py``).
"""

from __future__ import annotations

import gc
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = [
    "DeadlineExceeded",
    "bounded",
    "can_stop",
    "forget_after_fork",
    "held",
    "limit",
    "outer_expired",
]

T = TypeVar("T")


class DeadlineExceeded(BaseException):
    """The work under a :func:`limit` ran past its time.

    A ``BaseException``, like ``KeyboardInterrupt``: code that catches ``Exception`` to
    carry on (a lexer wrapping errors, a fallback path) must not swallow it."""


_ends: list[float] = []
"""Monotonic end times of the limits in force, outermost first (each ≤ the one before)."""


def can_stop() -> bool:
    """Whether :func:`limit` can stop running work in this thread."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


_UNSAFE = frozenset(
    {"__del__", "_releaseLock", "_acquireLock", "_after_at_fork_child_reinit_locks"}
)
"""Functions Python runs where an exception cannot be passed on (finalizers the garbage
collector calls, the fork handlers of ``logging``; ``gc.callbacks`` too): the alarm waits
for its next tick."""


def _on_alarm(signum: int, frame: Any) -> None:
    if _ends and time.monotonic() < _ends[-1]:
        _arm(_ends[-1])  # a garbage collection moved the end
        return
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    depth = 0
    while frame is not None and depth < 64:
        if frame.f_code.co_name in _UNSAFE or frame.f_code in callbacks:
            return  # it fires again in REPEAT seconds
        frame, depth = frame.f_back, depth + 1
    # the code the exception unwinds (ending worker processes, closing a page) gets a quiet
    # GRACE before the next tick: a second exception there would cut that clean-up short
    signal.setitimer(signal.ITIMER_REAL, GRACE, REPEAT)
    raise DeadlineExceeded


_gc_began = 0.0


def _on_gc(phase: str, info: dict[str, int]) -> None:
    """Time the garbage collector takes is not the work's: a full collection of a big heap
    can take a second, whatever block happens to be running. Every limit moves by it."""
    global _gc_began
    if not _ends:
        return
    if phase == "start":
        _gc_began = time.monotonic()
    elif _gc_began:
        spent, _gc_began = time.monotonic() - _gc_began, 0.0
        _ends[:] = [end + spent for end in _ends]


gc.callbacks.append(_on_gc)


REPEAT = 0.05
"""After its end, the timer fires again this often until the limit is left: an exception
raised where Python cannot pass it on (a ``__del__``, a lock release in logging) is lost,
and the next one is not."""
GRACE = 1.0
"""After it has raised, the timer waits this long before it fires again (should the
exception have been swallowed): unwinding to the limit, ``finally`` blocks end worker
processes and close the page, and one more exception in them would leave workers behind."""


def _arm(end: float) -> None:
    # a timer of 0 disarms: an end already passed still fires, at once
    signal.setitimer(signal.ITIMER_REAL, max(end - time.monotonic(), 1e-4), REPEAT)


@contextmanager
def limit(seconds: float) -> Iterator[None]:
    """Raise :class:`DeadlineExceeded` in the body once ``seconds`` have passed.

    Nested limits keep the earliest end. The exception belongs to the innermost limit whose
    time is up: an inner ``limit`` that catches it and finds an outer one expired too must
    re-raise (:func:`expired` tells). Where :func:`can_stop` is false this does nothing.
    """
    if not can_stop():
        yield
        return
    end = time.monotonic() + seconds
    if _ends:
        end = min(end, _ends[-1])
    previous = None
    if not _ends:
        previous = signal.getsignal(signal.SIGALRM)
        signal.signal(signal.SIGALRM, _on_alarm)
    _ends.append(end)
    _arm(end)
    try:
        yield
    finally:
        # if the timer fires here, the pop below still runs (the disarm is in its try)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            _ends.pop()
            if _ends:
                _arm(_ends[-1])
            else:
                signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)


def outer_expired() -> bool:
    """Whether a limit that is still in force has run out (so a caught
    :class:`DeadlineExceeded` is its business, not the inner block's)."""
    return bool(_ends) and time.monotonic() >= _ends[-1]


def bounded(seconds: float, fn: Callable[..., T], *args: Any) -> T | None:
    """``fn(*args)``, or None when it ran past ``seconds`` (or past a limit around it,
    which is then raised again for that limit's owner)."""
    try:
        with limit(seconds):
            return fn(*args)
    except DeadlineExceeded:
        if outer_expired():
            raise
        return None


@contextmanager
def held() -> Iterator[None]:
    """Hold the timer's signal back for a moment that must not be cut short: forking (the
    fork handlers of ``logging`` cannot pass an exception on), ending worker processes,
    removing a temporary file. A limit that ran out meanwhile fires as soon as it ends."""
    if not (_ends and hasattr(signal, "pthread_sigmask") and can_stop()):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def forget_after_fork() -> None:
    """In a forked worker: the parent's limits are the parent's to enforce (its timer was
    not inherited, and its signal may still be held). The worker's own limits start anew."""
    _ends.clear()
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
