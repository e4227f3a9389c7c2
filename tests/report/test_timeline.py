"""Issue 38, "Where the time went": the timeline's figures (report/timeline.py), checked
against sums made here another way, and its drawing (page/timeline.py) kept bounded and
linked to entries that exist."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st

from piexport.page.render import render_session
from piexport.page.timeline import draw
from piexport.read.loader import load_session
from piexport.read.tree import timestamp_ms
from piexport.report.stats import IDLE_GAP_MS, active_ms, failure, path_figures
from piexport.report.timeline import KINDS, MAX_SPANS, kind_of, timeline

from tests.support.errors_session import errors_session
from tests.support.sessions import HEADER, bench_session, msg, sample_files, to_lines

HOUR = 3600


def _at(second: int) -> str:
    h, rem = divmod(second, 3600)
    m, s = divmod(rem, 60)
    return f"2025-01-0{1 + h // 24}T{h % 24:02d}:{m:02d}:{s:02d}.000Z"


def _turn(eid: str, parent: str, second: int, stop: str = "stop", cost: float = 0.01) -> Any:
    usage = {"input": 10, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 11}
    usage["cost"] = {"total": cost}
    r = msg(eid, parent, "assistant", [{"type": "text", "text": eid}], 0, stopReason=stop)
    r["message"]["usage"] = usage
    r["timestamp"] = _at(second)
    return r


def _entry(eid: str, parent: str | None, role: str, second: int, **extra: Any) -> Any:
    r = msg(eid, parent, role, "x" if role == "user" else [{"type": "text", "text": "x"}], 0)
    r["message"].update(extra)
    r["timestamp"] = _at(second)
    return r


def _write(tmp_path: Path, records: list[Any]) -> Path:
    path = tmp_path / "2025-01-01T00-00-00-000Z_t.jsonl"
    path.write_bytes(to_lines([HEADER, *records]))
    return path


def test_each_gap_is_the_time_of_the_entry_that_ends_it(tmp_path: Path) -> None:
    records = [
        _entry("u1", None, "user", 0),
        _turn("a1", "u1", 10, "toolUse"),  # model 10 s
        _entry("t1", "a1", "toolResult", 13, toolCallId="c", toolName="bash", isError=True),
        _turn("a2", "t1", 20, "error"),  # model 7 s, a failure
        _turn("a3", "a2", 25),  # model 5 s, a retry of a2
        _entry("u2", "a3", "user", 25 + 2 * HOUR),  # idle: a gap over 15 min
        _turn("a4", "u2", 25 + 2 * HOUR - 30),  # the clock runs backwards: no time
        _entry("u3", "a4", "user", 25 + 2 * HOUR + 40),  # you: 70 s after a4's time
    ]
    session = load_session(_write(tmp_path, records))
    t = timeline(session)
    assert t.entries == 8 and t.per_span == 1 and len(t.spans) == 8
    assert t.ms == {"model": 22_000, "tools": 3_000, "user": 70_000, "other": 0}
    assert (t.idle_ms, t.idle_gaps, t.backwards) == (2 * HOUR * 1000 - 25_000 + 25_000, 1, 1)
    assert t.marks["failure"] == 2  # the failed tool call and the turn that ended in an error
    assert t.marks["retry"] == 1 and t.spans[4].marks["retry"] == ["a3"]
    assert t.spans[5].marks["idle"] == ["u2"]
    assert t.cost == pytest.approx(0.04)
    # each run starts where the active time before it ends
    assert [s.start_ms for s in t.spans] == [0, 0, 10_000, 13_000, 20_000, 25_000, 25_000, 25_000]


def _independent(session: Any) -> dict[str, Any]:
    """The branch's figures added up here, without report/timeline.py."""
    path = session.path_entries()
    by_kind = dict.fromkeys(KINDS, 0)
    idle = 0
    prev = None
    for e in path:
        ms = timestamp_ms(e.timestamp)
        if ms is None:
            continue
        if prev is not None and ms >= prev:
            if ms - prev > IDLE_GAP_MS:
                idle += ms - prev
            else:
                by_kind[kind_of(e)] += ms - prev
        prev = ms
    return {
        "by_kind": by_kind,
        "idle": idle,
        "failures": sum(failure(e) is not None for e in path),
        "compactions": sum(e.type == "compaction" for e in path),
        "times": [t for e in path if (t := timestamp_ms(e.timestamp)) is not None],
    }


