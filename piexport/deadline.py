"""The last resort against a hang: work on hostile text that runs far past any ordinary
need is stopped, and the stop is reported.

What a page contains is decided by counted work (characters, lines, line pairs: see
``highlight.py``, ``markdown.py``, ``report/linediff.py``), never by a clock, so the same
session gives the same page on any machine, busy or idle. Counting cannot catch everything:
one regex in one Pygments lexer can backtrack for hours on a few kilobytes, inside a single
call. For that alone this module keeps a hang guard, set far above what ordinary input needs
(tens of times over, so that no machine however loaded reaches it on ordinary input), whose
firing is never silent: each :func:`bounded` call that runs out is recorded (:func:`stops`),
the caller writes it on the page where the block is, and the page's run reports it as a
warning (``--strict`` fails on it).

The guard's clock is the process's CPU time (``SIGPROF``): a block that backtracks burns CPU
whatever else the machine does, while an ordinary block on a busy machine only waits longer.
Python's regex engine and its interpreter loop both look at pending signals as they run, so
the timer's signal stops any of it mid-match. Limits nest: an inner one never outlives the
one around it, and when both have passed, the outer one is the one reported.

Where there is no ``SIGPROF`` (Windows) or the caller is not the main thread (signals go to
the main thread only), :func:`cpu_limit` cannot stop anything (``can_stop()`` says so), and
callers that must be bounded run the work in a child process instead (see ``highlight.py``).
"""

from __future__ import annotations

import gc
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = [
    "DeadlineExceeded",
    "bounded",
    "can_stop",
    "cpu_limit",
    "forget_after_fork",
    "held",
    "outer_expired",
    "record_stop",
    "stops",
]

T = TypeVar("T")


class DeadlineExceeded(BaseException):
    """The work under a :func:`cpu_limit` ran past its time.

    A ``BaseException``, like ``KeyboardInterrupt``: code that catches ``Exception`` to
    carry on (a lexer wrapping errors, a fallback path) must not swallow it."""


_cpu_ends: list[float] = []
"""Process CPU-time end times of the limits in force, outermost first (each ≤ the one before)."""


def _now() -> float:
    """The guard's clock: this process's CPU time."""
    return time.process_time()


_TIMER = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")


def can_stop() -> bool:
    """Whether :func:`cpu_limit` can stop running work in this thread."""
    return _TIMER and threading.current_thread() is threading.main_thread()


_stopped: ContextVar[list[str] | None] = ContextVar("stopped", default=None)


@contextmanager
def stops() -> Iterator[list[str]]:
    """Collect what the guard stopped in the body (one line per stop, saying what it was):
    a page's run reports them (``export/pipeline.py``)."""
    found: list[str] = []
    token = _stopped.set(found)
    try:
        yield found
    finally:
        _stopped.reset(token)


def record_stop(what: str) -> None:
    """Report a stop to the :func:`stops` in force (a worker's, passed on to its page)."""
    found = _stopped.get()
    if found is not None:
        found.append(what)


_UNSAFE = frozenset(
    {"__del__", "_releaseLock", "_acquireLock", "_after_at_fork_child_reinit_locks"}
)
"""Functions Python runs where an exception cannot be passed on (finalizers the garbage
collector calls, the fork handlers of ``logging``; ``gc.callbacks`` too): the alarm waits
for its next tick."""


def _on_prof(signum: int, frame: Any) -> None:
    if _cpu_ends and _now() < _cpu_ends[-1]:
        _arm(_cpu_ends[-1])  # a garbage collection moved the end
        return
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    depth = 0
    while frame is not None and depth < 64:
        if frame.f_code.co_name in _UNSAFE or frame.f_code in callbacks:
            return  # it fires again in REPEAT seconds
        frame, depth = frame.f_back, depth + 1
    # the code the exception unwinds (ending worker processes, closing a page) gets a quiet
    # GRACE before the next tick: a second exception there would cut that clean-up short
    signal.setitimer(signal.ITIMER_PROF, GRACE, REPEAT)
    raise DeadlineExceeded


_gc_began = 0.0


