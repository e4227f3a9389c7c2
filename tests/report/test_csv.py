"""``usage --format csv`` as a spreadsheet and a terminal read it (issue 27).

A spreadsheet starts a new row at a CR or an LF outside quotes, and runs a formula from any
line of a cell that starts with ``= + - @`` (a tab, a CR); a terminal obeys escape
sequences (OSC 8 links, OSC 52 clipboard writes). Session text reaches CSV cells through a
project's cwd, a model's name and a tool's name.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.report.usage import csv_text

from tests.support.sessions import HEADER, msg, to_lines

HOSTILE = [
    "/x\r=cmd|' /C calc'!A0",
    "/y\n+SUM(1,2)",
    "/z\r\n@evil",
    "\t=1+1",
    "  =2+2",
    "-3+3",
    "\uff1d4+4",
    "/w\r\r-5",
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "\x1b]52;c;ZWNobyBoaQ==\x07copy",
    "\x9b31mred\x9b0m \x9d8;;https://evil.example/\x9c",
    "a\u202eb\u2066c\x00d\x7f",
    '"quoted", with a comma',
]
_FORMULA = tuple("=+-@\t\r\uff1d\uff0b\uff0d\uff20")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def spreadsheet_rows(text: str) -> list[list[str]]:
    """Rows as a spreadsheet reads CSV: a CR, an LF or a CRLF outside quotes ends a row."""
    rows: list[list[str]] = []
    row: list[str] = []
    cell: list[str] = []
    quoted = False
    i = 0
    while i < len(text):
        c = text[i]
        if quoted:
            if c == '"' and text[i + 1 : i + 2] == '"':
                cell.append('"')
                i += 1
            elif c == '"':
                quoted = False
            else:
                cell.append(c)
        elif c == '"' and not cell:
            quoted = True
        elif c == ",":
            row.append("".join(cell))
            cell = []
        elif c in "\r\n":
            row.append("".join(cell))
            rows.append(row)
            row, cell = [], []
            if c == "\r" and text[i + 1 : i + 2] == "\n":
                i += 1
        else:
            cell.append(c)
        i += 1
    if cell or row:
        row.append("".join(cell))
        rows.append(row)
    return rows


def session(path: Path, cwd: str, model: str, tool: str) -> None:
    call = {"type": "toolCall", "id": "c1", "name": tool, "arguments": {}}
    answer = msg(
        "a1",
        "u1",
        "assistant",
        [call],
        2,
        provider="p",
        model=model,
        stopReason="toolUse",
        usage={"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 1}},
    )
    path.write_bytes(to_lines([{**HEADER, "cwd": cwd}, msg("u1", None, "user", "hi", 1), answer]))


@pytest.mark.parametrize("by", ["project", "model", "tool"])
def test_no_cell_a_spreadsheet_runs_no_escape_a_terminal_obeys(tmp_path: Path, by: str) -> None:
    for i, text in enumerate(HOSTILE):
        session(tmp_path / f"s{i}.jsonl", text, text, text)
    result = CliRunner().invoke(cli, ["usage", str(tmp_path), "--by", by, "--format", "csv"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert not _CONTROL.search(out), repr(_CONTROL.search(out))
    rows = spreadsheet_rows(out)
    assert len(rows) == 1 + len(HOSTILE) + 1  # the head, a row per name, the total
    assert all(len(r) == len(rows[0]) for r in rows), rows
    for row in rows:
        for cell in row:
            for line in re.split(r"\r\n|\r|\n", cell):
                assert not line.lstrip(" ").startswith(_FORMULA), (cell, line)
    shown = "\n".join(r[0] for r in rows)
    assert "click" in shown and "]8;;" not in shown and "]52;" not in shown  # escapes gone
    assert "⟪U+202E⟫" in shown and "\\x9b" in shown  # the rest shown as marks


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("/x\r=cmd", "/x\n'=cmd"),
        ("a\r\n+b\n-c", "a\n'+b\n'-c"),
        ("=1", "'=1"),
        ("plain", "plain"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x9bx", "\\x9bx"),
    ],
)
def test_csv_text(text: str, cell: Any) -> None:
    assert csv_text(text) == cell
