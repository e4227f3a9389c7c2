"""Discovery at any depth: pi's ``~/.pi/agent/sessions/--<cwd>--/*.jsonl`` from any folder
above it, any folder of session files; hidden, tool and site folders skipped; symlink loops
looked into once; the walk bounded by counting; one line when nothing is found."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.read import discover as discover_module
from piexport.read.discover import SITE_MARKER, find_sessions
from piexport.site.build import build_site

from tests.support.sessions import SAMPLES

SAMPLE_COUNT = 9


def _pi_home(tmp_path: Path) -> Path:
    """A home folder with pi's layout: ~/.pi/agent/sessions/--<cwd>--/*.jsonl."""
    home = tmp_path / "home"
    shutil.copytree(
        SAMPLES, home / ".pi" / "agent" / "sessions", ignore=shutil.ignore_patterns("*.md")
    )
    return home


def test_the_samples_hold_nine_sessions() -> None:
    assert len(list(SAMPLES.glob("*/*.jsonl"))) == SAMPLE_COUNT


@pytest.mark.parametrize("start", [".pi", ".pi/agent", ".pi/agent/sessions", "."])
def test_pi_layout_is_found_from_any_folder_above_it(tmp_path: Path, start: str) -> None:
    home = _pi_home(tmp_path)
    found = find_sessions(home / start)
    assert len(found.files) == SAMPLE_COUNT, found
    assert found.files == sorted(found.files)


def test_site_of_dot_pi_archives_every_session(tmp_path: Path) -> None:
    """``piexport site ~/.pi`` printed "0 sessions" and wrote an empty site."""
    home = _pi_home(tmp_path)
    report = build_site(home / ".pi", tmp_path / "site", jobs=1)
    assert report.sessions == SAMPLE_COUNT and report.nothing_found is None


def test_sessions_one_level_further_down(tmp_path: Path) -> None:
    """``…/sessions/--cwd--/*.jsonl`` under ROOT: all of them, not 4 of 30."""
    root = tmp_path / "backup"
    shutil.copytree(SAMPLES, root / "machine-a" / "sessions", ignore=shutil.ignore_patterns("*.md"))
    assert len(find_sessions(root).files) == SAMPLE_COUNT
    runner = CliRunner()
    usage = runner.invoke(cli, ["usage", str(root), "--format", "json"])
    assert usage.exit_code == 0, usage.output
    assert json.loads(usage.stdout)["total"]["sessions"] == SAMPLE_COUNT
    search = runner.invoke(cli, ["search", "coupon", str(root), "--format", "json"])
    assert search.exit_code == 0, search.output
    assert "machine-a/sessions/" in search.stdout


def test_skipped_folders_and_other_jsonl(tmp_path: Path) -> None:
    home = _pi_home(tmp_path)
    one = next((home / ".pi/agent/sessions").rglob("*.jsonl"))
    for skipped in ("node_modules/pkg", ".cache/x", "proj/__pycache__"):
        (home / skipped).mkdir(parents=True)
        shutil.copy(one, home / skipped / "copy.jsonl")
    # a deep JSONL file that is not a session (a log) is not one; a shallow one still is
    (home / "logs" / "app").mkdir(parents=True)
    (home / "logs" / "app" / "events.jsonl").write_text('{"level": "info"}\n')
    (home / "flat.jsonl").write_text('{"level": "info"}\n')
    names = {p.relative_to(home).as_posix() for p in find_sessions(home).files}
    assert len(names) == SAMPLE_COUNT + 1 and "flat.jsonl" in names
    assert not any("node_modules" in n or ".cache" in n or "__pycache__" in n for n in names)


def test_the_sites_own_folder_is_not_looked_into(tmp_path: Path) -> None:
    """``site ROOT -o ROOT/site`` (or any site under ROOT) adds nothing to the next run."""
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    first = build_site(root, root / "site" / "out", jobs=1)
    # a session file copied into the site folder (it would be found, three levels down)
    one = next(root.glob("*/*.jsonl"))
    shutil.copy(one, root / "site" / "out" / "stray.jsonl")
    again = build_site(root, root / "site" / "out", jobs=1)
    assert first.sessions == again.sessions == SAMPLE_COUNT
    # another site, not this build's output, is skipped by its manifest
    other = tmp_path / "sessions" / "old-site"
    other.mkdir()
    (other / SITE_MARKER).write_text("{}")
    shutil.copy(one, other / "x.jsonl")
    assert len(find_sessions(root).files) == SAMPLE_COUNT


def test_symlink_loops_are_looked_into_once(tmp_path: Path) -> None:
    home = _pi_home(tmp_path)
    sessions = home / ".pi/agent/sessions"
    os.symlink(sessions, sessions / "loop")  # sessions/loop → sessions
    os.symlink(home, sessions / "up")  # sessions/up → home, home holds .pi again
    found = find_sessions(home)
    assert len(found.files) == SAMPLE_COUNT
    assert found.folders == len({p.parent for p in found.files}) + 4  # home, .pi, agent, sessions


def test_the_walk_is_bounded_by_counting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "wide"
    for i in range(30):
        (root / f"d{i:02}").mkdir(parents=True)
    shutil.copy(next(SAMPLES.glob("*/*.jsonl")), root / "d29" / "s.jsonl")
    monkeypatch.setattr(discover_module, "MAX_FOLDERS", 10)
    found = find_sessions(root)
    assert found.folders == 10 and found.cut
    deep = tmp_path / "deep"
    path = deep.joinpath(*[f"l{i}" for i in range(12)])
    path.mkdir(parents=True)
    shutil.copy(next(SAMPLES.glob("*/*.jsonl")), path / "s.jsonl")
    found = find_sessions(deep)
    assert found.files == [] and found.cut and found.deepest == discover_module.MAX_DEPTH


@pytest.mark.parametrize(
    "args",
    [["site", "{root}", "-o", "{out}"], ["usage", "{root}"], ["search", "anything", "{root}"]],
    ids=["site", "usage", "search"],
)
def test_nothing_found_is_said_once_with_where_it_looked(tmp_path: Path, args: list[str]) -> None:
    root = tmp_path / "empty"
    (root / "a" / "b").mkdir(parents=True)
    argv = [a.format(root=root, out=tmp_path / "site") for a in args]
    result = CliRunner().invoke(cli, argv)
    lines = [line for line in result.stderr.splitlines() if "no session files found" in line]
    assert len(lines) == 1, result.stderr
    assert str(root) in lines[0] and "3 folder(s)" in lines[0]
