"""Issue 38, item 2: a session's duration is its active time (gaps between entries over
15 minutes are idle), shown labelled "active" with the span kept and labelled "span", the
same figure in the session header, the index rows, the project page and the summary."""

from __future__ import annotations

import json
from pathlib import Path

from bs4 import BeautifulSoup
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from piexport.cli import cli
from piexport.page.render import render_session
from piexport.read.loader import load_session
from piexport.report.branches import list_branches
from piexport.report.stats import IDLE_GAP_MS, active_ms
from piexport.site.build import build_site

from tests.support.sessions import HEADER, to_lines

MIN = 60_000


def test_gaps_over_the_threshold_are_idle() -> None:
    assert active_ms([]) == 0
    assert active_ms([5]) == 0
    assert active_ms([0, 5 * MIN, 10 * MIN]) == 10 * MIN
    # a night between two sittings counts for nothing; the threshold itself still counts
    assert active_ms([0, 10 * MIN, 10 * MIN + 10 * 60 * MIN, 25 * MIN + 10 * 60 * MIN]) == 25 * MIN
    assert active_ms([0, IDLE_GAP_MS]) == IDLE_GAP_MS
    assert active_ms([0, IDLE_GAP_MS + 1]) == 0
    assert active_ms([10 * MIN, 0, 5 * MIN]) == 10 * MIN  # any order


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(min_value=-(10**13), max_value=10**13), max_size=40))
def test_active_time_is_never_negative_nor_more_than_the_span(times: list[int]) -> None:
    got = active_ms(times)
    assert 0 <= got <= (max(times) - min(times) if times else 0)


def _at(hour: int, minute: int) -> str:
    return f"2025-01-0{1 + hour // 24}T{hour % 24:02d}:{minute:02d}:00.000Z"


def _night_session(folder: Path) -> Path:
    """Two sittings: 10:00-10:10 and, after a night, 08:00-08:10 the next day."""
    times = [(10, 0), (10, 5), (10, 10), (32, 0), (32, 10)]
    records: list[dict[str, object]] = []
    for i, (h, m) in enumerate(times):
        role = "user" if i % 2 == 0 else "assistant"
        content = "question" if role == "user" else [{"type": "text", "text": "answer"}]
        records.append(
            {
                "type": "message",
                "id": f"e{i}",
                "parentId": f"e{i - 1}" if i else None,
                "timestamp": _at(h, m),
                "message": {"role": role, "content": content},
            }
        )
    path = folder / "p" / "2025-01-01T10-00-00-000Z_night.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(to_lines([HEADER, *records]))
    return path


def test_every_place_shows_the_same_active_time_and_span(tmp_path: Path) -> None:
    path = _night_session(tmp_path / "root")
    active, span = "20m 00s", "22h 10m"

    data = json.loads(CliRunner().invoke(cli, ["summary", str(path), "--format", "json"]).stdout)
    assert data["session"]["activeSeconds"] == 20 * 60
    assert data["session"]["durationSeconds"] == (22 * 60 + 10) * 60
    markdown = CliRunner().invoke(cli, ["summary", str(path)]).stdout
    assert "| active | span |" in markdown and "| 20m 00s | 22h 10m |" in markdown

    session = load_session(path)
    soup = BeautifulSoup(render_session(session), "html.parser")
    meta = {
        d.select_one("dt").get_text(): d.select_one("dd").get_text(" ", strip=True)  # type: ignore[union-attr]
        for d in soup.select("dl.meta > div")
    }
    assert meta["Duration"].startswith(f"{active} active")
    assert f"{span} span" in meta["Duration"]
    [branch] = list_branches(session)
    assert branch.active_seconds == 20 * 60

    out = tmp_path / "site"
    build_site(tmp_path / "root", out, jobs=1)
    for index in (out / "index.html", next(out.glob("*/index.html"))):
        table = BeautifulSoup(index.read_text(), "html.parser").select_one("table.sessions")
        assert table is not None, index
        heads = [th.get_text(strip=True) for th in table.select("thead th")]
        cells = table.select("tbody tr")[0].find_all("td")
        cell = cells[heads.index("Active")]
        assert cell.get_text(" ", strip=True) == f"{active} {span} span", index
        assert cell["data-value"] == "1200.0", index
