"""Issue 28, the archive half: titles, times, way-finding and figures a reader can trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from piexport.cli import cli
from piexport.read.loader import load_session
from piexport.read.model import title_of
from piexport.report.branches import duration

from .conftest import HEADER, MakeSession, msg


@pytest.mark.parametrize(
    ("text", "chip", "words"),
    [
        ("# Exploration Mode\n\nLook around first.", None, "Exploration Mode"),
        ("## Plan ##", None, "Plan"),
        ("> quoted **bold** text", None, "quoted bold text"),
        (
            '<skill name="improve-codebase-architecture" location="/u/.pi/skills/x/SKILL.md">\n'
            "Long skill text\n</skill>\n\nmake the loader smaller",
            "skill: improve-codebase-architecture",
            "make the loader smaller",
        ),
        ('<skill name="tidy" location="/s/SKILL.md">\nbody\n</skill>', "skill: tidy", ""),
        ("/mode", "/mode", ""),
        ("/review the **parser**", "/review", "the parser"),
        ("/home/alice/notes.txt is broken", None, "/home/alice/notes.txt is broken"),
        (
            '<file name="/a/b/notes.md">\nhello\n</file>\n<file name="/a/c.txt">\nx\n</file>\n'
            "summarise these",
            "file: notes.md +1",
            "summarise these",
        ),
        ("#hashtag is not a heading", None, "#hashtag is not a heading"),
    ],
)
def test_titles_are_readable(text: str, chip: str | None, words: str) -> None:
    t = title_of(text)
    assert (t.chip, t.text) == (chip, words)
    assert t.raw == " ".join(next(ln for ln in text.split("\n") if ln.strip()).split())
    assert str(t) == (f"{chip} · {words}" if chip and words else chip or words)


def test_duration_is_never_negative_and_reads_well() -> None:
    assert duration(-7140) == "—"
    assert [duration(s) for s in (0, 45, 725, 7140, 3 * 86_400 + 4 * 3600 + 5)] == [
        "0s",
        "45s",
        "12m 05s",
        "1h 59m",
        "3d 4h",
    ]


def _export_copy(make_session: MakeSession, name: str = "root/p/s.jsonl") -> Path:
    """An /export copy: the header is written two hours after every entry."""
    header = {**HEADER, "timestamp": "2025-01-01T12:00:00.000Z"}
    entries = [
        msg("u1", None, "user", "# Exploration Mode\nlook", 0),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "ok"}], 65),
    ]
    return make_session(entries, header=header, name=name)


def test_start_and_end_come_from_the_entries(
    make_session: MakeSession, runner: CliRunner, tmp_path: Path
) -> None:
    from piexport.page.render import render_session
    from piexport.site.build import build_site

    (tmp_path / "root" / "p").mkdir(parents=True)
    path = _export_copy(make_session)
    data = json.loads(runner.invoke(cli, ["summary", str(path), "--format", "json"]).stdout)
    assert data["session"]["started"] == "2025-01-01T10:00:00.000Z"
    assert data["session"]["ended"] == "2025-01-01T10:01:05.000Z"
    assert data["session"]["headerTime"] == "2025-01-01T12:00:00.000Z"
    assert data["session"]["durationSeconds"] == 65

    soup = BeautifulSoup(render_session(load_session(path)), "html.parser")
    meta = {d.dt.get_text(): d.dd.get_text(" ", strip=True) for d in soup.select("dl.meta > div")}
    assert meta["Started"].startswith("2025-01-01 10:00:00 UTC")
    assert "the file is dated 2025-01-01 12:00:00 UTC" in meta["Started"]
    assert meta["Last entry"].endswith("1m 05s")

    out = tmp_path / "site"
    build_site(tmp_path / "root", out, jobs=1)
    [index] = out.glob("*/index.html")
    row = BeautifulSoup(index.read_text(), "html.parser").select_one("table.sessions tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[1].startswith("2025-01-01 10:00:00") and "1m 05s" in cells


def test_an_ordinary_header_time_is_not_shown(make_session: MakeSession) -> None:
    from piexport.page.render import render_session

    path = make_session([msg("u1", None, "user", "hi", 20)])  # header 20 s before: pi opened
    soup = BeautifulSoup(render_session(load_session(path)), "html.parser")
    started = next(d for d in soup.select("dl.meta > div") if d.dt.get_text() == "Started")
    assert started.dd.get_text() == "2025-01-01 10:00:20 UTC"
