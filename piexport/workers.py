"""Work spread over forked processes: how many cores this process may use, and a map whose
task and data the children inherit (only indexes and results are pickled).
``multiprocessing`` is imported only when there is work for more than one process: a small
command does not pay for it."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from .deadline import forget_after_fork, held

__all__ = ["can_fork", "default_workers", "forked_map"]

T = TypeVar("T")


def can_fork() -> bool:
    """Whether worker processes can be forked here (multiprocessing is imported only when a
    page is big enough for workers: a small page does not pay for it)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


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
    import multiprocessing

    _task = task
    pool = None
    try:
        with held():
            pool = multiprocessing.get_context("fork").Pool(
                min(workers, count), initializer=forget_after_fork
            )
        return pool.map(_run_task, range(count), chunksize=1)
    finally:
        if pool is not None:
            with held():
                pool.terminate()
                pool.join()
        _task = None
