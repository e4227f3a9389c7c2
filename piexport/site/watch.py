"""``piexport site --watch``: keep a site current while pi writes its sessions.

After the first build, wait for the file system to say that a session file changed, then run
the site build again. The build is incremental (its manifest): only sessions whose size or
time changed are rendered again, and the indexes (and whatever else the build writes) are
made from the manifest, so a session deleted or renamed leaves them at once. Nothing here
plans pages: this module only decides *when* to build.

Events come from ``watchfiles`` (Rust ``notify``: inotify, FSEvents, ReadDirectoryChangesW),
so an idle watch over a thousand sessions costs no CPU; ``force_polling`` covers folders
where the OS gives no events (network drives).

A line pi is still writing is not an error: builds here pass ``growing_seconds``, so an
unterminated last line waits until its newline comes or the file has not grown for that long
(then it is reported as cut off, as ``render`` reports it).

Stopping: ``stop`` (a ``threading.Event``) ends the watch between builds; a build under way
is finished first, so the site is whole when the watch returns (pages and the manifest are
written atomically either way).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..read.discover import discover
from .build import SiteReport, build_site

GROWING_SECONDS = 2.0
"""How long a file with an unterminated last line may stay unchanged before that line is
taken as cut off (an interrupted write) rather than being written."""
WAKE_MS = 1000
"""With no events, the watch wakes this often to see whether a line has stopped growing
(and does nothing else)."""
DEBOUNCE_MS = 150
"""Changes that arrive together are built together: pi appends a message in several writes."""


@dataclass(slots=True)
class WatchState:
    """What the watch has done so far (read by the caller and by tests)."""

    builds: int = 0
    last: SiteReport | None = None
    building: bool = False
    ready: bool = False
    """The file system watch is up and what changed while it started is built."""


def _session_filter(root: Path) -> Callable[[Any, str], bool]:
    """Only session files matter (and deletions, which may be whole folders): the pages the
    build writes never wake it, even when the output folder is inside the sessions folder."""
    from watchfiles import Change

    single = root if root.is_file() else None

    def accept(change: Any, path: str) -> bool:
        if single is not None:
            return Path(path) == single
        return path.endswith(".jsonl") or change == Change.deleted

    return accept


def watch_site(
    root: Path,
    out: Path,
    *,
    stop: threading.Event,
    on_build: Callable[[SiteReport], None] | None = None,
    on_error: Callable[[Exception], None] | None = None,
    state: WatchState | None = None,
    force_polling: bool | None = None,
    growing_seconds: float = GROWING_SECONDS,
    debounce_ms: int = DEBOUNCE_MS,
    **build_options: Any,
) -> WatchState:
    """Build the site, then build again whenever a session under ``root`` changes, until
    ``stop`` is set. ``build_options`` go to :func:`build_site` unchanged (options, redactor,
    project filter…). The first build's error is raised: with no site there is nothing to
    keep current. A later build's error (e.g. the output folder became unwritable) is passed
    to ``on_error`` and the watch goes on; the next change tries again."""
    root = root.expanduser()
    state = state if state is not None else WatchState()

    def build(first: bool = False) -> None:
        state.building = True
        try:
            report = build_site(root, out, growing_seconds=growing_seconds, **build_options)
        except Exception as exc:  # the watch outlives one failed build
            state.building = False
            if on_error is None or first:
                raise
            on_error(exc)
            return
        except BaseException:
            state.building = False
            raise
        state.last = report
        state.builds += 1
        state.building = False
        if on_build is not None:
            on_build(report)

    build(first=True)
    # The file system watch follows the folder it was given, not its name: a sessions
    # folder deleted and made again (a restore, a new copy moved into place) gets no watch
    # of its own. So each wake also looks at what the name holds now, and when the folder
    # went or another took its place, the watch is made again on what is there.
    while not stop.is_set():
        watched = root.parent if root.is_file() else root
        armed = _identity(watched)
        if armed is None:  # gone: the site stays as last built until the folder is back
            stop.wait(WAKE_MS / 1000)
            continue
        if not _watch_folder(
            root, watched, armed, state, build, stop, force_polling, debounce_ms, growing_seconds
        ):
            break
    return state


def _watch_folder(
    root: Path,
    watched: Path,
    armed: tuple[int, int],
    state: WatchState,
    build: Callable[[], None],
    stop: threading.Event,
    force_polling: bool | None,
    debounce_ms: int,
    growing_seconds: float,
) -> bool:
    """Build whenever a session under ``watched`` changes, until ``stop`` is set (False) or
    ``watched`` is no longer the folder ``armed`` names (True: watch it again)."""
    from watchfiles import Change, watch

    # a polling watcher compares modification times at a coarse grain (a second on some
    # file systems), so two appends within one can look like one: when polling anyway, each
    # wake also compares the sessions' sizes and times with those of the last build
    polling = bool(force_polling)
    seen = _snapshot(root) if polling else {}
    first = True
    last_change = time.monotonic()
    # rust_timeout: wake now and then to finish lines that stopped growing (no event comes
    # for a file nobody writes); with nothing pending those wakes do nothing. The first wake
    # builds once more: a change made while the watcher was starting had no event.
    for changes in watch(
        watched,
        watch_filter=_session_filter(root),
        debounce=debounce_ms,
        step=50,
        stop_event=stop,
        rust_timeout=WAKE_MS,
        yield_on_timeout=True,
        raise_interrupt=False,
        force_polling=force_polling,
    ):
        if stop.is_set():
            return False
        gone = any(c == Change.deleted and Path(p) == watched for c, p in changes)
        if gone or _identity(watched) != armed:
            if root.exists():  # another folder in its place: what it holds, now
                build()
            return True
        now = time.monotonic()
        if changes:
            last_change = now
        elif first or (_pending(state) and now - last_change >= growing_seconds):
            pass
        elif not (polling and _snapshot(root) != seen):
            continue
        if polling:
            seen = _snapshot(root)
        first = False  # and once more when the watcher is up: a change made before it
        build()
        state.ready = True
        if stop.is_set():
            return False
    return False


def _identity(path: Path) -> tuple[int, int] | None:
    """Which folder a path names now (device and inode), or None when it names none."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _snapshot(root: Path) -> dict[Path, tuple[int, int]]:
    """Size and modification time of every session file (what the build's manifest
    compares)."""
    out = {}
    for path in discover(root):
        try:
            st = path.stat()
        except OSError:
            continue
        out[path] = (st.st_size, st.st_mtime_ns)
    return out


def _pending(state: WatchState) -> bool:
    """A session was rendered with a line still being written: once nothing has changed
    for ``growing_seconds``, build again, so the line (cut off, and reported) shows."""
    return bool(state.last is not None and state.last.pending)


def wait_for(predicate: Callable[[], bool], seconds: float, step: float = 0.05) -> bool:
    """Poll ``predicate`` until true or ``seconds`` pass (for callers and tests that wait on
    a watch running in another thread); returns the last answer."""
    end = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > end:
            return predicate()
        time.sleep(step)
    return True
