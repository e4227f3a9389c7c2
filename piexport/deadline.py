"""Hard time limits for work on hostile text: a block that takes too long is stopped.

A check between blocks is not a bound: one regex in one Pygments lexer can backtrack for
hours on a few kilobytes. Python's regex engine and its interpreter loop both look at
pending signals as they run, so a timer's signal stops any of it mid-match.

Two clocks. A page's limit (:func:`limit`) is wall time (``SIGALRM``): how long a reader or a
site build waits. A block's bound (:func:`bounded`) is the process's CPU time (``SIGPROF``):
a block that backtracks burns CPU whatever else the machine does, while an ordinary block on
a machine busy with other work only waits longer, and must not be cut short for it (a page
made on a busy machine would then differ from the same page made on an idle one). Limits of
a clock nest: an inner one never outlives the one around it, and when both have passed, the
outer one is the one reported; a block's bound inside a page's limit reports the page's.

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
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "DeadlineExceeded",
    "bounded",
    "can_stop",
    "cpu_limit",
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
_cpu_ends: list[float] = []
"""Process CPU-time end times of the bounds in force, outermost first."""


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
    _raise_unless_unsafe(frame, signal.ITIMER_REAL)


def _on_prof(signum: int, frame: Any) -> None:
    if _cpu_ends and time.process_time() < _cpu_ends[-1]:
        _arm_cpu(_cpu_ends[-1])  # a garbage collection moved the end
        return
    _raise_unless_unsafe(frame, signal.ITIMER_PROF)


def _raise_unless_unsafe(frame: Any, timer: int) -> None:
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    depth = 0
    while frame is not None and depth < 64:
        if frame.f_code.co_name in _UNSAFE or frame.f_code in callbacks:
            return  # it fires again in REPEAT seconds
        frame, depth = frame.f_back, depth + 1
    # the code the exception unwinds (ending worker processes, closing a page) gets a quiet
    # GRACE before the next tick: a second exception there would cut that clean-up short
    signal.setitimer(timer, GRACE, REPEAT)
    raise DeadlineExceeded


_gc_began = (0.0, 0.0)


def _on_gc(phase: str, info: dict[str, int]) -> None:
    """Time the garbage collector takes is not the work's: a full collection of a big heap
    can take a second, whatever block happens to be running. Every limit moves by it."""
    global _gc_began
    if not (_ends or _cpu_ends):
        return
    if phase == "start":
        _gc_began = (time.monotonic(), time.process_time())
    elif _gc_began[0]:
        wall, cpu = time.monotonic() - _gc_began[0], time.process_time() - _gc_began[1]
        _gc_began = (0.0, 0.0)
        _ends[:] = [end + wall for end in _ends]
        _cpu_ends[:] = [end + cpu for end in _cpu_ends]


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


def _arm_cpu(end: float) -> None:
    signal.setitimer(signal.ITIMER_PROF, max(end - time.process_time(), 1e-4), REPEAT)


@dataclass(frozen=True, slots=True)
class _Clock:
    ends: list[float]
    now: Callable[[], float]
    timer: int
    signum: int
    handler: Callable[[int, Any], None]
    arm: Callable[[float], None]


# Windows has neither timer: there, can_stop() is false and no clock is used
_TIMERS = hasattr(signal, "setitimer")
_WALL = (
    _Clock(_ends, time.monotonic, signal.ITIMER_REAL, signal.SIGALRM, _on_alarm, _arm)
    if _TIMERS
    else None
)
_CPU = (
    _Clock(_cpu_ends, time.process_time, signal.ITIMER_PROF, signal.SIGPROF, _on_prof, _arm_cpu)
    if _TIMERS and hasattr(signal, "SIGPROF")
    else None
)


@contextmanager
def _limit(clock: _Clock, seconds: float) -> Iterator[None]:
    end = clock.now() + seconds
    if clock.ends:
        end = min(end, clock.ends[-1])
    previous = None
    if not clock.ends:
        previous = signal.getsignal(clock.signum)
        signal.signal(clock.signum, clock.handler)
    clock.ends.append(end)
    clock.arm(end)
    try:
        yield
    finally:
        # if the timer fires here, the pop below still runs (the disarm is in its try)
        try:
            signal.setitimer(clock.timer, 0)
        finally:
            clock.ends.pop()
            if clock.ends:
                clock.arm(clock.ends[-1])
            else:
                signal.signal(clock.signum, previous if previous is not None else signal.SIG_DFL)


@contextmanager
def limit(seconds: float) -> Iterator[None]:
    """Raise :class:`DeadlineExceeded` in the body once ``seconds`` (of wall time) have passed.

    Nested limits keep the earliest end. The exception belongs to the innermost limit whose
    time is up: an inner ``limit`` that catches it and finds an outer one expired too must
    re-raise (:func:`outer_expired` tells). Where :func:`can_stop` is false this does nothing.
    """
    if not can_stop() or _WALL is None:
        yield
        return
    with _limit(_WALL, seconds):
        yield


@contextmanager
def cpu_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`DeadlineExceeded` in the body once it has used ``seconds`` of the process's
    CPU time (waiting, and other processes' work, do not count). Nests like :func:`limit`."""
    if not can_stop() or _CPU is None:
        with limit(seconds):  # no CPU timer here: wall time is the bound left
            yield
        return
    with _limit(_CPU, seconds):
        yield


def outer_expired() -> bool:
    """Whether a limit that is still in force has run out (so a caught
    :class:`DeadlineExceeded` is its business, not the inner block's)."""
    wall = bool(_ends) and time.monotonic() >= _ends[-1]
    return wall or (bool(_cpu_ends) and time.process_time() >= _cpu_ends[-1])


def bounded(seconds: float, fn: Callable[..., T], *args: Any) -> T | None:
    """``fn(*args)``, or None when it used more than ``seconds`` of CPU time (or ran past a
    limit around it, which is then raised again for that limit's owner)."""
    try:
        with cpu_limit(seconds):
            return fn(*args)
    except DeadlineExceeded:
        if outer_expired():
            raise
        return None


_SIGNALS = {clock.signum for clock in (_WALL, _CPU) if clock is not None}


@contextmanager
def held() -> Iterator[None]:
    """Hold the timer's signal back for a moment that must not be cut short: forking (the
    fork handlers of ``logging`` cannot pass an exception on), ending worker processes,
    removing a temporary file. A limit that ran out meanwhile fires as soon as it ends."""
    if not ((_ends or _cpu_ends) and hasattr(signal, "pthread_sigmask") and can_stop()):
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
    _ends.clear()
    _cpu_ends.clear()
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
