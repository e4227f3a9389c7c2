"""Charts (page/charts.py) and the Files panel: figures that agree with usage and summary,
legible from one day to three years and at 20,000 entries, no cost shown as "—", hostile
names escaped."""

from __future__ import annotations

import re
from datetime import date, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from piexport.page.charts import MAX_BARS, Chart, context_chart, index_charts
from piexport.page.render import make_env, render_session
from piexport.page.view import build_view
from piexport.read.loader import load_session
from piexport.report.summary import summary_json
from piexport.report.usage import load_sessions, usage_report
from piexport.site.build import build_site
from piexport.site.manifest import MANIFEST
from piexport.text.numbers import money, tokens

from tests.support.hostile_corpus import BIDI_MARKDOWN, INVISIBLE
from tests.support.pages import static_checks
from tests.support.payloads import PAYLOADS
from tests.support.sessions import HEADER, SAMPLES, msg, sample_files, tool_result

DEMO = next(SAMPLES.glob("--home-alice-src-piexport-demo--/*.jsonl"))


def chart_html(c: Chart) -> BeautifulSoup:
    module = make_env().get_template("macros/charts.html.j2").module
    return BeautifulSoup(str(module.chart(c)), "html.parser")  # type: ignore[attr-defined]


def svg_elements(soup: BeautifulSoup) -> int:
    return sum(1 + len(svg.find_all(True)) for svg in soup.find_all("svg"))


def assistant(eid: str, parent: str | None, second: int, **usage: Any) -> dict[str, Any]:
    rec = msg(eid, parent, "assistant", [{"type": "text", "text": "ok"}], second, usage=usage)
    rec["message"].update(provider="anthropic", model="claude")
    return rec


def long_session(turns: int, every: int = 2000) -> list[dict[str, Any]]:
    """user/assistant pairs, context growing, a compaction every ``every`` turns."""
    out: list[dict[str, Any]] = []
    parent = None
    for i in range(turns):
        u = msg(f"u{i}", parent, "user", "go", 1)
        a = assistant(
            f"a{i}", f"u{i}", 2, input=100 + i, cacheRead=10 * (i % every), cost={"total": 0.001}
        )
        out += [u, a]
        parent = f"a{i}"
        if i and i % every == 0:
            out.append(
                {
                    "type": "compaction",
                    "id": f"k{i}",
                    "parentId": parent,
                    "timestamp": "2025-01-01T10:00:03.000Z",
                    "summary": "s",
                    "firstKeptEntryId": parent,
                    "tokensBefore": 20000,
                }
            )
            parent = f"k{i}"
    return out


def test_a_long_session_chart_stays_small(make_session: Any) -> None:
    """3,000 turns, ten times the bars a chart draws, prove the binning as well as 10,000."""
    path = make_session(long_session(3_000, every=500))
    session = load_session(path)
    assert len(session.entries) > 6_000
    view = build_view(session)
    chart = context_chart(view)
    assert chart is not None
    assert len(chart.bars) <= MAX_BARS
    soup = chart_html(chart)
    count = svg_elements(soup)
    assert count < 2_000 and count == chart.svg_elements + 2  # + the axis and grid lines
    assert len(soup.select("line.mark.compaction")) == 5
    # each bar is the largest turn of its bin, and links to it
    first = soup.select("svg a")[0]
    assert first["href"] == "#" + view.dom_of("a9")
    assert "turns 1 to 10" in first.get_text()
    # the table has the same bins, and the total cost of every turn
    assert len(soup.select("tbody tr")) == len(chart.bars)
    assert soup.select_one("tfoot").get_text(" ").split()[-1] == money(3_000 * 0.001)


def test_context_chart_figures_agree_with_summary() -> None:
    session = load_session(DEMO)
    view = build_view(session)
    chart = context_chart(view)
    assert chart is not None
    path = summary_json(session)["path"]
    assert len(chart.rows) == path["messages"]["assistant"]  # one bar per turn: no binning
    context = sum(int(r[5].replace(",", "")) for r in chart.rows)
    assert (
        context
        == path["tokens"]["input"] + path["tokens"]["cacheRead"] + path["tokens"]["cacheWrite"]
    )
    assert chart.foot is not None and chart.foot[-1] == money(path["cost"])
    html = render_session(session)
    soup = static_checks(html)
    box = soup.select_one("#context-chart")
    assert box.name == "details" and not box.has_attr("open")  # collapsed: the talk comes first
    ids = {t["id"] for t in soup.find_all(id=True)}
    hrefs = [a["href"] for a in box.select("svg a") if a.select_one("rect")]
    marks = [a["href"] for a in box.select("svg a") if a.select_one("line")]
    assert marks and all(h[1:] in ids for h in marks)
    assert len(hrefs) == len(chart.bars) and all(h[1:] in ids for h in hrefs)
    assert len(box.select("line.mark.compaction")) == path["compactions"]
    assert box.select("line.mark.model")  # the demo switches model


