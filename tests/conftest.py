"""Shared fixtures (write small session files, run the CLI) and the run's own hooks: the
browser tests in one xdist worker, the security figures, no worker process left behind.
Helpers live in tests/support/."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.support import stats
from tests.support.sessions import HEADER, MakeSession, to_lines


@pytest.fixture
def make_session(tmp_path: Path) -> MakeSession:
    """Write records (dicts, or raw bytes lines) as a JSONL file; the header comes first
    unless ``header=None``."""
    counter = iter(range(10_000))

    def make(
        records: Iterable[Any], header: dict[str, Any] | None = HEADER, name: str | None = None
    ) -> Path:
        path = tmp_path / (name or f"s{next(counter)}.jsonl")
        lines = ([header] if header is not None else []) + list(records)
        path.write_bytes(to_lines(lines))
        return path

    return make


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # an xdist hook, in the controller
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist load`` (pyproject.toml's addopts) with the browser tests kept together on
    one worker (tests/support/scheduling.py); any other ``--dist`` is xdist's own."""
    if config.getvalue("dist") != "load":
        return None
    from tests.support.scheduling import BrowserTestsTogether

    return BrowserTestsTogether(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its security figures to the controller, which prints them."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["security_figures"] = stats.figures()


@pytest.hookimpl(optionalhook=True)  # an xdist hook: the controller, as a worker finishes
def pytest_testnodedown(node: Any, error: Any) -> None:
    stats.add(getattr(node, "workeroutput", {}).get("security_figures", {}))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line with the security harness's figures (docs/threats.md#what-the-suite-measures), if it ran."""
    STATS, CORPUS_STATS = stats.STATS, stats.CORPUS_STATS
    if CORPUS_STATS["files"] or STATS["pages"]:
        terminalreporter.write_line(
            f"security: {STATS['placements']} payload placements tried on {STATS['pages']} page "
            f"loads (with and without CSP, and built from <noscript> parts), {STATS['executed']} executed, {STATS['requests']} "
            f"requests; {CORPUS_STATS['files']} malformed files, {CORPUS_STATS['crashes']} "
            f"crashes, {CORPUS_STATS['lost']} entries lost"
        )


@pytest.fixture(autouse=True, scope="session")
def _colour_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterable[None]:
    """Coloured blocks are cached in a folder of the test run, never the user's (the CLI's
    subprocesses inherit it too)."""
    import os

    from piexport.page import colourcache

    old = os.environ.get("PIEXPORT_CACHE_DIR")
    os.environ["PIEXPORT_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    colourcache.reset()
    yield
    if old is None:
        os.environ.pop("PIEXPORT_CACHE_DIR", None)
    else:
        os.environ["PIEXPORT_CACHE_DIR"] = old
    colourcache.reset()


def _forks_of_this_process() -> list[int]:
    """Processes forked from the test process and still alive (same command line): a
    page's worker processes, which must all have been ended when the test returned."""
    import os

    me = Path(f"/proc/{os.getpid()}")
    try:
        cmdline = (me / "cmdline").read_bytes()
        kids = [
            int(p) for t in (me / "task").iterdir() for p in (t / "children").read_text().split()
        ]
    except OSError:  # not Linux: nothing to look at
        return []
    found = []
    for pid in kids:
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes() == cmdline:
                found.append(pid)
        except OSError:
            continue
    return found


@pytest.fixture(autouse=True)
def no_worker_outlives_its_test(request: pytest.FixtureRequest) -> Iterable[None]:
    """A worker process left running holds copies of the test process's pipes (Playwright's
    among them), so the browser could never be closed and the run would hang at its end.
    Any left is ended here and named as a warning: workers must end with their page."""
    yield
    import os
    import signal
    import time
    import warnings

    left = _forks_of_this_process()
    if not left:
        return
    time.sleep(0.2)  # a pool being ended right now
    left = _forks_of_this_process()
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (OSError, ChildProcessError):
            pass
    if left:
        warnings.warn(
            f"{request.node.nodeid} left worker processes {left}; ended them", stacklevel=1
        )
