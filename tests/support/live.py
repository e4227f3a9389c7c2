"""Helpers for the live tests: a sessions folder pi is writing, a watch and a server on it."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from piexport.site.serve import SiteServer, start_server
from piexport.site.watch import WatchState, wait_for, watch_site

from tests.support.sessions import SAMPLES

SHOP = SAMPLES / "--home-alice-src-shop--"
WAIT = 180.0
"""How long a helper waits for the watch before it gives up: a state decides (the watch
answered, the line arrived); this is only how long a failing test takes to say so, and is
generous, as a machine with a load of 20 needs."""


def copy_shop(root: Path) -> Path:
    """A sessions folder holding the shop project; returns its first session file."""
    shutil.copytree(SHOP, root / SHOP.name)
    return sorted((root / SHOP.name).glob("*.jsonl"))[0]


def last_id(path: Path) -> str:
    for line in reversed(path.read_bytes().splitlines()):
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if (
            isinstance(obj, dict)
            and isinstance(obj.get("id"), str)
            and obj.get("type") != "session"
        ):
            return str(obj["id"])
    raise AssertionError(f"{path}: no entry to continue from")


def message_line(path: Path, text: str, n: int, role: str = "user") -> bytes:
    """One more message on the current branch, as pi appends it (a whole line)."""
    entry = {
        "type": "message",
        "id": f"live{n:04d}",
        "parentId": last_id(path),
        "timestamp": f"2025-03-03T09:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "message": {"role": role, "content": text},
    }
    return orjson.dumps(entry) + b"\n"


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


_MAIN = re.compile(r'<main id="transcript".*?</main>', re.S)
_HEADER = re.compile(r'<header class="session-header".*?</header>', re.S)


def main_content(html: str) -> str:
    """The parts of a session page that show the session: header figures and transcript."""
    parts = [m.group(0) for m in (_HEADER.search(html), _MAIN.search(html)) if m]
    assert len(parts) == 2, "not a session page"
    return "\n".join(parts)


@dataclass
class Live:
    root: Path
    out: Path
    state: WatchState
    stop: threading.Event
    server: SiteServer | None = None

    def page_of(self, source: Path) -> Path:
        assert self.state.last is not None
        pages = list(self.out.glob(f"*/{source.stem}.html"))
        assert len(pages) == 1, pages
        return pages[0]

    def wait(self, predicate: Any) -> None:
        """Until predicate holds with no build under way (so ``state.last`` is the build
        that made it true, or a later one)."""
        assert wait_for(lambda: predicate() and not self.state.building, WAIT), (
            "the watch did not get there"
        )

    def url(self, path: Path) -> str:
        assert self.server is not None
        return self.server.url(path.relative_to(self.out).as_posix())


@contextmanager
def live_site(root: Path, out: Path, serve: bool = False, **options: Any) -> Iterator[Live]:
    """``site --watch`` (and ``serve``) in threads, stopped and joined on exit."""
    stop = threading.Event()
    state = WatchState()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            watch_site(root, out, stop=stop, state=state, **options)
        except BaseException as exc:  # seen by the test, not lost in the thread
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    live = Live(root, out, state, stop)
    try:
        assert wait_for(lambda: state.ready or bool(errors), WAIT), "the watch did not start"
        assert not errors, errors
        if serve:
            live.server = start_server(out, "127.0.0.1", 0)
        yield live
    finally:
        stop.set()
        thread.join(WAIT)
        if live.server is not None:
            live.server.shutdown()
            live.server.server_close()
    assert not thread.is_alive(), "the watch did not stop"
    assert not errors, errors


@dataclass
class Served:
    """``piexport serve`` running as the reader runs it (its own process, builds in its
    main thread)."""

    base: str
    out: Path
    proc: subprocess.Popen[str]

    def page_of(self, source: Path) -> Path:
        pages = list(self.out.glob(f"*/{source.stem}.html"))
        assert len(pages) == 1, pages
        return pages[0]

    def url(self, path: Path) -> str:
        return self.base + path.relative_to(self.out).as_posix()


@contextmanager
def serve_process(root: Path, out: Path) -> Iterator[Served]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "piexport", "serve", str(root), "-o", str(out), "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    reader = threading.Thread(target=lambda: proc.stderr and proc.stderr.read(), daemon=True)
    try:
        assert proc.stderr is not None
        base = None
        for _ in range(20):
            line = proc.stderr.readline()
            found = re.search(r" at (http://\S+/) ", line)
            if found:
                base = found.group(1)
                break
        assert base is not None, "serve did not start"
        reader.start()  # keep the pipe flowing
        time.sleep(1.5)  # past the watch's first wake: it is up (no reading is taken here)
        yield Served(base, out, proc)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if reader.ident is not None:
            reader.join(WAIT)
        if proc.stderr is not None:
            proc.stderr.close()
