"""``piexport usage`` and ``piexport files``: figures checked against the raw JSONL, read here
independently of the loader and of report/stats.py."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.read.loader import load_session
from piexport.report.files import files_json
from piexport.report.paths import shown_path
from piexport.report.summary import summary_json
from piexport.report.usage import format_table, load_sessions, usage_report

from tests.support.sessions import DATA, HEADER, SAMPLES, msg, sample_files, tool_result


def raw_records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        try:
            obj = orjson.loads(line.decode("utf-8", "replace"))  # as the loader reads it
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def _n(v: Any) -> float:
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def expected_by(paths: list[Path], key_of: Any) -> dict[str, dict[str, Any]]:
    """Rows as the README defines them, from the raw lines: messages on their entry's day,
    usage of every assistant message, tool calls, failed results."""
    rows: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "sessions": set(),
            "messages": 0,
            "toolCalls": 0,
            "toolErrors": 0,
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "total": 0,
            "cost": 0.0,
        }
    )
    for path in paths:
        for r in raw_records(path):
            m = r.get("message") if r.get("type") == "message" else None
            if r.get("type") == "message" and not isinstance(m, dict):
                continue
            u = usage_of(r)
            if m is None and u is None:
                continue
            key = key_of(path, r)
            if key is None:
                continue
            row = rows[key]
            row["sessions"].add(path)
            if u is not None:  # pi 1.5's /session: the four counts, their sum, cost.total
                parts = [_n(u.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite")]
                for k, v in zip(("input", "output", "cacheRead", "cacheWrite"), parts, strict=True):
                    row[k] += v
                row["total"] += sum(parts)
                if isinstance(u.get("cost"), dict):
                    row["cost"] += _n(u["cost"].get("total"))
            if m is None:
                continue
            row["messages"] += 1
            if m.get("role") == "toolResult" and m.get("isError") is True:
                row["toolErrors"] += 1
            if m.get("role") != "assistant":
                continue
            for b in m.get("content") if isinstance(m.get("content"), list) else []:
                if isinstance(b, dict) and b.get("type") == "toolCall":
                    row["toolCalls"] += 1
    return rows


def usage_of(r: dict[str, Any]) -> dict[str, Any] | None:
    """The usage object a record carries, where pi 1.5 counts one: an assistant message (even
    without usage), a tool result's own, a compaction's, a branch summary's, a usage entry."""
    if r.get("type") == "message":
        m = r["message"]
        if m.get("role") == "assistant":
            return m.get("usage") if isinstance(m.get("usage"), dict) else {}
        if m.get("role") == "toolResult" and isinstance(m.get("usage"), dict):
            return m["usage"]
        return None
    if r.get("type") in ("compaction", "branch_summary", "usage") and isinstance(
        r.get("usage"), dict
    ):
        return r["usage"]
    return None


