"""``render`` shows its progress on a terminal (stderr a pseudo-terminal) and nowhere else:
not in a pipe, not in a CI log. The bar counts work done (the transcript's groups of
entries), and nothing about the page depends on it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from piexport.page.parallel import MIN_GROUPS
from piexport.page.render import GROUP_ENTRIES

from tests.support.sessions import bench_session

ENV = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session big enough to be rendered by worker processes (``-j 1``: here, by one)."""
    path = tmp_path_factory.mktemp("progress") / "big.jsonl"
    path.write_bytes(bench_session(MIN_GROUPS * GROUP_ENTRIES * 2))
    return path


def _argv(session: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "piexport", "render", str(session), "-o", str(out), "-j", "1"]


def _on_a_terminal(argv: list[str]) -> tuple[int, str]:
    """Run with stderr on a pseudo-terminal; what the terminal got, and the exit code."""
    main, side = pty.openpty()
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=side, env=ENV
    )
    os.close(side)
    got = bytearray()
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the other side closed: the process is done
            break
        if not chunk:
            break
        got += chunk
    os.close(main)
    return proc.wait(), got.decode("utf-8", "replace")


def test_progress_shows_on_a_terminal(big: Path, tmp_path: Path) -> None:
    code, seen = _on_a_terminal(_argv(big, tmp_path / "page.html"))
    assert code == 0, seen
    assert "rendering" in seen and "100%" in seen
    assert (tmp_path / "page.html").is_file()
    # the same page as without a terminal: the bar changes nothing of it
    quiet = tmp_path / "quiet.html"
    subprocess.run(_argv(big, quiet), capture_output=True, env=ENV, check=True)
    assert quiet.read_bytes() == (tmp_path / "page.html").read_bytes()


def test_no_progress_in_a_pipe(big: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        _argv(big, tmp_path / "page.html"), capture_output=True, env=ENV, check=False
    )
    assert done.returncode == 0, done.stderr
    assert b"rendering" not in done.stderr and b"%" not in done.stderr
    assert b"\r" not in done.stderr and b"\x1b" not in done.stderr
    assert done.stderr.decode().splitlines()[0].startswith("wrote ")