def test_a_session_without_cost_shows_dashes(make_session: Any) -> None:
    recs = [msg("u1", None, "user", "hi", 1), assistant("a1", "u1", 2, input=5, output=1)]
    recs.append(assistant("a2", "a1", 3, input=9, output=1, cost={"total": 0}))
    html = render_session(load_session(make_session(recs)))
    box = BeautifulSoup(html, "html.parser").select_one("#context-chart")
    assert "$0" not in box.get_text() and "—" in box.select_one("tfoot").get_text()
    assert not box.select("polyline")  # no cost series at all
    assert all("cost —" in t.get_text() for t in box.select("svg rect title"))


def summaries(days: list[date]) -> list[dict[str, Any]]:
    return [
        {
            "usage": {
                "days": [
                    [d.isoformat(), "p/m", 1000, 0.5, 3],
                    [d.isoformat(), "q/n", 500, None, 1],
                ],
                "tools": {"bash": [4, 1]},
            }
        }
        for d in days
    ]


@pytest.mark.parametrize(
    ("days", "unit", "slots"),
    [
        ([date(2025, 3, 4)], "day", 7),
        ([date(2025, 3, 1), date(2025, 3, 31)], "day", 31),
        ([date(2024, 1, 1) + timedelta(days=i * 5) for i in range(100)], "week", 71),
        ([date(2022, 1, 1) + timedelta(days=i) for i in range(3 * 365)], "month", 36),
    ],
)
def test_time_charts_stay_legible(days: list[date], unit: str, slots: int) -> None:
    charts = {c.id: c for c in index_charts(summaries(days))}
    assert set(charts) == {"cost", "tokens", "sessions", "tools"}
    cost = charts["cost"]
    assert cost.width == slots * 10 and cost.title == f"Cost per {unit}, by model"
    assert len(cost.bars) <= slots  # q/n has no cost: one segment per period
    assert len(charts["tokens"].bars) <= 2 * slots
    soup = chart_html(charts["tokens"])
    print(f"{len(days)} days of data: {slots} {unit}s, {svg_elements(soup)} SVG elements")
    assert svg_elements(soup) < 400
    # the table adds up to every day's figures
    assert charts["tokens"].foot == [
        "Total",
        tokens(1000 * len(days)),
        tokens(500 * len(days)),
        tokens(1500 * len(days)),
    ]
    assert cost.foot == ["Total", money(0.5 * len(days)), "—", money(0.5 * len(days))]
    assert charts["sessions"].rows[0][1] != "0"
    tools = charts["tools"]
    assert tools.rows == [["bash", f"{4 * len(days):,}", f"{len(days):,}", "25%"]]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(SAMPLES, out, jobs=1)
    return out


def foot(soup: BeautifulSoup, chart: str) -> list[str]:
    return [c.get_text() for c in soup.select(f"figure.chart-{chart} tfoot tr > *")]


def test_index_charts_agree_with_usage(site: Path) -> None:
    soup = static_checks((site / "index.html").read_text(encoding="utf-8"))
    report = usage_report(load_sessions(sample_files(), []), "model").as_json()
    total = report["total"]
    assert foot(soup, "cost")[-1] == money(total["cost"])
    assert foot(soup, "tokens")[-1] == tokens(total["tokens"]["total"])
    # per model: the chart's columns are usage's model rows
    head = [th.get_text() for th in soup.select("figure.chart-tokens thead th")][1:-1]
    cells = foot(soup, "tokens")[1:-1]
    by_model = {r["key"]: r for r in report["rows"]}
    shown = dict(zip(head, cells, strict=True))
    for name, cell in shown.items():
        if name != "other models":
            assert cell == tokens(by_model[name]["tokens"]["total"])
    assert foot(soup, "tools")[1] == f"{total['toolCalls']:,}"
    assert foot(soup, "tools")[2] == f"{total['toolErrors']:,}"
    assert foot(soup, "projects")[1] == str(len(sample_files()))
    # every bar has its exact figure on hover and the chart a text title
    for fig in soup.select("figure.chart"):
        assert fig.select_one("figcaption").get_text().strip()
        assert all(r.select_one("title") for r in fig.select("svg rect"))
    # a project's index has the same charts for that project only
    proj = next(
        p for p in site.iterdir() if p.is_dir() and p.name.startswith("home-alice-src-shop")
    )
    psoup = static_checks((proj / "index.html").read_text(encoding="utf-8"))
    shop = usage_report(
        load_sessions(sorted(SAMPLES.glob("--home-alice-src-shop--/*.jsonl")), []), "day"
    )
    assert foot(psoup, "cost")[-1] == money(shop.as_json()["total"]["cost"])