def run_json(runner: CliRunner, *args: str) -> dict[str, Any]:
    result = runner.invoke(cli, ["usage", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def check_rows(got: dict[str, Any], want: dict[str, dict[str, Any]]) -> None:
    by_key = {r["key"]: r for r in got["rows"]}
    assert set(by_key) == set(want)
    for key, w in want.items():
        g = by_key[key]
        assert g["sessions"] == len(w["sessions"]), key
        assert g["messages"] == w["messages"], key
        assert g["toolCalls"] == w["toolCalls"], key
        assert g["toolErrors"] == w["toolErrors"], key
        for k in ("input", "output", "cacheRead", "cacheWrite", "total"):
            assert g["tokens"][k] == w[k], (key, k)
        assert (g["cost"] or 0) == pytest.approx(w["cost"], abs=1e-6), key


PI15 = DATA / "pi15"


@pytest.mark.parametrize("root", [SAMPLES, PI15], ids=["samples", "pi15"])
def test_usage_by_day_matches_the_raw_files(runner: CliRunner, root: Path) -> None:
    files = sorted(root.rglob("*.jsonl"))
    got = run_json(runner, str(root), "--by", "day")
    assert got["by"] == "day"
    want = expected_by(files, lambda p, r: r["timestamp"][:10])
    check_rows(got, want)
    assert [r["key"] for r in got["rows"]] == sorted(want)
    assert got["total"]["tokens"]["input"] == sum(w["input"] for w in want.values())
    assert got["total"]["cost"] == pytest.approx(sum(w["cost"] for w in want.values()))
    assert got["total"]["sessions"] == len(files)


def test_usage_by_kind_sets_cache_warming_and_summaries_apart(runner: CliRunner) -> None:
    files = sorted(PI15.rglob("*.jsonl"))

    def kind(p: Path, r: dict[str, Any]) -> str | None:
        if r["type"] in ("compaction", "branch_summary"):
            return {"compaction": "compaction", "branch_summary": "branch"}[r["type"]] + (
                " summaries"
            )
        if r["type"] == "usage":
            return r["kind"]
        role = r["message"]["role"]
        if role == "toolResult" and usage_of(r) is not None:
            return "tool work"
        return "turns" if role == "assistant" else None

    got = run_json(runner, str(PI15), "--by", "kind")
    want = expected_by(files, kind)
    assert {"turns", "cache_warm", "compaction summaries", "branch summaries", "tool work"} <= (
        set(want)
    )
    check_rows(got, want)  # (a failed result without usage of its own is in no row)
    total = got["total"]
    assert sum(r["cost"] for r in got["rows"]) == pytest.approx(total["cost"], abs=1e-6)
    assert sum(r["tokens"]["total"] for r in got["rows"]) == total["tokens"]["total"]


def test_usage_by_month_week_and_project_match_the_raw_files(runner: CliRunner) -> None:
    check_rows(
        run_json(runner, str(SAMPLES), "--by", "month"),
        expected_by(sample_files(), lambda p, r: r["timestamp"][:7]),
    )
    got = run_json(runner, str(SAMPLES), "--by", "week")
    assert all("-W" in r["key"] for r in got["rows"])
    assert sum(r["messages"] for r in got["rows"]) == got["total"]["messages"]
    cwd = {p: raw_records(p)[0].get("cwd") for p in sample_files()}
    check_rows(
        run_json(runner, str(SAMPLES), "--by", "project"),
        expected_by(sample_files(), lambda p, r: cwd[p]),
    )


def test_usage_by_model_matches_the_raw_files(runner: CliRunner) -> None:
    """Assistant messages (tokens, cost, tool calls) under their own model, as the files say."""

    def model(p: Path, r: dict[str, Any]) -> str | None:
        m = r["message"]
        if m.get("role") != "assistant":
            return None
        return f"{m['provider']}/{m['model']}" if m.get("provider") else m.get("model")

    want = expected_by(sample_files(), model)
    got = {r["key"]: r for r in run_json(runner, str(SAMPLES), "--by", "model")["rows"]}
    for key, w in want.items():
        assert got[key]["toolCalls"] == w["toolCalls"], key
        for k in ("input", "output", "cacheRead", "cacheWrite", "total"):
            assert got[key]["tokens"][k] == w[k], (key, k)
        assert (got[key]["cost"] or 0) == pytest.approx(w["cost"], abs=1e-6), key


@pytest.mark.parametrize("by", ["model", "session", "project", "day"])
def test_usage_rows_add_up_to_the_total(runner: CliRunner, by: str) -> None:
    got = run_json(runner, str(SAMPLES), "--by", by)
    total = got["total"]
    for k in ("messages", "toolCalls", "toolErrors"):
        assert sum(r[k] for r in got["rows"]) == total[k], k
    for k in ("input", "output", "cacheRead", "cacheWrite", "total"):
        assert sum(r["tokens"][k] for r in got["rows"]) == total["tokens"][k], k
    assert sum(r["cost"] or 0 for r in got["rows"]) == pytest.approx(total["cost"])
    assert total["toolErrors"] > 0  # the samples have failed tool calls: they must show in rows


def test_usage_by_model_puts_each_message_under_the_model_working_at_it(
    make_session: Any, runner: CliRunner, tmp_path: Path
) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "x"}}
    failed = msg("r1", "a1", "toolResult", [{"type": "text", "text": "no"}], 3, toolCallId="c1")
    failed["message"]["isError"] = True
    make_session(
        [
            msg("u1", None, "user", "first", 1),  # before any model: the one that answered
            msg("a1", "u1", "assistant", [call], 2, provider="p", model="one"),
            failed,  # the caller's
            {
                "type": "model_change",
                "id": "m1",
                "parentId": "r1",
                "timestamp": "2025-01-01T10:00:04.000Z",
                "provider": "p",
                "modelId": "two",
            },
            msg("u2", "m1", "user", "second", 5),  # after the change
            msg(
                "a2",
                "u2",
                "assistant",
                [{"type": "text", "text": "ok"}],
                6,
                provider="p",
                model="two",
            ),
        ]
    )
    rows = {r["key"]: r for r in run_json(runner, str(tmp_path), "--by", "model")["rows"]}
    assert {k: (r["messages"], r["toolErrors"]) for k, r in rows.items()} == {
        "p/one": (3, 1),
        "p/two": (2, 0),
    }


