"""Issue 39: one vocabulary of options (``--format`` names, ``--project/--since/--until``),
sessions found without their path (``list``, an id prefix, ``--latest``), relative dates
counted from an injected day, and ``site --open``."""

from __future__ import annotations

import json
import os
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.text.columns import cells

from tests.support.sessions import HEADER, SAMPLES, msg

SHOP = "01955b2a-9478-7600-81f5-f1342a9fccd3"
SHOP_FILE = f"2025-03-03T08-41-12-056Z_{SHOP}.jsonl"


@pytest.fixture
def pi_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pi's sessions folder (``$PI_CODING_AGENT_DIR/sessions``) holding the samples, each
    file written at a known time (the newest: the data pipeline's 2025-01-20 session)."""
    sessions = tmp_path / "agent" / "sessions"
    shutil.copytree(SAMPLES, sessions, ignore=shutil.ignore_patterns("*.md"))
    for n, path in enumerate(sorted(sessions.rglob("*.jsonl"))):
        os.utime(path, ns=(1_700_000_000_000_000_000 + n, 1_700_000_000_000_000_000 + n))
    newest = next(sessions.rglob("*_019483f7-*.jsonl"))
    os.utime(newest, ns=(1_800_000_000_000_000_000, 1_800_000_000_000_000_000))
    for name in ("PI_CODING_AGENT_SESSION_DIR", "PI_SESSIONS_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.chdir(tmp_path)
    return sessions


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), env=env)


# ---- --format: the same names everywhere


@pytest.mark.parametrize("name", ["md", "markdown", "MD"])
@pytest.mark.parametrize("command", ["summary", "render", "compare"])
def test_md_and_markdown_are_one_format(pi_home: Path, command: str, name: str) -> None:
    file = str(next(pi_home.rglob(SHOP_FILE)))
    argv = {
        "summary": ["summary", file],
        "render": ["render", file, "-o", "-"],
        "compare": ["compare", file, "u1", "a1"],
    }[command]
    result = run(*argv, "--format", name)
    assert result.exit_code in (0, 2), result.output  # compare: leaves may not be there
    assert "Invalid value for '--format'" not in result.output


def test_every_command_that_prints_figures_gives_json(pi_home: Path) -> None:
    file = str(next(pi_home.rglob(SHOP_FILE)))
    for argv in (
        ["summary", file],
        ["info", file],
        ["branches", file],
        ["files", file],
        ["tree", file],
        ["context", file],
        ["usage", str(pi_home)],
        ["list", str(pi_home)],
        ["search", "coupon", str(pi_home)],
    ):
        result = run(*argv, "--format", "json")
        assert result.exit_code == 0, (argv, result.output)
        assert isinstance(json.loads(result.stdout), (dict, list)), argv


def test_info_json_still_works_and_says_it_is_going(pi_home: Path) -> None:
    file = str(next(pi_home.rglob(SHOP_FILE)))
    old, new = run("info", file, "--json"), run("info", file, "--format", "json")
    assert old.exit_code == new.exit_code == 0
    assert old.stdout == new.stdout
    assert "deprecated" in old.stderr and "--format json" in old.stderr
    assert "deprecated" not in new.stderr


def test_table_and_text_are_one_format(pi_home: Path) -> None:
    a, b = run("usage", str(pi_home), "--format", "table"), run("usage", str(pi_home))
    assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout


# ---- list, an id prefix, --latest


