"""Figures that cannot be true cost their session at most, never the site (issue 27).

A year-9999 timestamp, token counts that add up past 64 bits, negative counts and costs: each
is reported with its file and line, left out of every sum and chart, and the site (pages,
indexes, manifest, search) is still written, by one run and by the next.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from piexport import load_session
from piexport.cli import cli
from piexport.read.figures import MAX_COST, MAX_TOKENS, usage_is_valid, usage_problems
from piexport.report.stats import file_figures
from piexport.site.build import build_site
from piexport.site.manifest import MANIFEST

from tests.support.hostile_corpus import figure_cases
from tests.support.sessions import HEADER, msg, to_lines


def usage(n: Any = 5, cost: Any = 0.25, **more: Any) -> dict[str, Any]:
    return {
        "input": n,
        "output": 1,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": n,
        "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
        **more,
    }


def answer(eid: str, parent: str, u: Any, second: int = 2, when: str | None = None) -> Any:
    entry = msg(
        eid,
        parent,
        "assistant",
        [{"type": "text", "text": "ok"}],
        second,
        provider="p",
        model="m",
        usage=u,
        stopReason="stop",
    )
    if when is not None:
        entry["timestamp"] = when
    return entry


def write(path: Path, records: list[Any], sid: str = "s") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(to_lines([{**HEADER, "id": sid}, *records]))
    return path


def archive(root: Path, *bad: list[Any]) -> Path:
    """A sessions folder: one good session, and one file per list of bad records."""
    folder = root / "--home-alice-src-demo--"
    write(folder / "good.jsonl", [msg("u1", None, "user", "hi", 1), answer("a1", "u1", usage())])
    for i, records in enumerate(bad):
        write(folder / f"bad{i}.jsonl", [msg("u1", None, "user", "hi", 1), *records], f"b{i}")
    return root


def heights(html: str) -> list[float]:
    return [float(h) for h in re.findall(r'<rect[^>]* height="([^"]+)"', html)]


# --- what a usage may hold ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("u", "why"),
    [
        (usage(-1), "input -1 is negative"),
        (usage(2**63 - 1), "input 9223372036854775807 is over"),
        (usage(MAX_TOKENS + 1), "is over"),
        (usage(5, -0.01), "cost.input -0.01 is negative"),
        (usage(5, MAX_COST * 2), "cost.input 200000.0 is over"),
        (usage(5, float("inf")), "is not a finite number"),
        (usage(5, reasoning=-3), "reasoning -3 is negative"),
        (usage(5, cacheWrite1h=2**70), "cacheWrite1h"),
    ],
)
def test_a_figure_that_cannot_be_true_is_named(u: Any, why: str) -> None:
    assert not usage_is_valid(u)
    assert why in "; ".join(usage_problems(u))


@pytest.mark.parametrize(
    "u",
    [usage(), usage(0, 0), usage(MAX_TOKENS, MAX_COST), usage("5", None), {"input": None}],
)
def test_figures_that_may_be_true_are_added(u: Any) -> None:
    assert usage_is_valid(u)
    assert list(usage_problems(u)) == []


def test_every_place_a_usage_lives_is_checked_with_its_line(tmp_path: Path) -> None:
    (case,) = [c for c in figure_cases() if c.name.startswith("negative")]
    path = tmp_path / "f.jsonl"
    path.write_bytes(case.data)
    session = load_session(path)
    named = {
        d.line: d.message for d in session.diagnostics if "left out of every total" in d.message
    }
    lines = {session.by_id[i].line: i for i in ("n1", "n2", "tr", "ue", "ce", "be")}
    assert set(named) == set(lines), named
    assert "input -500 is negative" in named[session.by_id["n1"].line]
    assert "cost.total 1e+300 is over" in named[session.by_id["n2"].line]
    assert "compaction usage" in named[session.by_id["ce"].line]
    assert "branch summary usage" in named[session.by_id["be"].line]
    assert "usage entry" in named[session.by_id["ue"].line]


def test_impossible_figures_are_left_out_of_the_totals(tmp_path: Path) -> None:
    """The totals are those of the one usage that may be true, whatever else the session
    holds (in every place a usage lives)."""
    good = [msg("u1", None, "user", "hi", 1), answer("a1", "u1", usage(5, 0.25))]
    alone = file_figures(load_session(write(tmp_path / "good.jsonl", good)))
    (case,) = [c for c in figure_cases() if c.name.startswith("negative")]
    bad = [r for r in map(orjson.loads, case.data.splitlines()) if r["id"] in case.valid[5:]]
    path = write(tmp_path / "s.jsonl", [*good, *bad])
    session = load_session(path)
    assert sum("left out of every total" in d.message for d in session.diagnostics) == 6
    fig = file_figures(session)
    assert fig.tokens == alone.tokens and fig.tokens["input"] == 5
    assert fig.cost == alone.cost == 0.25


# --- a time no calendar or chart holds --------------------------------------------------------


def test_a_time_outside_the_charted_years_is_named_and_not_charted(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        [
            msg("u1", None, "user", "hi", 1),
            answer("a1", "u1", usage(), when="9999-12-31T23:59:59.000Z"),
            answer("a2", "a1", usage(), when="9999-12-31T23:59:59.999-14:00"),
            answer("a3", "a2", usage(), when="0001-01-01T00:00:00+14:00"),
        ],
    )
    session = load_session(path)
    named = [d for d in session.diagnostics if "not charted" in d.message]
    assert [d.line for d in named] == [3, 4, 5]
    runner = CliRunner()
    for args in (["summary", "--format", "json"], ["branches", "--format", "json"], ["info"]):
        result = runner.invoke(cli, [*args, str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit), args
    data = orjson.loads(runner.invoke(cli, ["usage", str(tmp_path), "--format", "json"]).stdout)
    assert [r["key"] for r in data["rows"]] == ["2025-01-01", "(no date)"]


def _unstyled(html: str) -> str:
    """A page without its style sheet (whose colours may hold any digits)."""
    return re.sub(r"<style>.*?</style>", "", html, flags=re.DOTALL)


def test_a_year_9999_session_leaves_the_site_whole(tmp_path: Path) -> None:
    root = archive(tmp_path / "s", [answer("a1", "u1", usage(), when="9999-12-31T23:59:59.000Z")])
    out = tmp_path / "o"
    report = build_site(root, out, jobs=1)
    assert report.failed == [] and report.rendered == 2
    index = _unstyled((out / "index.html").read_text(encoding="utf-8"))
    assert "9999" not in index and "2025-01-01" in index  # charted: the good day only
    assert (out / MANIFEST).is_file() and (out / "search.html").is_file()
    page = next(out.glob("*/bad0.html")).read_text(encoding="utf-8")
    assert "is outside the years 2000-2099" in page  # the page says what was wrong
    assert build_site(root, out, jobs=1).unchanged == 2  # and the next run reads it


def test_tokens_past_64_bits_leave_a_manifest_and_a_server(tmp_path: Path) -> None:
    big = [
        answer(f"a{i}", "u1" if i == 0 else f"a{i - 1}", usage(2**63 - 1), i + 2) for i in range(3)
    ]
    # figures each true on their own whose sum no int64 holds: 3,000 calls of 2^53 tokens
    many = [
        answer(f"m{i}", "u1" if i == 0 else f"m{i - 1}", usage(MAX_TOKENS), 2) for i in range(3000)
    ]
    root = archive(tmp_path / "s", big, many)
    out = tmp_path / "o"
    report = build_site(root, out, jobs=1)
    assert report.failed == []
    manifest = json.loads((out / MANIFEST).read_bytes())  # exact: orjson rounds past 2^64
    tokens = {s["source"].rsplit("/", 1)[-1]: s["summary"]["tokens"] for s in manifest["sessions"]}
    assert tokens["bad0.jsonl"] == 0  # left out, named on its page
    whole = file_figures(load_session(root / "--home-alice-src-demo--" / "bad1.jsonl"))
    assert tokens["bad1.jsonl"] == whole.tokens["total"] > 2**64  # written exactly all the same
    assert build_site(root, out, jobs=1).unchanged == 3
    index = (out / "index.html").read_text(encoding="utf-8")
    assert min(heights(index)) >= 0


def test_negative_figures_draw_no_negative_bar(tmp_path: Path) -> None:
    root = archive(tmp_path / "s", [answer("a1", "u1", usage(-500_000, -4.5))])
    out = tmp_path / "o"
    build_site(root, out, jobs=1)
    for page in [out / "index.html", *out.glob("*/*.html")]:
        html = page.read_text(encoding="utf-8")
        assert all(h >= 0 for h in heights(html)), page
        if page.name == "index.html":  # totals (a message's own line shows what it says)
            assert "$-" not in html and "-500" not in html, page


# --- a site-wide stage that fails for one session ---------------------------------------------


def test_a_row_that_cannot_be_drawn_is_named_and_the_rest_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should drawing an index fail for one session (none is known to: the test makes one),
    that session is listed as failed and named; the indexes and the manifest are written."""
    import piexport.page.render as render

    real = render.index_charts

    def charts(sessions: Any, prefix: str = "") -> Any:
        if any(s.get("file") == "bad0.jsonl" and s.get("usage") for s in sessions):
            raise ValueError("year 10000 is out of range")
        return real(sessions, prefix)

    monkeypatch.setattr(render, "index_charts", charts)
    root = archive(tmp_path / "s", [answer("a1", "u1", usage())])
    out = tmp_path / "o"
    report = build_site(root, out, jobs=1)
    assert [rel for rel, _ in report.failed] == ["--home-alice-src-demo--/bad0.jsonl"]
    assert "year 10000 is out of range" in report.failed[0][1]
    project = next(out.glob("*/index.html")).read_text(encoding="utf-8")
    assert "cannot be listed in the index" in project and "good.html" in project
    assert (out / "index.html").is_file() and (out / MANIFEST).is_file()


