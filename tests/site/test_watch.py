"""``site --watch``: pages follow their sessions, lines being written wait, Ctrl+C leaves a
whole site."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from piexport.export.pipeline import RenderOptions, export_session
from piexport.read.loader import load_session
from piexport.site.build import build_site
from piexport.site.manifest import MANIFEST
from piexport.site.watch import wait_for

from tests.support.hostile_corpus import Case, cases
from tests.support.live import WAIT, append, copy_shop, live_site, main_content, message_line


def index_links_resolve(out: Path) -> list[str]:
    """Links of every index that lead to no file (empty when the site is whole)."""
    broken = []
    for index in [out / "index.html", *out.glob("*/index.html")]:
        for href in re.findall(r'href="([^"#:]+)"', index.read_text(encoding="utf-8")):
            if not (index.parent / href).is_file():
                broken.append(f"{index.relative_to(out)} → {href}")
    return broken


def test_appended_line_reaches_the_page(tmp_path: Path) -> None:
    source = copy_shop(tmp_path / "s")
    with live_site(tmp_path / "s", tmp_path / "o") as live:
        page = live.page_of(source)
        other = next(
            p for p in page.parent.glob("*.html") if p not in (page, page.parent / "index.html")
        )
        before = other.stat().st_mtime_ns
        assert "a line appended while watching" not in page.read_text(encoding="utf-8")
        append(source, message_line(source, "a line appended while watching", 1))
        live.wait(lambda: "a line appended while watching" in page.read_text(encoding="utf-8"))
        assert other.stat().st_mtime_ns == before  # only the changed session is made again


def test_deleted_and_renamed_sessions_leave_the_indexes(tmp_path: Path) -> None:
    source = copy_shop(tmp_path / "s")
    other = sorted(source.parent.glob("*.jsonl"))[1]
    with live_site(tmp_path / "s", tmp_path / "o") as live:
        index = next((tmp_path / "o").glob("*/index.html"))
        gone, kept = live.page_of(source), live.page_of(other)
        assert gone.name in index.read_text(encoding="utf-8")
        source.unlink()
        live.wait(lambda: gone.name not in index.read_text(encoding="utf-8"))
        assert not gone.exists() and kept.exists()
        renamed = other.with_name("renamed-session.jsonl")
        other.rename(renamed)
        live.wait(lambda: "renamed-session.html" in index.read_text(encoding="utf-8"))
        live.wait(lambda: not kept.exists())
        assert index_links_resolve(tmp_path / "o") == []


def test_a_line_being_written_waits_then_shows(tmp_path: Path) -> None:
    source = copy_shop(tmp_path / "s")
    line = message_line(source, "written in two halves", 1)
    with live_site(tmp_path / "s", tmp_path / "o", growing_seconds=30) as live:
        page = live.page_of(source)
        builds = live.state.builds
        append(source, line[:40])
        live.wait(lambda: live.state.builds > builds)
        report = live.state.last
        assert report is not None and report.warnings == [] and report.failed == []
        assert report.pending == [f"{source.parent.name}/{source.name}"]
        assert "truncated" not in page.read_text(encoding="utf-8")
        append(source, line[40:])
        live.wait(lambda: live.state.last is not None and live.state.last.pending == [])
        assert live.state.last.warnings == []
        assert "written in two halves" in page.read_text(encoding="utf-8")


def test_a_line_that_stops_growing_is_reported_as_cut_off(tmp_path: Path) -> None:
    source = copy_shop(tmp_path / "s")
    with live_site(tmp_path / "s", tmp_path / "o", growing_seconds=0.5) as live:
        page = live.page_of(source)
        append(source, message_line(source, "never finished", 1)[:50])
        live.wait(lambda: live.state.last is not None and bool(live.state.last.warnings))
        report = live.state.last
        assert report.pending == []
        assert any("truncated at end of file" in w for w in report.warnings)
        assert "truncated at end of file" in page.read_text(encoding="utf-8")


def test_pending_tail_only_defers_an_unterminated_last_line(tmp_path: Path) -> None:
    source = copy_shop(tmp_path)
    whole = load_session(source)
    assert load_session(source, pending_tail=True).entries == whole.entries
    append(source, message_line(source, "half", 1)[:30])
    finished = load_session(source)  # render's reading: a cut-off line is a warning
    assert [d.message for d in finished.diagnostics if "truncated" in d.message]
    waiting = load_session(source, pending_tail=True)
    assert waiting.diagnostics == whole.diagnostics
    assert len(waiting.entries) == len(whole.entries)


def test_rapid_appends_end_in_the_page_a_fresh_render_makes(tmp_path: Path) -> None:
    source = copy_shop(tmp_path / "s")
    with live_site(tmp_path / "s", tmp_path / "o") as live:
        page = live.page_of(source)
        for n in range(100):
            line = message_line(
                source, f"rapid append number {n}", n, "user" if n % 2 else "assistant"
            )
            append(source, line[:25])  # pi's writes are not always whole lines
            append(source, line[25:])
        fresh = tmp_path / "fresh.html"
        export_session(source, fresh, RenderOptions())
        # render knows nothing of the session forked from this one; the site links it
        want = _FORKS.sub("", main_content(fresh.read_text(encoding="utf-8")))
        live.wait(lambda: _FORKS.sub("", main_content(page.read_text(encoding="utf-8"))) == want)
        assert "rapid append number 99" in want
        assert "rapid append number 99" in live.page_of(source).read_text(encoding="utf-8")
        # and the whole site is what a fresh build of the final files makes
        build_site(tmp_path / "s", tmp_path / "fresh-site")
        assert (
            page.read_bytes() == next((tmp_path / "fresh-site").glob(f"*/{page.name}")).read_bytes()
        )


_FORKS = re.compile(r"\n *<div><dt>Forks</dt>.*?</div>")


def test_ctrl_c_during_writes_leaves_a_whole_site(tmp_path: Path) -> None:
    root, out = tmp_path / "s", tmp_path / "o"
    source = copy_shop(root)
    proc = subprocess.Popen(
        [sys.executable, "-m", "piexport", "site", str(root), "-o", str(out), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert "2 sessions in 1 project:" in first, first
        manifest = out / MANIFEST
        start = manifest.stat().st_mtime_ns
        n = 0
        # keep writing; interrupt once a build has started on what was written
        while manifest.stat().st_mtime_ns == start and n < 2000:
            append(source, message_line(source, f"written during Ctrl+C {n}", n))
            n += 1
            time.sleep(0.01)
        for m in range(n, n + 20):  # and while a build is likely under way
            append(source, message_line(source, f"written during Ctrl+C {m}", m))
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "the site is complete" in err
    assert [p for p in out.rglob("*") if p.name.endswith(".tmp")] == []
    data = orjson.loads(manifest.read_bytes())
    assert {r["source"] for r in data["sessions"]} == {
        f"{source.parent.name}/{p.name}" for p in source.parent.glob("*.jsonl")
    }
    for record in data["sessions"]:
        assert (out / record["page"]).is_file()
    assert index_links_resolve(out) == []


def test_watch_stops_when_the_first_build_cannot_run(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "piexport",
            "site",
            str(tmp_path / "nowhere"),
            "-o",
            str(tmp_path / "o"),
            "--watch",
        ],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ},
    )
    assert proc.returncode == 2  # unusable input, as without --watch
    assert proc.stderr.count("no such folder") == 1  # said once


def test_wait_for_gives_up() -> None:
    assert wait_for(lambda: False, 0.1) is False


def test_polling_sees_appends_within_one_second(tmp_path: Path) -> None:
    """--poll (network drives): a polling watcher may see two appends in one second as one;
    the watch compares sizes too, so the second one still reaches the page."""
    source = copy_shop(tmp_path / "s")
    with live_site(tmp_path / "s", tmp_path / "o", force_polling=True) as live:
        page = live.page_of(source)
        for n in range(3):
            append(source, message_line(source, f"polled append {n}", n))
            live.wait(lambda n=n: f"polled append {n}" in page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_hostile_corpus_reads_alike_while_watched(case: Case, tmp_path: Path) -> None:
    """Every file of the hostile corpus: a finished file (ending in a newline) reads the same
    while watched; an unfinished one loses only its last line, never crashes the reader."""
    from piexport.errors import InputError

    def read(path: Path, pending: bool) -> object:
        try:
            s = load_session(path, pending_tail=pending)
        except InputError:
            return "no session data"
        return repr(([e.raw for e in s.entries], [str(d) for d in s.diagnostics]))  # NaN too

    path = tmp_path / "case.jsonl"
    path.write_bytes(case.data)
    if case.data.endswith(b"\n"):
        assert read(path, True) == read(path, False), case.name
    else:
        cut = case.data[: case.data.rfind(b"\n") + 1]
        path.write_bytes(cut)
        whole_lines = read(path, False)
        path.write_bytes(case.data)
        assert read(path, True) == whole_lines, case.name


def test_the_hostile_corpus_has_files_cut_off_mid_line() -> None:
    """So the test above also reads unfinished files as a watch does."""
    assert any(not case.data.endswith(b"\n") for case in cases())


def test_a_first_build_that_fails_is_raised_not_watched(tmp_path: Path) -> None:
    """With no site there is nothing to keep current: the first build's error is raised even
    when the caller passes on_error (which later builds' errors go to)."""
    import threading

    from piexport.errors import InputError
    from piexport.site.watch import watch_site

    seen: list[Exception] = []
    with pytest.raises(InputError, match="no such folder"):
        watch_site(
            tmp_path / "nowhere", tmp_path / "o", stop=threading.Event(), on_error=seen.append
        )
    assert seen == []


@pytest.mark.parametrize("how", ["deleted", "renamed-over", "project-folder"])
def test_a_sessions_folder_deleted_and_made_again_is_followed(tmp_path: Path, how: str) -> None:
    """The folder watched goes away and comes back (``rm -rf`` and a restore, a ``mv`` of a
    new copy over it, a project folder made again): the watch follows the new folder, so
    the deleted sessions' pages go and the new ones come, with no ``--poll`` (issue 27)."""
    import shutil

    root = tmp_path / "s"
    source = copy_shop(root)
    with live_site(root, tmp_path / "o") as live:
        old_page = live.page_of(source)
        fresh = tmp_path / "fresh"
        copy_shop(fresh)
        for f in (fresh / source.parent.name).glob("*.jsonl"):
            f.rename(f.with_name("new-" + f.name))
        if how == "deleted":
            shutil.rmtree(root)
            live.wait(lambda: live.state.last is not None and not root.exists())
            fresh.rename(root)
        elif how == "renamed-over":
            shutil.rmtree(root)
            fresh.rename(root)
        else:  # only the project folder, inside the watched root
            shutil.rmtree(source.parent)
            (fresh / source.parent.name).rename(source.parent)
        new = sorted((root / source.parent.name).glob("new-*.jsonl"))[0]
        live.wait(lambda: not old_page.exists())
        live.wait(lambda: any(live.out.glob(f"*/{new.stem}.html")))
        # and it goes on following the new folder
        append(new, message_line(new, "written into the new folder", 1))
        page = live.page_of(new)
        live.wait(lambda: "written into the new folder" in page.read_text(encoding="utf-8"))