def _on_gc(phase: str, info: dict[str, int]) -> None:
    """Time the garbage collector takes is not the work's: a full collection of a big heap
    can take a second, whatever block happens to be running. Every limit moves by it."""
    global _gc_began
    if not _cpu_ends:
        return
    if phase == "start":
        _gc_began = _now()
    elif _gc_began:
        took = _now() - _gc_began
        _gc_began = 0.0
        _cpu_ends[:] = [end + took for end in _cpu_ends]


gc.callbacks.append(_on_gc)


REPEAT = 0.05
"""The timer fires this often (in CPU seconds) while a limit is in force, and again after
its end until the limit is left: an exception raised where Python cannot pass it on (a
``__del__``, a lock release in logging) is lost, and the next one is not."""
GRACE = 1.0
"""After it has raised, the timer waits this long before it fires again (should the
exception have been swallowed): unwinding to the limit, ``finally`` blocks end worker
processes and close the page, and one more exception in them would leave workers behind."""


def _arm(end: float) -> None:
    # The timer ticks at least every REPEAT seconds of CPU and the handler reads the clock:
    # the guard goes by :func:`_now` alone (a test drives it). A timer of 0 disarms: an end
    # already passed still fires, at once.
    signal.setitimer(signal.ITIMER_PROF, min(max(end - _now(), 1e-4), REPEAT), REPEAT)


@contextmanager
def cpu_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`DeadlineExceeded` in the body once it has used ``seconds`` of the
    process's CPU time (waiting, and other processes' work, do not count).

    Nested limits keep the earliest end. The exception belongs to the innermost limit whose
    time is up: an inner limit that catches it and finds an outer one expired too must
    re-raise (:func:`outer_expired` tells). Where :func:`can_stop` is false this does nothing.
    """
    if not can_stop():
        yield
        return
    end = _now() + seconds
    if _cpu_ends:
        end = min(end, _cpu_ends[-1])
    previous = None
    if not _cpu_ends:
        previous = signal.getsignal(signal.SIGPROF)
        signal.signal(signal.SIGPROF, _on_prof)
    _cpu_ends.append(end)
    _arm(end)
    try:
        yield
    finally:
        # if the timer fires here, the pop below still runs (the disarm is in its try)
        try:
            signal.setitimer(signal.ITIMER_PROF, 0)
        finally:
            _cpu_ends.pop()
            if _cpu_ends:
                _arm(_cpu_ends[-1])
            else:
                signal.signal(signal.SIGPROF, previous if previous is not None else signal.SIG_DFL)


def outer_expired() -> bool:
    """Whether a limit that is still in force has run out (so a caught
    :class:`DeadlineExceeded` is its business, not the inner block's)."""
    return bool(_cpu_ends) and _now() >= _cpu_ends[-1]


def bounded(seconds: float, fn: Callable[..., T], *args: Any, what: str = "") -> T | None:
    """``fn(*args)``, or None when it used more than ``seconds`` of CPU time (or ran past a
    limit around it, which is then raised again for that limit's owner). A stop is
    recorded for the :func:`stops` in force, as ``what`` (not at all when it is empty)."""
    try:
        with cpu_limit(seconds):
            return fn(*args)
    except DeadlineExceeded:
        if outer_expired():
            raise
        if what:
            record_stop(what)
        return None


_SIGNALS = {signal.SIGPROF} if _TIMER else set()


@contextmanager
def held() -> Iterator[None]:
    """Hold the timer's signal back for a moment that must not be cut short: forking (the
    fork handlers of ``logging`` cannot pass an exception on), ending worker processes,
    removing a temporary file. A limit that ran out meanwhile fires as soon as it ends."""
    if not (_cpu_ends and hasattr(signal, "pthread_sigmask") and can_stop()):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def forget_after_fork() -> None:
    """In a forked worker: the parent's limits are the parent's to enforce (its timer was
    not inherited, and its signal may still be held). The worker's own limits start anew."""
    _cpu_ends.clear()
    if hasattr(signal, "pthread_sigmask") and _SIGNALS:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