def test_list_shows_every_session_with_its_file_title_start_size_and_cost(pi_home: Path) -> None:
    result = run("list", str(pi_home), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["sessions"]
    files = sorted(str(p) for p in pi_home.rglob("*.jsonl"))
    assert sorted(r["file"] for r in rows) == files
    shop = next(r for r in rows if r["id"] == SHOP)
    assert shop["title"] == "Reject coupons larger than the cart"
    assert shop["started"].startswith("2025-03-03T08:41")
    assert shop["bytes"] == next(pi_home.rglob(SHOP_FILE)).stat().st_size
    assert shop["cost"] > 0
    starts = [r["started"] for r in rows]
    assert starts == sorted(starts)  # oldest first
    table = run("list", env={"COLUMNS": "260"})  # pi's folder by default
    assert table.exit_code == 0
    line = next(line for line in table.stdout.splitlines() if SHOP[:8] in line)
    assert "Reject coupons larger than the cart" in line and "2025-03-03 08:41" in line
    assert SHOP_FILE in line  # the file's name whole at this width


def test_list_chooses_by_project_and_dates(pi_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def ids(*args: str) -> list[str]:
        result = run("list", *args, "--format", "json")
        assert result.exit_code == 0, result.output
        return [r["id"][:8] for r in json.loads(result.stdout)["sessions"]]

    assert ids("--project", "*/shop") == ["01955b2a", "01955f7c"]
    assert ids("--since", "2025-05-21") == ["0196f145", "0196f5fc"]
    assert ids("--until", "2024-12-31") == ["8d9a7f1e", "4f3e2d1c"]
    monkeypatch.setattr("piexport.cli.options.today", lambda: date(2025, 5, 23))
    assert ids("--since", "2d") == ["0196f145", "0196f5fc"]
    assert ids("--since", "yesterday") == ["0196f5fc"]
    assert ids("--since", "1w", "--until", "yesterday") == ["0196ec1e", "0196f145", "0196f5fc"]


def test_an_id_prefix_finds_its_session(pi_home: Path) -> None:
    by_prefix = run("info", "01955b2a", "--format", "json")
    by_path = run("info", str(next(pi_home.rglob(SHOP_FILE))), "--format", "json")
    assert by_prefix.exit_code == 0, by_prefix.output
    assert by_prefix.stdout == by_path.stdout
    page = run("render", SHOP[:13], "-o", "page.html")
    assert page.exit_code == 0, page.output
    assert "Reject coupons larger than the cart" in Path("page.html").read_text()


def test_an_ambiguous_prefix_is_one_line_naming_the_candidates(pi_home: Path) -> None:
    result = run("info", "0195")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert "01955b2a-9478" in lines[0] and "01955f7c-2b1e" in lines[0]
    assert "0196" not in lines[0].replace("0195", "")  # only the ones that match
    missing = run("info", "ffff")
    assert missing.exit_code == 2 and len(missing.stderr.splitlines()) == 1
    assert "ffff" in missing.stderr and "no session id starts with it" in missing.stderr


def test_latest_is_the_session_written_last_of_this_folder_else_of_all(
    pi_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run("info", "--latest", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["id"].startswith("019483f7")
    assert "019483f7" in result.stderr  # which one it took, said on stderr
    # a session of the project in the current folder comes first, as pi's --continue
    here = tmp_path / "work"
    here.mkdir()
    folder = pi_home / "--work--"
    folder.mkdir()
    header = {**HEADER, "id": "0abc0000-0000-7000-8000-000000000009", "cwd": str(here)}
    (folder / "mine.jsonl").write_bytes(
        b"\n".join(orjson.dumps(r) for r in [header, msg("u1", None, "user", "mine", 1)]) + b"\n"
    )
    os.utime(folder / "mine.jsonl", ns=(1_000_000_000, 1_000_000_000))  # the oldest file
    monkeypatch.chdir(here)
    assert run("tree", "--latest").stdout.count("mine") == 1
    # compare's leaves follow --latest as they follow FILE
    both = run("compare", "--latest", "u1", "u1", "--format", "json")
    assert both.exit_code == 0, both.output
    assert run("info", "x.jsonl", "--latest").exit_code == 2


# ---- the sessions a command over many reads


def test_relative_dates_count_back_from_the_injected_day(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from piexport.read.dates import resolve_day

    today = date(2025, 3, 10)
    assert resolve_day("today", today) == "2025-03-10"
    assert resolve_day("yesterday", today) == "2025-03-09"
    assert resolve_day("7d", today) == "2025-03-03"
    assert resolve_day("2w", today) == "2025-02-24"
    assert resolve_day("2025-01-05", today) == "2025-01-05"
    assert resolve_day("2025-01-05T10:00:00Z", today) == "2025-01-05T10:00:00Z"
    for bad in ("last week", "7x", "2025-13-01", ""):
        with pytest.raises(Exception, match="not a date"):
            resolve_day(bad, today)


def test_usage_site_serve_and_list_share_the_selection_options() -> None:
    for name in ("usage", "site", "serve", "list"):
        options = {o for p in cli.commands[name].params for o in p.opts}
        assert {"--project", "--since", "--until"} <= options, name
    result = run("usage", str(SAMPLES), "--since", "someday")
    assert result.exit_code == 2 and "not a date" in result.stderr


def test_site_open_opens_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **k: opened.append(url) or True)
    out = tmp_path / "site"
    result = run("site", str(SAMPLES / "--srv-ci-build-bot--"), "-o", str(out), "--open", "-q")
    assert result.exit_code == 0, result.output
    assert opened == [(out / "index.html").resolve().as_uri()]
    assert run("site", str(SAMPLES / "--srv-ci-build-bot--"), "-o", str(out), "-q").exit_code == 0
    assert len(opened) == 1  # only when asked


def test_serve_port_has_help() -> None:
    port = next(p for p in cli.commands["serve"].params if p.name == "port")
    assert port.help  # type: ignore[attr-defined]


# ---- hostile names in tables


HOSTILE = [
    "\x1b[31mred\x1b[0m and a bell\x07",
    "x" * 500,
    "\u202eevil rtl\u202c שלום עולם",
    "😀" * 40 + "emoji",
    "日本語のタイトル" * 10,
]


@pytest.mark.parametrize("width", [80, 120, 160])
def test_hostile_titles_and_models_keep_tables_in_their_width(tmp_path: Path, width: int) -> None:
    for n, text in enumerate(HOSTILE):
        answer = msg("a1", "u1", "assistant", [{"type": "text", "text": "ok"}], 2)
        answer["message"].update(provider=text[:60], model=text, usage={"input": 5, "output": 1})
        records = [
            {**HEADER, "id": f"id{n}", "cwd": "/p/" + text},
            msg("u1", None, "user", text, 1),
            answer,
        ]
        (tmp_path / f"s{n}.jsonl").write_bytes(b"\n".join(map(orjson.dumps, records)) + b"\n")
    env = {"COLUMNS": str(width)}
    for argv in (
        ["usage", str(tmp_path), "--by", "model"],
        ["usage", str(tmp_path), "--by", "session"],
        ["usage", str(tmp_path), "--by", "project"],
        ["list", str(tmp_path)],
    ):
        result = run(*argv, env=env)
        assert result.exit_code == 0, (argv, result.output)
        table = [line for line in result.stdout.splitlines() if line]
        assert len(table) >= len(HOSTILE) + 2, argv
        for line in table:
            assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line
        rows = (
            table[: table.index(next(t for t in table if t.startswith("Total")))]
            if argv[0] == "usage"
            else table
        )
        for line in rows:
            assert cells(line) <= width, (argv, line, cells(line))


def test_list_is_redacted_as_the_other_outputs(tmp_path: Path) -> None:
    secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    records = [HEADER, msg("u1", None, "user", f"use STRIPE_KEY={secret} here", 1)]
    (tmp_path / f"s-{secret}.jsonl").write_bytes(b"\n".join(map(orjson.dumps, records)) + b"\n")
    for fmt in ("text", "json"):
        result = run("list", str(tmp_path), "--redact", "--format", fmt, env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert secret not in result.output and "[REDACTED:" in result.stdout
    plain = run("list", str(tmp_path), "--format", "json")
    assert secret in plain.stdout  # the same output, not redacted: the test can fail


def test_search_takes_the_selection_as_filters() -> None:
    def matches(*args: str) -> list[dict[str, Any]]:
        result = run("search", "the", str(SAMPLES), "--format", "json", "--limit", "0", *args)
        assert result.exit_code == 0, result.output
        return list(json.loads(result.stdout)["matches"])

    every = matches()
    shop = matches("--project", "*/shop")
    assert shop and all("--home-alice-src-shop--" in m["path"] for m in shop)
    assert len(shop) < len(every)
    day = 1747785600000  # 2025-05-21T00:00:00Z
    late = matches("--since", "2025-05-21")
    assert late and all(m["time"] >= day for m in late)
    assert len(late) < len(every)
    early = run("search", "the", str(SAMPLES), "--until", "2024-11-01")
    assert early.exit_code == 1 and "no matches" in early.stderr
    glob = run("search", "the", str(SAMPLES), "--project", "a*b")
    assert glob.exit_code == 2 and "wildcards" in glob.stderr


def test_usage_offers_every_grouping_the_report_has() -> None:
    from piexport.cli.archive import USAGE_BY
    from piexport.report.usage import BY

    assert USAGE_BY == BY
