"""Render the groups of one big page on several cores, with the page a single core makes.

A page is rendered a group of entries at a time, and three budgets run through it in order:
the code Pygments may colour, the text the page may hold, and the bytes of images it may
embed. Colouring comes first in a page and is soon spent. So the page's process colours the
first groups itself while forked workers render every group ahead without colour, each
from the text and image budgets as they stood at the fork. Once colouring is spent, a
worker's group is taken when it could not have come out differently in order: it cut
nothing for lack of budget and used no more than is left, or it started from exactly what
is left. Otherwise the page's process renders that group itself and forks again.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..deadline import held, record_stop, stops
from ..workers import can_fork, fork_pool, start_worker

if TYPE_CHECKING:  # only a type here: importing it would import Pygments with the CLI
    from .highlight import HighlightBudget

__all__ = ["PageBudgets", "render_groups"]

T = TypeVar("T")
MIN_GROUPS = 24
"""Fewer groups left than this are not worth starting processes for."""
MAX_FORKS = 4
"""Each time a page's text or image budget runs out, its workers' groups stop matching and
new workers are forked from the page's state; past this, the rest is rendered in order."""


@dataclass(slots=True)
class PageBudgets:
    """What is left of a page's budgets while it is rendered, and whether a budget (rather
    than a block's own cap) cut something since the last reset."""

    highlight: HighlightBudget
    text_left: int
    images_left: int
    text_cut: bool = False
    image_cut: bool = False


_Result = tuple[str, int, bool, int, bool, list[str]]
_job: tuple[Callable[[Any], str], Sequence[Any], PageBudgets, int, int] | None = None
"""What a forked worker renders: set just before the fork, inherited by the children."""


def _worker_start() -> None:
    """Workers yield the processor to the page's own process, which colours the first
    groups meanwhile; later it mostly waits, and they have the cores to themselves."""
    start_worker()
    with contextlib.suppress(OSError):
        os.nice(10)


def _render_in_worker(index: int) -> _Result:
    """One group, from the budgets as they stood at the fork; reports what it used (and
    what the hang guard stopped in it, for the page's run to report)."""
    assert _job is not None
    render, groups, budgets, text_start, images_start = _job
    budgets.highlight.chars = 0  # colouring is the page's own process's
    budgets.text_left, budgets.images_left = text_start, images_start
    budgets.text_cut = budgets.image_cut = False
    with stops() as stopped:
        html = render(groups[index])
    return (
        html,
        text_start - budgets.text_left,
        budgets.text_cut,
        images_start - budgets.images_left,
        budgets.image_cut,
        stopped,
    )


def render_groups(
    groups: Sequence[Any],
    render: Callable[[Any], str],
    budgets: PageBudgets,
    workers: int,
) -> Generator[str, None, None]:
    """The HTML of each group, in order: the same strings ``map(render, groups)`` gives.

    ``render`` spends ``budgets`` as it goes. With ``workers`` above 1, that many processes
    are forked at once (so they work while the caller writes the page's header) and render
    the groups ahead while this one colours the first ones; their groups are taken from
    where the highlighting budget is spent."""
    results = _render_groups(groups, render, budgets, workers)
    next(results)  # fork now; closing the iterator (or dropping it) stops the workers
    return results


def _render_groups(
    groups: Sequence[Any],
    render: Callable[[Any], str],
    budgets: PageBudgets,
    workers: int,
) -> Generator[str, None, None]:
    """``render_groups``, after a first ``""`` once the workers are started."""
    global _job
    if workers <= 1 or len(groups) < MIN_GROUPS or not can_fork():
        yield ""
        yield from map(render, groups)
        return
    started = False
    i, forks = 0, 0
    while i < len(groups):
        if forks == MAX_FORKS or len(groups) - i < MIN_GROUPS:
            yield render(groups[i])
            i += 1
            continue
        forks += 1
        text_start, images_start = budgets.text_left, budgets.images_left
        _job = (render, groups, budgets, text_start, images_start)
        gc.freeze()  # the children then leave the session's pages shared, not copied
        pool = None
        try:
            pool = fork_pool(workers, _worker_start)
            if not started:
                started = True
                yield ""
            for html, text_used, text_cut, images_used, image_cut, stopped in pool.imap(
                _render_in_worker, range(i, len(groups))
            ):
                if budgets.highlight.left:  # still colouring: only this process may
                    yield render(groups[i])
                    i += 1
                    continue
                text_same = text_start == budgets.text_left
                images_same = images_start == budgets.images_left
                if not (text_same or (not text_cut and text_used <= budgets.text_left)):
                    break
                if not (images_same or (not image_cut and images_used <= budgets.images_left)):
                    break
                budgets.text_left -= text_used
                budgets.images_left -= images_used
                for what in stopped:
                    record_stop(what)
                yield html
                i += 1
        finally:
            with held():  # nor while the workers are ended and the collector let go again
                if pool is not None:
                    pool.terminate()
                    pool.join()
                _job = None
                gc.unfreeze()
        if i < len(groups):  # a worker's budgets differed from the page's: render it here
            yield render(groups[i])
            i += 1