def test_usage_by_session_names_each_session(
    make_session: Any, runner: CliRunner, tmp_path: Path
) -> None:
    make_session([msg("u1", None, "user", "# Fix the parser", 1)], name="a.jsonl")
    got = run_json(runner, str(tmp_path), "--by", "session")
    [row] = got["rows"]
    assert row["key"].endswith("a.jsonl") and row["title"] == "Fix the parser"
    assert row["started"] == "2025-01-01T10:00:01.000Z"
    table = runner.invoke(cli, ["usage", str(tmp_path), "--by", "session"]).stdout
    assert "2025-01-01 10:00 Fix the parser" in table


def test_usage_by_tool_has_no_empty_columns(runner: CliRunner) -> None:
    table = runner.invoke(cli, ["usage", str(SAMPLES), "--by", "tool"]).stdout
    head = table.splitlines()[0].split()
    assert head == ["Tool", "Sess", "Calls", "Errs", "Rate"]


def test_usage_by_tool_counts_calls_and_errors(runner: CliRunner) -> None:
    got = run_json(runner, str(SAMPLES), "--by", "tool")
    calls: dict[str, int] = defaultdict(int)
    names: dict[str, str] = {}
    errors: dict[str, int] = defaultdict(int)
    for p in sample_files():
        for r in raw_records(p):
            m = r.get("message") if isinstance(r.get("message"), dict) else {}
            for b in m.get("content") if m.get("role") == "assistant" else []:
                if isinstance(b, dict) and b.get("type") == "toolCall":
                    calls[b["name"]] += 1
                    names[b["id"]] = b["name"]
        for r in raw_records(p):
            m = r.get("message") if isinstance(r.get("message"), dict) else {}
            if m.get("role") == "toolResult" and m.get("isError") is True:
                errors[names.get(m.get("toolCallId"), m.get("toolName"))] += 1
    assert {r["key"]: r["toolCalls"] for r in got["rows"]} == dict(calls)
    assert {r["key"]: r["toolErrors"] for r in got["rows"] if r["toolErrors"]} == dict(errors)
    assert got["total"]["toolCalls"] == sum(calls.values())
    assert got["total"]["toolErrors"] == sum(errors.values())


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name[:24])
def test_usage_agrees_with_summary(runner: CliRunner, path: Path) -> None:
    """One file's usage total is summary's whole-file figures: the same code made both."""
    got = run_json(runner, str(path))
    every = summary_json(load_session(path))["all"]
    total = got["total"]
    assert total["messages"] == sum(every["messages"].values())
    assert total["toolCalls"] == sum(every["toolCalls"].values())
    assert total["toolErrors"] == every["toolErrors"]
    for k in ("input", "output", "cacheRead", "cacheWrite", "total"):
        assert total["tokens"][k] == every["tokens"][k]
    assert (total["cost"] or 0) == pytest.approx(every["cost"])
    assert sum(r["tokens"]["total"] for r in got["rows"]) == total["tokens"]["total"]


def _turn(eid: str, parent: str | None, second: int, *, cost: Any, day: str) -> dict[str, Any]:
    usage: dict[str, Any] = {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0}
    if cost is not None:
        usage["cost"] = {"total": cost}
    rec = msg(eid, parent, "assistant", [{"type": "text", "text": "hi"}], second, usage=usage)
    rec["message"].update(provider="p", model="m")
    rec["timestamp"] = day
    return rec


