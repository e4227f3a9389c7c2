"""The site: indexes, links that resolve, incremental rebuilds, failures that do not stop it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from piexport.cli import cli
from piexport.read.discover import default_sessions_root
from piexport.site.build import build_site
from piexport.site.names import project_key

from tests.support.pages import static_checks
from tests.support.sessions import SAMPLES


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    return root


def local_links(page: Path) -> list[Path]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    out = []
    for a in soup.find_all("a", href=True):
        href = a["href"]
        if href.startswith(("#", "http:", "https:", "mailto:")):
            continue
        out.append((page.parent / unquote(href.split("#")[0])).resolve())
    return out


def test_site_from_samples_has_every_page_and_links_resolve(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    report = build_site(archive, out, jobs=2)
    assert report.rendered == 9 and not report.failed and report.projects == 4
    pages = sorted(out.rglob("*.html"))
    assert len(pages) == 9 + 4 + 1 + 1  # sessions, projects, root index, search.html
    for page in pages:
        static_checks(page.read_text(encoding="utf-8"))
        for target in local_links(page):
            assert target.is_file(), f"{page} links to missing {target}"
    root_index = (out / "index.html").read_text()
    assert "/home/bob/projects/data pipeline" in root_index  # the real cwd, not the folder name
    # the fork links to its parent and the parent lists the fork
    shop = out / project_key("/home/alice/src/shop", "")
    index = (shop / "index.html").read_text()
    assert "forked from" in index and "forks:" in index
    # a fork is named by its title (its file name on hover), as the session list names it
    fork = BeautifulSoup(index, "html.parser").select_one('div.sub a[title$=".jsonl"]')
    assert fork is not None and fork.get_text() == "Cart badge stays red after a valid coupon"


def test_second_run_renders_nothing_and_touch_rerenders_one(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_site(archive, out, jobs=1)
    again = build_site(archive, out, jobs=1)
    assert (again.rendered, again.unchanged) == (0, 9)
    victim = next(archive.rglob("*0196ec1e*.jsonl"))
    st = victim.stat()
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))
    third = build_site(archive, out, jobs=1)
    assert (third.rendered, third.unchanged) == (1, 8)
    forced = build_site(archive, out, jobs=1, force=True)
    assert forced.rendered == 9


def test_deleted_session_loses_its_page(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_site(archive, out, jobs=1)
    victim = next(archive.rglob("*0196ec1e*.jsonl"))
    page = next(out.rglob("*0196ec1e*.html"))
    victim.unlink()
    report = build_site(archive, out, jobs=1)
    assert report.removed == 1 and not page.exists()
    assert "0196ec1e" not in (page.parent / "index.html").read_text()


def test_broken_session_is_listed_and_the_rest_built(
    archive: Path, tmp_path: Path, runner: CliRunner
) -> None:
    bad = next(archive.iterdir()) / "2025-01-01T00-00-00-000Z_broken.jsonl"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nnot a session")
    out = tmp_path / "site"
    result = runner.invoke(cli, ["site", str(archive), "-o", str(out), "-j", "1"])
    assert result.exit_code == 1
    assert "no session entries found" in result.stderr
    assert "9 rendered" in result.stderr and "1 failed" in result.stderr
    listed = [p for p in out.glob("*/index.html") if "broken" in p.read_text()]
    assert len(listed) == 1 and "failed:" in listed[0].read_text()


def test_generated_archive_with_clashing_names(tmp_path: Path) -> None:
    root = tmp_path / "s"
    header = '{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"%s"}\n'
    for i, cwd in enumerate(["/a/b-c", "/a/b/c", "/a-b/c"]):
        folder = root / "--a-b-c--" if i < 2 else root / f"--a-b-c--{i}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"2025-01-0{i + 1}T00-00-00-000Z_s{i}.jsonl").write_text(
            header % cwd
            + '{"type":"message","id":"m","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n'
        )
    out = tmp_path / "site"
    report = build_site(root, out, jobs=1)
    assert report.projects == 3 and report.rendered == 3
    assert len({p.parent for p in out.rglob("*_s*.html")}) == 3


def test_default_root_honours_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("PI_CODING_AGENT_SESSION_DIR", "PI_SESSIONS_DIR", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_sessions_root() == tmp_path / ".pi/agent/sessions"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "/agent")
    assert default_sessions_root() == Path("/agent/sessions")
    monkeypatch.setenv("PI_SESSIONS_DIR", "/sessions")
    assert default_sessions_root() == Path("/sessions")
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", "/flat")
    assert default_sessions_root() == Path("/flat")


def test_project_filter(archive: Path, tmp_path: Path) -> None:
    report = build_site(archive, tmp_path / "site", jobs=1, project="/home/alice/*")
    assert report.sessions == 3 and report.projects == 2


def test_summary_keys_are_complete() -> None:
    from piexport import load_session
    from piexport.site.summary import SUMMARY_KEYS, session_summary

    path = next(SAMPLES.rglob("*.jsonl"))
    assert set(session_summary(load_session(path), path)) == set(SUMMARY_KEYS)


def test_since_and_until_choose_sessions(archive: Path, tmp_path: Path) -> None:
    import time

    from piexport.errors import InputError

    # --until compares the session's start (header timestamp): the samples span 2024-11 … 2025-05
    report = build_site(archive, tmp_path / "a", jobs=1, until="2024-12-31")
    assert report.sessions == 2
    # --since compares last activity (file mtime): make one file old
    old = next(archive.rglob("*0196ec1e*.jsonl"))
    stamp = time.mktime((2020, 1, 1, 0, 0, 0, 0, 0, -1))
    os.utime(old, (stamp, stamp))
    report = build_site(archive, tmp_path / "b", jobs=1, since="2021-01-01")
    assert report.sessions == 8
    with pytest.raises(InputError, match="not a date"):
        build_site(archive, tmp_path / "c", jobs=1, since="last tuesday")


def test_indexes_show_hidden_characters_in_titles_files_and_paths(tmp_path: Path) -> None:
    """Trojan Source in the index: a title, file name, cwd or parent path holding bidi
    controls or invisible characters is shown with visible marks, in cells and <title>."""
    import orjson

    root = tmp_path / "s" / "--home-evil--"
    root.mkdir(parents=True)
    header = {
        "type": "session",
        "version": 3,
        "id": "x",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/home/\u2066evil\u2069/\u3164",
        "parentSession": "/p/\u202efdp.jsonl",
    }
    user = {
        "type": "message",
        "id": "m",
        "parentId": None,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "title \u202eevil\u200b A\u034fB\u2800"},
    }
    (root / "2025-01-01T00-00-00-000Z_ev\u202elin\u3164.jsonl").write_bytes(
        orjson.dumps(header) + b"\n" + orjson.dumps(user) + b"\n"
    )
    broken = root / "2025-01-02T00-00-00-000Z_br\u202eoken.jsonl"
    broken.write_bytes(b"\x89PNG not a session")
    out = tmp_path / "site"
    report = build_site(tmp_path / "s", out, jobs=1)
    assert report.rendered == 1 and len(report.failed) == 1
    for page in (p for p in out.rglob("*.html") if p.name != "search.html"):  # text comes later
        soup = static_checks(page.read_text(encoding="utf-8"))
        assert "⟪U+" in soup.get_text(), page
    project = next(out.glob("*/index.html")).read_text(encoding="utf-8")
    for mark in ("U+2066", "U+3164", "U+202E", "U+034F", "U+2800"):
        assert mark in project, mark
