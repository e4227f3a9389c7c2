"""workers.py: SteadyDepth moves the pages of a process deeper when one made the kernel work
(Python's frame-stack chunks mapped and unmapped on every call), and only then."""

from __future__ import annotations

import inspect

import pytest

from piexport.workers import SteadyDepth


def depth() -> int:
    return len(inspect.stack(0))


def test_an_ordinary_page_keeps_the_depth() -> None:
    steady = SteadyDepth()
    steady.judge(user=2.0, system=0.1)  # 5%: writing files, faults
    steady.judge(user=0.01, system=0.05)  # a tiny page: too little to tell
    assert steady.pad == 0


def test_a_page_spent_in_the_kernel_moves_the_next_deeper() -> None:
    steady = SteadyDepth()
    first = steady.run(depth)
    steady.judge(user=2.0, system=1.8)
    assert steady.pad > 0
    assert steady.run(depth) == first + steady.pad


def test_the_depth_cycles_back() -> None:
    steady = SteadyDepth()
    seen = set()
    for _ in range(8):
        steady.judge(user=1.0, system=1.0)
        seen.add(steady.pad)
    assert 0 in seen and len(seen) == 4


def test_run_passes_arguments_and_errors() -> None:
    steady = SteadyDepth()
    assert steady.run(lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(ValueError):  # the task's error reaches the caller
        steady.run(int, "x")