def test_a_damaged_search_part_is_named_and_the_rest_is_indexed(tmp_path: Path) -> None:
    from piexport.search.index import CACHE, session_key

    root = archive(tmp_path / "s", [answer("a1", "u1", usage())])
    out = tmp_path / "o"
    build_site(root, out, jobs=1)
    (page,) = out.glob("*/bad0.html")
    part = out / CACHE / f"{session_key(page.relative_to(out).as_posix())}.json"
    data = orjson.loads(part.read_bytes())
    data["rows"][0][4] = "yesterday"
    part.write_bytes(orjson.dumps(data))
    folder = root / "--home-alice-src-demo--"  # a session more: the index is merged again
    write(folder / "new.jsonl", [msg("u1", None, "user", "a new one", 1)], "n1")
    report = build_site(root, out, jobs=1)
    assert len(report.failed) == 1 and "left out of the search index" in report.failed[0][1]
    meta = (out / "search" / "meta.js").read_text(encoding="utf-8")
    assert meta.count('"h":') == 2  # the two other sessions
    report = build_site(root, out, jobs=1)  # and the next build indexes it again
    assert report.failed == [] and report.rendered == 1
    assert (out / "search" / "meta.js").read_text(encoding="utf-8").count('"h":') == 3


def test_a_manifest_from_someone_else_is_read_as_stale(tmp_path: Path) -> None:
    root = archive(tmp_path / "s", [answer("a1", "u1", usage())])
    out = tmp_path / "o"
    build_site(root, out, jobs=1)
    data = orjson.loads((out / MANIFEST).read_bytes())
    data["sessions"][0]["summary"]["usage"]["days"] = [["9999-12-31", "m", "lots", None, 1]]
    data["sessions"][0]["summary"]["started"] = 10**30
    data["sessions"][1]["summary"]["tokens"] = "many"
    (out / MANIFEST).write_text(json.dumps(data))  # orjson writes no int past 64 bits
    report = build_site(root, out, jobs=1)
    assert report.failed == [] and report.rendered == 2 and report.unchanged == 0
    assert "9999" not in _unstyled((out / "index.html").read_text(encoding="utf-8"))


def test_serve_starts_over_a_site_of_impossible_figures(tmp_path: Path) -> None:
    """The first build of ``serve`` (and ``site --watch``) succeeds, so it keeps serving."""
    import threading

    from piexport.site.watch import watch_site

    root = tmp_path / "s"
    for case in figure_cases():
        path = root / "--c--" / f"{case.name}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(case.data)
    stop = threading.Event()
    stop.set()  # one build, then return
    state = watch_site(root, tmp_path / "o", stop=stop, jobs=1)
    assert state.builds == 1 and state.last is not None and state.last.failed == []
    assert (tmp_path / "o" / "index.html").is_file()