def test_tz_since_until_and_project(make_session: Any, runner: CliRunner, tmp_path: Path) -> None:
    late = "2025-03-04T23:30:00.000Z"  # 5 March in Paris
    make_session([_turn("a1", None, 1, cost=0.5, day=late)], name="one.jsonl")
    other = {**HEADER, "cwd": "/srv/other"}
    make_session(
        [_turn("b1", None, 1, cost=0.25, day="2025-03-06T08:00:00.000Z")],
        header=other,
        name="two.jsonl",
    )
    utc = run_json(runner, str(tmp_path))
    assert [r["key"] for r in utc["rows"]] == ["2025-03-04", "2025-03-06"]
    paris = run_json(runner, str(tmp_path), "--tz", "Europe/Paris")
    assert [r["key"] for r in paris["rows"]] == ["2025-03-05", "2025-03-06"]
    since = run_json(runner, str(tmp_path), "--tz", "Europe/Paris", "--since", "2025-03-05")
    assert since["total"]["cost"] == pytest.approx(0.75)
    until = run_json(runner, str(tmp_path), "--until", "2025-03-04")
    assert until["total"]["cost"] == pytest.approx(0.5)
    assert run_json(runner, str(tmp_path), "--project", "/srv/*")["total"]["cost"] == 0.25
    bad = runner.invoke(cli, ["usage", str(tmp_path), "--tz", "Mars/Olympus"])
    assert bad.exit_code == 2 and "unknown time zone" in bad.output
    bad = runner.invoke(cli, ["usage", str(tmp_path), "--since", "last tuesday"])
    assert bad.exit_code == 2 and "not a date" in bad.output


def test_project_glob_matches_the_session_folder_name(
    make_session: Any, runner: CliRunner, tmp_path: Path
) -> None:
    """A header without a cwd (or one from another machine) still matches by the folder pi
    stored it in (``--<encoded cwd>--``)."""
    (tmp_path / "--home-me-shop--").mkdir()
    (tmp_path / "--home-me-blog--").mkdir()
    make_session(
        [_turn("a1", None, 1, cost=0.5, day="2025-03-04T10:00:00.000Z")],
        header={**HEADER, "cwd": "C:\\Users\\me\\shop"},
        name="--home-me-shop--/one.jsonl",
    )
    make_session(
        [_turn("b1", None, 1, cost=0.25, day="2025-03-04T11:00:00.000Z")],
        name="--home-me-blog--/two.jsonl",
    )
    shop = run_json(runner, str(tmp_path), "--project", "*shop*")
    assert shop["total"]["cost"] == 0.5 and shop["total"]["sessions"] == 1
    by_folder = run_json(runner, str(tmp_path), "--project", "--home-me-blog--")
    assert by_folder["total"]["cost"] == 0.25 and by_folder["total"]["sessions"] == 1
    assert run_json(runner, str(tmp_path), "--project", "--nowhere--")["rows"] == []


def test_no_cost_is_a_dash_never_zero(make_session: Any, runner: CliRunner, tmp_path: Path) -> None:
    day = "2025-03-04T10:00:00.000Z"
    make_session([_turn("a1", None, 1, cost=None, day=day)], name="none.jsonl")
    make_session([_turn("a1", None, 1, cost=0, day=day)], name="free.jsonl")
    got = run_json(runner, str(tmp_path))
    assert got["rows"][0]["cost"] is None and got["total"]["cost"] is None
    table = runner.invoke(cli, ["usage", str(tmp_path)]).stdout
    total = next(ln for ln in table.splitlines() if ln.startswith("Total"))
    assert "$0" not in table and total.rstrip().endswith("—")
    rows = list(
        csv.reader(
            io.StringIO(runner.invoke(cli, ["usage", str(tmp_path), "--format", "csv"]).stdout)
        )
    )
    assert rows[0][-2:] == ["cost", "costEstimated"] and rows[1][-2:] == ["", ""]
    assert rows[-1][0] == "total"


def test_table_fits_80_columns_with_a_totals_row(make_session: Any, tmp_path: Path) -> None:
    hostile = {
        **HEADER,
        "cwd": '=HYPERLINK("x")/' + "very-long-project-name/" * 5 + "\x1b[31m\u202e",
    }
    big = _turn("a1", None, 1, cost=1234.5, day="2025-03-04T10:00:00.000Z")
    big["message"]["usage"].update(input=987_654_321_000, cacheRead=12_345_678_901)
    make_session([big], header=hostile, name="long.jsonl")
    problems: list[str] = []
    from piexport.text.textsafe import terminal_safe

    report = usage_report(load_sessions([tmp_path / "long.jsonl"], problems), "project")
    table = format_table(report, terminal_safe)
    lines = table.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[0].startswith("Project") and lines[-1].startswith("Total")
    assert "\x1b" not in table and "\u202e" not in table
    assert "$1234.50" in lines[-1]
    from piexport.report.usage import format_notes

    assert all(len(line) <= 80 for line in format_notes("project").splitlines())
    from piexport.report.usage import format_csv

    text = format_csv(report)
    assert list(csv.reader(io.StringIO(text)))[1][0].startswith("'=HYPERLINK")  # shown, never run


