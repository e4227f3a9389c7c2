"""The CLI: thin, one-line errors, exit codes 0 / 1 (--strict) / 2 (unusable input)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.version import __version__

from tests.support.sessions import MakeSession, msg


def all_commands() -> list[click.Command]:
    return list(cli.commands.values())  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", all_commands(), ids=lambda c: c.name)
def test_every_command_has_help(runner: CliRunner, command: click.Command) -> None:
    assert command.help
    result = runner.invoke(cli, [command.name, "-h"])
    assert result.exit_code == 0 and "Usage:" in result.output


def test_version(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_context_prints_json_and_diagnostics_on_stderr(
    runner: CliRunner, make_session: MakeSession
) -> None:
    path = make_session([msg("u1", None, "user", "hi", 1), b"garbage"])
    result = runner.invoke(cli, ["context", str(path)])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["messages"] == [{"role": "user", "content": "hi"}]
    assert f"{path}:3: not valid JSON" in result.stderr


def test_context_leaf_option(runner: CliRunner, make_session: MakeSession) -> None:
    path = make_session(
        [
            msg("u1", None, "user", "a", 1),
            msg("u2", "u1", "user", "b", 2),
            msg("u3", "u1", "user", "c", 3),
        ]
    )
    ok = runner.invoke(cli, ["context", str(path), "--leaf", "u2"])
    assert [m["content"] for m in json.loads(ok.stdout)["messages"]] == ["a", "b"]
    bad = runner.invoke(cli, ["context", str(path), "--leaf", "zz"])
    assert bad.exit_code == 2 and "no entry with id 'zz'" in bad.stderr


def test_strict_exits_1_on_warnings(runner: CliRunner, make_session: MakeSession) -> None:
    path = make_session([msg("u1", None, "user", "hi", 1), b"[1]"])
    assert runner.invoke(cli, ["tree", str(path)]).exit_code == 0
    result = runner.invoke(cli, ["tree", str(path), "--strict"])
    assert result.exit_code == 1 and "--strict" in result.stderr


@pytest.mark.parametrize("content", [b"", b"\x89PNG\r\n\x1a\nrest"])
def test_unusable_input_exits_2_with_one_line(
    runner: CliRunner, tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    for command in ("context", "tree", "info"):
        result = runner.invoke(cli, [command, str(path)])
        assert result.exit_code == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and "Traceback" not in result.output


def test_missing_file_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["info", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_stdin(runner: CliRunner, make_session: MakeSession) -> None:
    path = make_session([msg("u1", None, "user", "from stdin", 1)])
    result = runner.invoke(cli, ["tree", "-"], input=path.read_bytes())
    assert result.exit_code == 0 and "user: from stdin" in result.stdout


def test_info_lists_counts_labels_and_leaves(runner: CliRunner, make_session: MakeSession) -> None:
    path = make_session(
        [
            msg("u1", None, "user", "a", 1),
            msg("u2", "u1", "user", "b", 2),
            {
                "type": "label",
                "id": "l1",
                "parentId": "u2",
                "timestamp": "2025-01-01T10:00:03.000Z",
                "targetId": "u1",
                "label": "here",
            },
        ]
    )
    result = runner.invoke(cli, ["info", str(path), "--json"])
    facts = json.loads(result.stdout)
    assert facts["types"] == {"message": 2, "label": 1}
    assert facts["roles"] == {"user": 2}
    assert facts["labels"] == ["u1=here"] and facts["leaves"] == ["l1"]


def test_python_dash_m_works(make_session: MakeSession) -> None:
    path = make_session([msg("u1", None, "user", "hi", 1)])
    out = subprocess.run(
        [sys.executable, "-m", "piexport", "tree", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "user: hi" in out.stdout


def test_highlight_chars_trades_colour_for_time(runner: CliRunner, tmp_path: Path) -> None:
    """--highlight-chars N colours at most N characters of code per page: 0 makes pages
    with no colouring, and a site built with it is rebuilt when the budget changes."""
    from tests.support.sessions import SAMPLES

    sample = next(p for p in SAMPLES.rglob("*.jsonl") if "2025-03-04T09-02-44" in p.name)
    coloured, plain = tmp_path / "coloured.html", tmp_path / "plain.html"
    assert runner.invoke(cli, ["render", str(sample), "-o", str(coloured)]).exit_code == 0
    result = runner.invoke(cli, ["render", str(sample), "-o", str(plain), "--highlight-chars", "0"])
    assert result.exit_code == 0, result.output
    assert coloured.read_text().count('<span class="kn">') > 0  # Pygments: an import keyword
    assert plain.read_text().count('<span class="kn">') == 0
    assert "shop/cart.py" in plain.read_text()  # the code is there, as plain text

    site = tmp_path / "site"
    args = ["site", str(SAMPLES), "-o", str(site), "-q", "--no-search"]
    assert runner.invoke(cli, [*args, "--highlight-chars", "0"]).exit_code == 0
    pages = sorted(site.rglob("2025-*.html"))
    assert pages and not any('<span class="kn">' in p.read_text() for p in pages)
    assert runner.invoke(cli, args).exit_code == 0  # the default budget: pages made again
    assert any('<span class="kn">' in p.read_text() for p in sorted(site.rglob("2025-*.html")))
    bad = runner.invoke(cli, ["render", str(sample), "--highlight-chars", "-1"])
    assert bad.exit_code == 2
