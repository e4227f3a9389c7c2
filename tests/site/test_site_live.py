"""``site.live``: the watch-and-serve lifecycle the ``site --watch`` and ``serve`` commands
run (its Ctrl+C handling is exercised end to end in test_watch.py and test_serve.py)."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import pytest

from piexport.errors import InputError
from piexport.site.build import SiteReport
from piexport.site.job import SiteJob
from piexport.site.live import build_lines, default_serve_folder, serve, watch


def test_serve_folder_is_a_cache_folder_per_sessions_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    a, b = tmp_path / "a", tmp_path / "b"
    assert default_serve_folder(a).parent == tmp_path / "cache" / "piexport" / "serve"
    assert default_serve_folder(a) == default_serve_folder(tmp_path / "b" / ".." / "a")
    assert default_serve_folder(a) != default_serve_folder(b)


def test_build_lines_keep_failures_when_quiet() -> None:
    report = SiteReport(Path("o"), rendered=1, failed=[("x", "x.jsonl: bad\x1b[2J")])
    report.warnings.append("y.jsonl: line 3: odd")
    assert build_lines(report, quiet=True) == ["failed: x.jsonl: bad[2J"]
    said = build_lines(report)
    assert said[:2] == ["failed: x.jsonl: bad[2J", "y.jsonl: line 3: odd"]
    assert said[2] == report.summary_line()
    assert build_lines(report, summary=False) == said[:2]


def test_the_first_build_fails_loudly_and_ctrl_c_is_given_back(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGINT)
    said: list[str] = []
    job = SiteJob(tmp_path / "nowhere", tmp_path / "out")
    with pytest.raises(InputError, match="no such folder"):
        watch(job, say=said.append)
    assert signal.getsignal(signal.SIGINT) is before
    assert said == []


def test_an_address_in_use_is_unusable_input(tmp_path: Path) -> None:
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said: list[str] = []
        job = SiteJob(tmp_path / "sessions", tmp_path / "out")
        with pytest.raises(InputError, match=f"^cannot listen on 127.0.0.1:{port}: "):
            serve(job, "127.0.0.1", port, say=said.append)
        assert said == []  # on this machine only: no warning
    finally:
        taken.close()