def _edit(eid: str, parent: str, second: int, path: str, call: str) -> dict[str, Any]:
    block = {
        "type": "toolCall",
        "id": call,
        "name": "edit",
        "arguments": {"path": path, "edits": [{"oldText": "a", "newText": "b"}]},
    }
    return msg(eid, parent, "assistant", [block], second)


def test_files_on_every_branch_current_first(make_session: Any, runner: CliRunner) -> None:
    read = {
        "type": "toolCall",
        "id": "c0",
        "name": "read",
        "arguments": {"path": "/home/alice/src/demo/a.py"},
    }
    records = [
        msg("u1", None, "user", "go", 1),
        msg("a0", "u1", "assistant", [read], 2),
        tool_result("r0", "a0", "text", 3, "c0", "read"),
        _edit("a1", "r0", 4, "/home/alice/src/demo/b.py", "c1"),  # a branch left behind
        {
            **tool_result("r1", "a1", "ok", 5, "c1", "edit"),
        },
        _edit("a2", "r0", 6, "/home/alice/src/demo/a.py", "c2"),  # the current branch
        tool_result("r2", "a2", "ok", 7, "c2", "edit"),
        _edit("a3", "r2", 8, "/etc/hosts", "c3"),
        tool_result("r3", "a3", "ok", 9, "c3", "edit"),
    ]
    records[6]["message"]["details"] = {"diff": "-1 a\n+1 b"}
    path = make_session(records)
    data = files_json(load_session(path))
    assert [f["path"] for f in data["files"]] == ["a.py", "/etc/hosts", "b.py"]
    a, hosts, b = data["files"]
    assert a["reads"] == 1 and a["edits"] == 1 and a["onCurrentBranch"]
    assert a["changes"][0]["entry"] == "a2" and a["changes"][0]["diff"] == "-1 a\n+1 b"
    assert b["onCurrentBranch"] is False and b["changes"][0]["leaf"] == "r1"
    assert b["changes"][0]["edits"] == [{"oldText": "a", "newText": "b"}]
    assert hosts["rawPath"] == "/etc/hosts"
    out = runner.invoke(cli, ["files", str(path), "--format", "json"])
    assert out.exit_code == 0 and orjson.loads(out.stdout) == data
    text = runner.invoke(cli, ["files", str(path)]).stdout
    assert text.splitlines()[1].strip().startswith("a.py") and "entry a2 · current branch" in text


@pytest.mark.parametrize(
    ("cwd", "path", "shown"),
    [
        ("/home/a/p", "/home/a/p/src/x.py", "src/x.py"),
        ("/home/a/p", "/home/a/pp/x.py", "/home/a/pp/x.py"),
        ("/home/a/p", "src/x.py", "src/x.py"),
        ("C:\\Users\\a\\p", "C:\\Users\\a\\p\\src\\x.py", "src\\x.py"),
        ("C:\\Users\\a\\p", "c:\\users\\A\\P\\x.py", "x.py"),
        ("C:\\Users\\a\\p", "D:\\p\\x.py", "D:\\p\\x.py"),
        ("C:\\Users\\a\\p", "C:\\Users\\a\\pp\\x.py", "C:\\Users\\a\\pp\\x.py"),
        (None, "/x/y", "/x/y"),
    ],
)
def test_paths_relative_to_the_cwd(cwd: str | None, path: str, shown: str) -> None:
    assert shown_path(path, cwd) == shown


def test_a_file_that_is_not_a_session_is_named_and_the_rest_counted(
    make_session: Any, runner: CliRunner, tmp_path: Path
) -> None:
    make_session([_turn("a1", None, 1, cost=0.5, day="2025-03-04T10:00:00.000Z")], name="ok.jsonl")
    (tmp_path / "bad.jsonl").write_text("garbage\n")
    result = runner.invoke(cli, ["usage", str(tmp_path), "--format", "json"])
    assert result.exit_code == 1
    assert "bad.jsonl" in result.stderr
    assert orjson.loads(result.stdout)["total"]["cost"] == 0.5
