"""Work spread over processes, started here and only here: how many cores this process may
use, the three kinds of pool piexport uses, and a map whose task and data the children
inherit (only indexes and results are pickled).

Every worker is started the same way: forked (or, for the one colouring child of a thread,
spawned) with the parent's time limits held and Ctrl+C blocked while it is born, and running
:func:`start_worker` (or an initializer that calls it) before anything else, so a worker
never takes the parent's Ctrl+C nor its time limits. ``multiprocessing`` is imported only
when there is work for more than one process: a small command does not pay for it."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from .deadline import forget_after_fork, held

if TYPE_CHECKING:  # its module imports multiprocessing, which a small command never needs
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.pool import Pool

__all__ = [
    "can_fork",
    "ctrl_c_blocked",
    "default_workers",
    "end_executor",
    "fork_executor",
    "fork_pool",
    "forked_map",
    "leave_ctrl_c_to_parent",
    "spawn_pool",
    "start_worker",
]

T = TypeVar("T")


def can_fork() -> bool:
    """Whether worker processes can be forked here (multiprocessing is imported only when a
    page is big enough for workers: a small page does not pay for it)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def leave_ctrl_c_to_parent() -> None:
    """In a worker process: Ctrl+C (SIGINT, which a terminal sends to every process of the
    command) is its parent's to handle; the parent then ends its workers. A worker that
    took it too would print a ``KeyboardInterrupt`` traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def ctrl_c_blocked() -> Iterator[None]:
    """Hold Ctrl+C back (SIGINT blocked, delivered when this ends) while worker processes
    are forked: a child is born with it blocked, so it can never take one before its
    initializer (:func:`leave_ctrl_c_to_parent`) has run."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def start_worker() -> None:
    """What every worker process does first: the parent's time limits and Ctrl+C are the
    parent's (``forked_map``'s pool, a page's group workers)."""
    forget_after_fork()
    leave_ctrl_c_to_parent()


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def fork_pool(workers: int, initializer: Callable[[], None] = start_worker) -> Pool:
    """A ``multiprocessing`` pool of ``workers`` forked processes, started now (a pool
    starts its processes as it is made), each running ``initializer`` first."""
    import multiprocessing

    with held(), ctrl_c_blocked():
        return multiprocessing.get_context("fork").Pool(workers, initializer=initializer)


def spawn_pool() -> Pool:
    """One spawned process (a thread may not fork): for colouring where no timer can stop a
    block in this process (``page/highlight.py``)."""
    import multiprocessing

    with ctrl_c_blocked():
        return multiprocessing.get_context("spawn").Pool(1, initializer=start_worker)


def fork_executor(workers: int) -> ProcessPoolExecutor:
    """A ``concurrent.futures`` pool of forked processes (a site's pages: a worker that
    dies breaks the pool, where a ``multiprocessing`` pool would wait for it forever). It
    starts its processes as work is handed out: hand it out inside :func:`ctrl_c_blocked`."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=start_worker,
    )


def end_executor(pool: ProcessPoolExecutor) -> None:
    """End an executor's processes now, not waiting for the work under way."""
    pool.shutdown(wait=False, cancel_futures=True)
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError):
            process.terminate()
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join()


_task: Callable[[int], Any] | None = None


def _run_task(index: int) -> Any:
    assert _task is not None
    return _task(index)


def forked_map(task: Callable[[int], T], count: int, workers: int) -> list[T]:
    """``[task(0), …, task(count - 1)]``, in ``workers`` forked processes when there is more
    than one thing to do: the task and what it reads are inherited, only indexes and
    results are pickled."""
    global _task
    if workers <= 1 or count <= 1 or not can_fork():
        return [task(i) for i in range(count)]
    _task = task
    pool = None
    try:
        pool = fork_pool(min(workers, count))
        return pool.map(_run_task, range(count), chunksize=1)
    finally:
        if pool is not None:
            with held():
                pool.terminate()
                pool.join()
        _task = None


# Python keeps its frames on a stack of 16 KB chunks and (until CPython gh-142183, fixed
# in 2026 for 3.13 and later) frees a chunk as soon as its first frame returns. A loop whose
# calls cross a chunk's end then maps and unmaps 16 KB on every call: in a site's worker
# processes that doubled the CPU of a page, all of it system time (strace: ~800,000
# mmap/munmap pairs for 25 pages). Where the boundary falls depends on how deep the worker
# starts, so a worker that sees a page spend a large share of its time in the kernel runs
# the next pages a few frames deeper. What a page shows never depends on it; only how fast
# it is made.

_PAD_STEP = 24
"""Frames added each time: a few hundred bytes each, about a quarter of a chunk in all."""


class SteadyDepth:
    """Runs tasks at a call depth where they do not make the kernel work for them."""

    def __init__(self) -> None:
        self.pad = 0

    def run(self, task: Callable[..., T], *args: Any) -> T:
        before = os.times()
        try:
            return _at_depth(self.pad, task, args)
        finally:
            after = os.times()
            self.judge(after.user - before.user, after.system - before.system)

    def judge(self, user: float, system: float) -> None:
        """A task that spent over a quarter as long in the kernel as in Python (and a tenth of
        a second at least) moves the next ones deeper; an ordinary page spends about 5%."""
        if system > 0.1 and system > user / 4:
            self.pad = (self.pad + _PAD_STEP) % (4 * _PAD_STEP)


def _at_depth(pad: int, task: Callable[..., T], args: tuple[Any, ...]) -> T:
    if pad > 0:
        return _at_depth(pad - 1, task, args)
    return task(*args)