def test_no_change_rebuild_reads_no_session(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = (site / "index.html").read_bytes()
    assert b'"usage"' in (site / MANIFEST).read_bytes()

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a session was loaded on a no-change rebuild")

    monkeypatch.setattr("piexport.export.pipeline.export_session", never)
    monkeypatch.setattr("piexport.site.build.session_summary", never)
    report = build_site(SAMPLES, site, jobs=1)
    assert report.rendered == 0 and report.unchanged == len(sample_files())
    assert (site / "index.html").read_bytes() == before


HOSTILE = [
    PAYLOADS[0],
    PAYLOADS[2],
    'x" onmouseover="alert(1)',
    "</title><script>alert(1)</script>",
    BIDI_MARKDOWN[0],
    INVISIBLE[0] if isinstance(INVISIBLE[0], str) else "\u2066x",
]


def hostile_records(p: str) -> list[dict[str, Any]]:
    a = msg(
        "a1",
        "u1",
        "assistant",
        [
            {"type": "toolCall", "id": "t1", "name": p, "arguments": {}},
            {
                "type": "toolCall",
                "id": "t2",
                "name": "edit",
                "arguments": {"path": p, "edits": [{"oldText": p, "newText": p}]},
            },
            {
                "type": "toolCall",
                "id": "t3",
                "name": "write",
                "arguments": {"path": "/c/" + p, "content": p},
            },
        ],
        2,
        usage={"input": 10, "output": 2, "cost": {"total": 0.01}},
    )
    a["message"].update(provider=p, model=p)
    r2 = tool_result("r2", "r1", p, 4, "t2", "edit")
    r2["message"]["details"] = {"diff": f"-1 {p}\n+1 {p}"}
    return [
        msg("u1", None, "user", "go", 1),
        a,
        {
            **tool_result("r1", "a1", p, 3, "t1", p),
            "message": {**tool_result("r1", "a1", p, 3, "t1", p)["message"], "isError": True},
        },
        r2,
        tool_result("r3", "r2", "ok", 5, "t3", "write"),
    ]


@pytest.mark.parametrize("payload", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_names_in_charts_and_files_are_escaped(payload: str, tmp_path: Path) -> None:
    import orjson

    root = tmp_path / "sessions"
    folder = root / "--x--"
    folder.mkdir(parents=True)
    records = [{**HEADER, "cwd": payload}, *hostile_records(payload)]
    (folder / "s.jsonl").write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    out = tmp_path / "site"
    report = build_site(root, out, jobs=1)
    assert report.failed == []
    pages = [out / "index.html", *out.glob("*/index.html"), *out.glob("*/s.html")]
    assert len(pages) == 3
    for page in pages:
        soup = static_checks(page.read_text(encoding="utf-8"))
        assert not soup.select("svg script, svg foreignObject, svg [onload]")
    session = BeautifulSoup((next(out.glob("*/s.html"))).read_text(encoding="utf-8"), "html.parser")
    files = session.select_one("#files")
    assert files is not None and files.select("table.diff")  # the edit's diff, escaped
    root_index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert root_index.select("figure.chart-tools tbody th")  # the tool name, as text


def test_cli_usage_and_chart_tables_agree_on_days(site: Path, runner: CliRunner) -> None:
    import orjson

    from piexport.cli import cli

    got = orjson.loads(
        runner.invoke(cli, ["usage", str(SAMPLES), "--by", "week", "--format", "json"]).stdout
    )
    soup = BeautifulSoup((site / "index.html").read_text(encoding="utf-8"), "html.parser")
    rows = soup.select("figure.chart-sessions tbody tr")
    # weeks with sessions in the chart are the weeks usage lists, with the same counts
    chart = {r.select_one("th").get_text(): int(r.select("td")[0].get_text()) for r in rows}
    weeks = {}
    for r in got["rows"]:
        year, week = r["key"].split("-W")
        monday = date.fromisocalendar(int(year), int(week), 1)
        weeks[f"week of {monday.isoformat()}"] = r["sessions"]
    assert chart == weeks
    assert re.fullmatch(r"\d+", str(sum(chart.values())))


def test_branch_summaries_and_model_changes_are_marked() -> None:
    shop = next(SAMPLES.glob("--home-alice-src-shop--/2025-03-04*.jsonl"))
    session = load_session(shop)
    view = build_view(session)
    chart = context_chart(view)
    assert chart is not None
    kinds = [m.cls for m in chart.marks]
    on_path = [e for e in session.path_entries() if e.type == "branch_summary"]
    assert kinds.count("branch") == len(on_path) == 1
    assert chart.marks[kinds.index("branch")].href == "#" + view.dom_of(on_path[0].id)
    models = [r[1] for r in chart.rows]
    changes = sum(a != b for a, b in pairwise(models))
    assert kinds.count("model") == changes >= 1