def _sessions(tmp_path: Path) -> list[Path]:
    big = tmp_path / "2025-06-01T09-00-00-000Z_bench.jsonl"
    big.write_bytes(bench_session(3000))
    return [*sample_files(), errors_session(tmp_path / "e"), big]


def test_figures_agree_with_sums_made_another_way(tmp_path: Path) -> None:
    for file in _sessions(tmp_path):
        session = load_session(file)
        t = timeline(session, max_spans=50)
        want = _independent(session)
        fig = path_figures(session)
        assert t.ms == want["by_kind"], file
        assert t.idle_ms == want["idle"], file
        # the runs add up to the branch
        for k in KINDS:
            assert sum(s.ms[k] for s in t.spans) == t.ms[k]
        assert sum(s.entries for s in t.spans) == t.entries == len(session.path_entries())
        assert len(t.spans) <= 50
        # the same errors, compactions and cost as the page header's current-branch row
        assert t.marks["failure"] == want["failures"] == fig.error_count, file
        assert t.marks["compaction"] == want["compactions"] == fig.compactions, file
        assert t.cost == (fig.cost if fig.costed else None), file
        assert t.estimated == (fig.cost_estimated if fig.estimated else None), file
        # entries in time order: the active time is stats.active_ms's of the branch
        if not t.backwards:
            assert t.active_ms == active_ms(want["times"]), file
            assert t.active_ms + t.idle_ms == max(want["times"]) - min(want["times"])


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(st.integers(min_value=0, max_value=40 * HOUR), min_size=2, max_size=30))
def test_no_negative_durations_whatever_the_clock(seconds: list[int]) -> None:
    import tempfile

    records = []
    for i, s in enumerate(seconds):
        parent = f"e{i - 1}" if i else None
        records.append(
            _turn(f"e{i}", parent or "", s) if i % 2 else _entry(f"e{i}", parent, "user", s)
        )
    records[0]["parentId"] = None
    with tempfile.TemporaryDirectory() as d:
        t = timeline(load_session(_write(Path(d), records)), max_spans=7)
    backwards = sum(b < a for a, b in pairwise(seconds))
    assert t.backwards == backwards
    assert all(v >= 0 for v in t.ms.values()) and t.idle_ms >= 0
    for s in t.spans:
        assert s.start_ms >= 0 and s.active_ms >= 0 and s.idle_ms >= 0
    forward = sum(b - a for a, b in pairwise(seconds) if b >= a) * 1000
    assert t.active_ms + t.idle_ms == forward
    view = draw(t, lambda i: "entry-" + i)
    assert all(p.w >= 0 and 0 <= p.x <= 1000.01 for r in view.runs for p in r.pieces)


def test_a_20000_entry_branch_stays_bounded(tmp_path: Path) -> None:
    file = tmp_path / "2025-06-01T09-00-00-000Z_big.jsonl"
    file.write_bytes(bench_session(20_000))
    session = load_session(file)
    t = timeline(session)
    assert len(t.spans) <= MAX_SPANS and t.per_span > 1
    view = draw(t, lambda i: "entry-" + i)
    assert view.elements < 2_500
    assert "Merged: each bar is" in view.note and f"{t.per_span:,} consecutive entries" in view.note
    assert len(view.rows) == len(t.spans)


def test_the_page_draws_it_and_every_mark_links_to_an_entry(tmp_path: Path) -> None:
    file = errors_session(tmp_path)
    html = render_session(load_session(file))
    soup = BeautifulSoup(html, "html.parser")
    panel = soup.select_one("details#timeline")
    assert panel is not None and panel.select_one("svg.timeline-svg") is not None
    links = panel.select("svg a")
    assert links
    ids = {t["id"] for t in soup.select("[id]")}
    for a in links:
        assert a["href"].startswith("#entry-") and a["href"][1:] in ids
        assert a.select_one("title") is not None
    # four failures on the current branch, each a tick linked to its own entry
    fails = panel.select("svg line.mark-failure")
    assert len(fails) == 4
    assert {a["href"] for a in panel.select("svg a") if a.select_one(".mark-failure")} == {
        "#entry-t1",
        "#entry-a2",
        "#entry-t5",
        "#entry-a7",
    }
    assert "4 failures" in panel.select_one("figcaption").get_text()
    # inline SVG only: nothing that loads or runs
    svg = str(panel.select_one("svg"))
    assert not re.search(r"<script|<image|<use|<foreignObject|href=\"(?!#)|url\(", svg)
