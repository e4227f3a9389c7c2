"""Issue 28, the archive half: titles, times, way-finding and figures a reader can trust."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from piexport.cli import cli
from piexport.read.loader import load_session
from piexport.read.model import title_of
from piexport.report.branches import duration

from tests.support.sessions import HEADER, MakeSession, msg, tool_result


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
        ("Why does `load_csv` drop the last row?", None, "Why does load_csv drop the last row?"),
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
    assert meta["Duration"].startswith("1m 05s active") and "1m 05s span" in meta["Duration"]

    out = tmp_path / "site"
    build_site(tmp_path / "root", out, jobs=1)
    [index] = out.glob("*/index.html")
    row = BeautifulSoup(index.read_text(), "html.parser").select_one("table.sessions tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[1] == "2025-01-01 10:00" and "1m 05s" in cells


def test_an_ordinary_header_time_is_not_shown(make_session: MakeSession) -> None:
    from piexport.page.render import render_session

    path = make_session([msg("u1", None, "user", "hi", 20)])  # header 20 s before: pi opened
    soup = BeautifulSoup(render_session(load_session(path)), "html.parser")
    started = next(d for d in soup.select("dl.meta > div") if d.dt.get_text() == "Started")
    assert started.dd.get_text() == "2025-01-01 10:00:20 UTC"


@pytest.mark.parametrize(
    ("paths", "labels"),
    [
        (
            ["/Users/lynch/.openclaw/workspace-main", "/Users/lynch/.openclaw/workspace-alt"],
            ["workspace-main", "workspace-alt"],
        ),
        (["/home/a/shop", "/home/b/shop", "/srv/ci"], ["a/shop", "b/shop", "ci"]),
        (["/shop", "/home/a/shop"], ["/shop", "a/shop"]),
        (["C:\\Users\\carol\\app", "/home/carol/app"], ["Users/carol/app", "/home/carol/app"]),
    ],
)
def test_project_labels_are_the_shortest_distinct_ends(paths: list[str], labels: list[str]) -> None:
    from piexport.site.links import project_labels

    got = project_labels({f"k{i}": p for i, p in enumerate(paths)})
    assert [got[f"k{i}"] for i in range(len(paths))] == labels


def _site_of(tmp_path: Path, sessions: dict[str, list[tuple[str, str]]]) -> Path:
    """sessions: folder → [(header time, first message)], one file each; built into site/."""
    from piexport.site.build import build_site

    root = tmp_path / "root"
    for cwd, items in sessions.items():
        folder = root / f"--{cwd.replace('/', '-')}--"
        folder.mkdir(parents=True, exist_ok=True)
        for n, (when, text) in enumerate(items):
            header = {**HEADER, "id": f"{cwd}-{n}", "timestamp": when, "cwd": f"/{cwd}"}
            entry = {**msg("u1", None, "user", text, 0), "timestamp": when}
            (folder / f"{when[:10]}_{n}.jsonl").write_bytes(
                b"\n".join(json.dumps(x).encode() for x in (header, entry)) + b"\n"
            )
    build_site(root, tmp_path / "site", jobs=1)
    return tmp_path / "site"


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(), "html.parser")


def test_every_page_has_the_trail_and_the_search_box(tmp_path: Path) -> None:
    site = _site_of(
        tmp_path,
        {
            "home/a/shop": [
                ("2025-01-01T10:00:00.000Z", "# First"),
                ("2025-01-02T10:00:00.000Z", "x"),
            ],
            "home/b/shop": [("2025-01-03T10:00:00.000Z", "third")],
        },
    )
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 3 + 2 + 1 + 1
    for page in pages:
        soup = _soup(page)
        trail = soup.select_one("nav.trail")
        assert trail is not None, page
        links = [a["href"] for a in trail.select(".crumbs a")]
        for href in links:
            assert (page.parent / href).resolve().is_file(), (page, href)
        if page.name != "search.html":
            box = trail.select_one(".site-search")
            assert (
                box is not None and (page.parent / box.a["href"]).resolve() == site / "search.html"
            )
        if page.parent != site:  # a project's index or a session: the archive is one click away
            assert (page.parent / links[0]).resolve() == site / "index.html"
    # labels tell the two shops apart, in the trail and the projects table
    root = _soup(site / "index.html")
    assert sorted(a.get_text() for a in root.select("#projects-table td.title > a")) == [
        "a/shop",
        "b/shop",
    ]


def test_session_pages_link_the_previous_and_next_session_of_their_project(
    tmp_path: Path,
) -> None:
    days = ["2025-01-03T10:00:00.000Z", "2025-01-01T10:00:00.000Z", "2025-01-02T10:00:00.000Z"]
    site = _site_of(tmp_path, {"p": [(d, f"session {d[:10]}") for d in days]})
    [folder] = [p.parent for p in site.glob("*/index.html")]
    order = []
    page = next(p for p in folder.glob("2025-01-01*.html"))
    assert _soup(page).select_one("a[rel=prev]") is None
    while page is not None:
        soup = _soup(page)
        order.append(soup.h1.get_text())
        nxt = soup.select_one("nav.trail a[rel=next]")
        if nxt is None:
            break
        back = _soup(folder / nxt["href"]).select_one("nav.trail a[rel=prev]")
        assert back is not None and back["href"] == page.name
        page = folder / nxt["href"]
    assert order == ["session 2025-01-01", "session 2025-01-02", "session 2025-01-03"]


def test_a_new_session_renders_its_neighbour_again_and_no_other(tmp_path: Path) -> None:
    from piexport.site.build import build_site

    days = ["2025-01-01T10:00:00.000Z", "2025-01-02T10:00:00.000Z"]
    site = _site_of(tmp_path, {"p": [(d, "s") for d in days]})
    [root] = (tmp_path / "root").iterdir()
    header = {**HEADER, "id": "new", "timestamp": "2025-01-05T10:00:00.000Z", "cwd": "/p"}
    entry = {**msg("u1", None, "user", "new", 0), "timestamp": "2025-01-05T10:00:00.000Z"}
    (root / "2025-01-05_9.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    report = build_site(tmp_path / "root", site, jobs=1)
    assert (report.rendered, report.unchanged) == (2, 1)  # the new one and the one before it


def test_the_root_index_opens_with_recent_sessions_then_projects_then_charts(
    tmp_path: Path,
) -> None:
    site = _site_of(
        tmp_path,
        {
            "w/x": [("2025-01-01T10:00:00.000Z", "# Exploration Mode")],
            "w/y": [
                ("2025-02-01T10:00:00.000Z", "# Exploration Mode"),
                ("2025-03-01T10:00:00.000Z", "# Exploration Mode"),
            ],
        },
    )
    soup = _soup(site / "index.html")
    sections = [s["id"] for s in soup.select("main.index-main > section")]
    assert sections == ["recent", "projects", "charts"]
    rows = soup.select("#recent-table tbody tr")
    assert [r.select_one("td.project").get_text() for r in rows] == ["y", "y", "x"]
    heads = [th.get_text() for th in soup.select("#recent-table th")]
    assert heads == ["Session", "Project", "Last activity", "Active", "Cost", "Errors"]
    # two sessions of one project with one title are told apart by date; not across projects
    y_index = _soup(next(p for p in site.glob("w-y-*/index.html")))
    dups = [d.get_text() for d in y_index.select("td.title .dup")]
    assert dups == ["· 2025-03-01 10:00", "· 2025-02-01 10:00"]
    assert [d.get_text() for d in soup.select("#recent-table .dup")] == dups
    titles = [a.get_text() for a in soup.select("#recent-table td.title a")]
    assert titles == ["Exploration Mode"] * 3


def test_search_says_no_matches(runner: CliRunner, make_session: MakeSession) -> None:
    path = make_session([msg("u1", None, "user", "hello there", 1)])
    result = runner.invoke(cli, ["search", "zebra", str(path.parent)])
    assert result.exit_code == 1
    assert result.stdout == "" and "no matches" in result.stderr


def test_tree_shows_ids_and_fits_a_width(runner: CliRunner, make_session: MakeSession) -> None:
    from piexport.report.outline import render_tree_text

    long = "a long request " * 20
    path = make_session(
        [msg("u1", None, "user", long, 1), msg("a1b2c3d4", "u1", "assistant", "ok", 2)]
    )
    out = runner.invoke(cli, ["tree", str(path)]).stdout  # not a terminal: ids, no cut
    assert [ln.split()[0] for ln in out.splitlines()] == ["u1", "a1b2c3d4"]
    assert long.strip()[:100] in out
    assert not runner.invoke(cli, ["tree", str(path), "--no-ids"]).stdout.startswith("u1")
    cut = render_tree_text(load_session(path), ids=True, width=40).splitlines()
    assert all(len(line) <= 40 for line in cut) and cut[0].endswith("…")
    assert cut[1].startswith("a1b2c3d4  ")


def _call(eid: str, parent: str, second: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "toolCall", "id": f"c-{eid}", "name": name, "arguments": args}
    return msg(eid, parent, "assistant", [block], second)


def _result(eid: str, parent: str, second: int, text: str) -> dict[str, Any]:
    return tool_result(eid, parent, text, second, f"c-{parent}", "tool")


def test_files_lists_what_changed_first_with_line_counts_and_the_net_change(
    make_session: MakeSession, runner: CliRunner
) -> None:
    from piexport.report.files import files_json

    cwd = HEADER["cwd"]
    records = [
        msg("u1", None, "user", "go", 1),
        _call("a1", "u1", 2, "read", {"path": f"{cwd}/notes.md"}),
        _result("r1", "a1", 3, "read me"),
        _call("a2", "r1", 4, "read", {"path": f"{cwd}/src/app.py"}),
        _result("r2", "a2", 5, "one\ntwo\nthree\n"),
        _call(
            "a3",
            "r2",
            6,
            "edit",
            {"path": f"{cwd}/src/app.py", "edits": [{"oldText": "two", "newText": "2\n2b"}]},
        ),
        _result("r3", "a3", 7, "ok"),
        _call(
            "a4",
            "r3",
            8,
            "edit",
            {"path": f"{cwd}/src/app.py", "oldText": "2b", "newText": "two-b"},
        ),
        _result("r4", "a4", 9, "ok"),
    ]
    path = make_session(records)
    data = files_json(load_session(path))
    assert [(f["path"], f["modified"]) for f in data["files"]] == [
        ("src/app.py", True),
        ("notes.md", False),
    ]
    app = data["files"][0]
    assert (app["linesAdded"], app["linesRemoved"]) == (3, 2)  # +2 -1, then +1 -1
    assert app["net"]["status"] == "changed"
    assert (app["net"]["added"], app["net"]["removed"]) == (2, 1)  # two → 2, two-b
    assert "-two\n+2\n+two-b\n" in app["net"]["diff"]
    text = runner.invoke(cli, ["files", str(path)]).stdout.splitlines()
    assert text[0].startswith("Modified (1)") and text[1].strip().startswith("src/app.py  +3 -2")
    assert "net +2 -1" in text[1] and text[-2:] == ["Read only (1)", "  notes.md  read x1"]


def test_paths_are_relative_to_the_cwd_in_compare_summary_and_branches(
    make_session: MakeSession, runner: CliRunner
) -> None:
    cwd = HEADER["cwd"]

    def write(eid: str, parent: str, second: int, name: str) -> list[dict[str, Any]]:
        args = {"path": f"{cwd}/src/{name}", "content": "x\n"}
        return [
            _call(eid, parent, second, "write", args),
            _result(f"r{eid}", eid, second + 1, "ok"),
        ]

    records = [
        msg("u1", None, "user", "go", 1),
        *write("a1", "u1", 2, "both.py"),
        *write("b1", "ra1", 4, "left.py"),  # one branch
        *write("c1", "ra1", 6, "right.py"),  # the other (current)
    ]
    path = make_session(records)
    got = json.loads(
        runner.invoke(cli, ["compare", str(path), "rb1", "rc1", "--format", "json"]).stdout
    )
    assert got["files"]["onlyA"] == ["src/left.py"] and got["files"]["onlyB"] == ["src/right.py"]
    md = runner.invoke(cli, ["summary", str(path)]).stdout
    assert "src/both.py\nsrc/right.py" in md and cwd not in md
    text = runner.invoke(cli, ["branches", str(path)]).stdout
    assert "modified: src/left.py" in text and cwd not in text


def test_duplicate_titles_are_told_apart_however_close_they_started() -> None:
    from piexport.site.indexes import tell_apart

    t = 1_735_725_600_000  # 2025-01-01 10:00:00 UTC
    rows = [
        {"title": "x", "started": t, "id": "aaaa"},
        {"title": "x", "started": t + 5000, "id": "bbbb"},
        {"title": "y", "started": t, "id": "cccc"},
        {"title": "y", "started": t, "id": "dddd"},
        {"title": "z", "started": t, "id": "eeee"},
    ]
    tell_apart(rows)
    assert [r["dupTitle"] for r in rows] == [
        "2025-01-01 10:00:00",
        "2025-01-01 10:00:05",
        "2025-01-01 10:00:00 · cccc",
        "2025-01-01 10:00:00 · dddd",
        None,
    ]


def test_a_fork_starts_at_its_own_first_turn(make_session: MakeSession, runner: CliRunner) -> None:
    """/fork copies the parent's path (older entries) under a new header: the session's own
    time starts at its first entry after the header, and the page names the copied start."""
    from piexport.page.render import render_session

    header = {**HEADER, "timestamp": "2025-01-01T10:30:00.000Z", "parentSession": "/p/a.jsonl"}
    path = make_session(
        [
            msg("u1", None, "user", "copied", 0),  # 10:00:00
            msg("a1", "u1", "assistant", [{"type": "text", "text": "copied"}], 5),
            {**msg("u2", "a1", "user", "mine", 0), "timestamp": "2025-01-01T10:31:00.000Z"},
            {**msg("a2", "u2", "assistant", "ok", 0), "timestamp": "2025-01-01T10:32:30.000Z"},
        ],
        header=header,
    )
    data = json.loads(runner.invoke(cli, ["summary", str(path), "--format", "json"]).stdout)
    assert data["session"]["started"] == "2025-01-01T10:31:00.000Z"
    assert data["session"]["durationSeconds"] == 90
    soup = BeautifulSoup(render_session(load_session(path)), "html.parser")
    meta = {d.dt.get_text(): d.dd.get_text(" ", strip=True) for d in soup.select("dl.meta > div")}
    assert meta["Started"].startswith("2025-01-01 10:31:00 UTC")
    assert "forked with starts 2025-01-01 10:00:00 UTC" in meta["Started"]
    assert meta["Duration"].startswith("1m 30s active") and "1m 30s span" in meta["Duration"]


def test_the_trail_dates_a_session_as_started_does(tmp_path: Path) -> None:
    """Issue 38, item 8: an /export copy's header is written after its entries; the trail's
    crumb and the header's "Started" both give the first entry's time."""
    from piexport.site.build import build_site

    folder = tmp_path / "root" / "--home-a-shop--"
    folder.mkdir(parents=True)
    header = {**HEADER, "timestamp": "2025-03-09T18:00:00.000Z", "cwd": "/home/a/shop"}
    entries = [
        {**msg("u1", None, "user", "hello", 0), "timestamp": "2025-03-07T09:15:00.000Z"},
        {**msg("u2", "u1", "user", "again", 0), "timestamp": "2025-03-07T09:20:00.000Z"},
    ]
    (folder / "2025-03-09T18-00-00-000Z_copy.jsonl").write_bytes(
        b"\n".join(json.dumps(x).encode() for x in (header, *entries)) + b"\n"
    )
    build_site(tmp_path / "root", tmp_path / "site", jobs=1)
    soup = _soup(next((tmp_path / "site").glob("home-a-shop*/2025*.html")))
    crumb = soup.select("nav.trail .crumbs li")[-1].get_text()
    started = next(
        d.dd.get_text() for d in soup.select("dl.meta > div") if d.dt.get_text() == "Started"
    )
    assert crumb == "session of 2025-03-07 09:15"
    assert started.startswith("2025-03-07 09:15:00 UTC")
