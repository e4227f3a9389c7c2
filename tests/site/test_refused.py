"""A refused page never stops an archive: a session or index page the redaction gate refuses
is replaced by a plain page that says why (never what matched), every other page, the root
index, the search page and the manifest are written, the run says what was refused and
exits 1, and ``serve --redact`` still comes up.

The refusals are forced with a ``--redact-pattern`` matching the page's own words (which no
redaction of the session can remove): "Skip the session tree" is on every session page and
nowhere else, "Recent sessions" on the root index only."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.site.manifest import MANIFEST

from tests.support.sessions import SAMPLES
from tests.support.sitelinks import local_links

SESSIONS = 9
PROJECTS = 4


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    return root


def _site(archive: Path, out: Path, pattern: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["site", str(archive), "-o", str(out), "-j", "1", "--redact-pattern", pattern]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stderr


def _session_pages(out: Path) -> list[Path]:
    return [p for p in out.glob("*/*.html") if p.name != "index.html"]


def _written_whole(out: Path) -> None:
    assert (out / "search.html").is_file() and (out / "search" / "meta.js").is_file()
    assert len(json.loads((out / MANIFEST).read_text(encoding="utf-8"))["sessions"]) == SESSIONS
    assert len(list(out.glob("*/index.html"))) == PROJECTS
    assert len(_session_pages(out)) == SESSIONS
    for page in out.rglob("*.html"):
        for target in local_links(page):
            assert target.is_file(), f"{page} links to missing {target}"


def test_refused_session_pages_are_replaced_and_the_archive_is_written(
    archive: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    code, err = _site(archive, out, "Skip the session tree")
    assert code == 1
    _written_whole(out)
    for page in _session_pages(out):
        text = page.read_text(encoding="utf-8")
        assert "Page not written" in text and "custom" in text
        assert "Skip the session tree" not in text
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Recent sessions" in index and index.count("failed:") >= SESSIONS
    summary = err.strip().splitlines()[-2:]
    assert any(f"{SESSIONS} failed, {SESSIONS} refused by the redaction gate" in s for s in summary)


def test_a_refused_root_index_is_replaced_and_the_rest_written(
    archive: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    code, err = _site(archive, out, "Recent sessions")
    assert code == 1
    _written_whole(out)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Page not written" in index and "Recent sessions" not in index
    for page in _session_pages(out):
        assert "Page not written" not in page.read_text(encoding="utf-8")
    assert re.search(r"^refused: .*index\.html: not written", err, re.MULTILINE), err
    assert "0 failed, 1 refused by the redaction gate" in err
    # the next run renders nothing again, and says the refusal again
    code, err = _site(archive, out, "Recent sessions")
    assert code == 1 and "0 rendered, 9 unchanged" in err and "1 refused" in err


def test_the_plain_page_holds_nothing_the_rules_match(archive: Path, tmp_path: Path) -> None:
    """Should the plain page's own words match too, it says only that the page was
    refused; it never holds the text that was refused."""
    out = tmp_path / "site"
    code, _err = _site(archive, out, "(?:Skip the session tree|The redaction gate refused it:)")
    assert code == 1
    for page in _session_pages(out):
        text = page.read_text(encoding="utf-8")
        assert "Page not written" in text and "refused it:" not in text


def test_serve_with_a_refused_index_comes_up(archive: Path, tmp_path: Path) -> None:
    """``serve --redact`` never came up when the gate refused an index."""
    out = tmp_path / "served"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    argv = [sys.executable, "-m", "piexport", "serve", str(archive), "-o", str(out)]
    argv += ["--port", "0", "-j", "1", "--redact-pattern", "Recent sessions"]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:  # until it says where it serves, or ends
            lines.append(line)
            if line.startswith("serving "):
                break
        said = "".join(lines)
        found = re.search(r"at (http://\S+) ", said)
        assert found, said
        assert "refused: " in said
        with urllib.request.urlopen(found.group(1) + "search.html") as answer:
            assert answer.status == 200
        with urllib.request.urlopen(found.group(1)) as answer:
            assert b"Page not written" in answer.read()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate()
