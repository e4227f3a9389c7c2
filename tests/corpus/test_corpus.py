"""Every file of the hostile corpus loads with diagnostics, renders, and loses no valid entry."""

from __future__ import annotations

import contextlib
import json
import traceback
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from piexport import InputError, load_session
from piexport.cli import cli
from piexport.page.render import render_session
from piexport.page.view import build_view, dom_id

from tests.support.hostile_corpus import Case, cases
from tests.support.pages import static_checks
from tests.support.sessions import accounted, sample_files
from tests.support.stats import CORPUS_STATS


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_corpus_file(case: Case, tmp_path: Path) -> None:
    path = tmp_path / f"{case.name}.jsonl"
    path.write_bytes(case.data)
    CORPUS_STATS["files"] += 1
    if case.unusable:
        with pytest.raises(InputError, match="no session entries found") as info:
            load_session(path)
        assert str(path) in str(info.value)
        return
    try:
        session = load_session(path)
        soup = static_checks(render_session(build_view(session)))
    except Exception:
        CORPUS_STATS["crashes"] += 1
        raise
    assert accounted(session) == session.lines_read
    lost = [
        eid
        for eid in case.valid
        if eid not in session.by_id or len(soup.find_all(id=dom_id(eid))) != 1
    ]
    CORPUS_STATS["lost"] += len(lost)
    assert lost == []
    assert len(soup.select("[data-entry-id]")) == len(session.entries)
    for d in session.diagnostics:
        assert d.line > 0 or "header" in d.message, d


def test_corpus_is_big_enough() -> None:
    assert len(cases()) >= 40


COMMANDS = [
    ["render", "-o", "-"],
    ["render", "--format", "md", "-o", "-"],
    ["render", "--format", "json", "-o", "-"],
    ["summary"],
    ["summary", "--format", "json"],
    ["tree"],
    ["info"],
    ["info", "--json"],
    ["context"],
    ["branches"],
    ["branches", "--format", "json"],
    ["files"],
    ["files", "--format", "json"],
]
FOLDER_COMMANDS = [
    ["usage"],
    ["usage", "--format", "json"],
    ["usage", "--by", "tool", "--format", "csv"],
    ["search", "the", "--format", "json"],
]
"""Commands over a folder: the file is alone in its own."""


def _run_all(runner: CliRunner, path: Path) -> None:
    """Every command on one file: none crashes, and JSON output is strict JSON."""
    runs = [[*args, str(path)] for args in COMMANDS]
    runs += [[*args, str(path.parent)] for args in FOLDER_COMMANDS]
    for args in runs:
        result = runner.invoke(cli, args, catch_exceptions=True)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            args,
            "".join(traceback.format_exception(result.exception)),
        )
        assert result.exit_code in (0, 1), (args, result.output)
        if "json" in args or args[0] == "context":
            orjson.loads(result.stdout)  # strict: no NaN, no Infinity, no 1e999
            with contextlib.suppress(RecursionError):  # the file's own depth, given back
                json.loads(result.stdout, parse_constant=_no_constants)


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


@pytest.mark.parametrize("case", [c for c in cases() if not c.unusable], ids=lambda c: c.name)
def test_corpus_file_every_command(case: Case, tmp_path: Path) -> None:
    """No field of any entry crashes any command, and JSON output is strict JSON."""
    path = tmp_path / f"{case.name}.jsonl"
    path.write_bytes(case.data)
    _run_all(CliRunner(), path)


_KEEP = frozenset({"type", "role", "id", "parentId", "toolCallId", "targetId"})
"""Keys left alone so the page takes every branch it would for the real file."""
_HOSTILE_LEAVES = [
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    "123456789012345678901234567890",
    "-0.0",
    "1e308",
    "9" * 5000,
    "true",
    "null",
    '""',
    "[]",
    "{}",
    '[{"type":"text","text":"x"},{"type":"toolCall"},7]',
    "[" * 900 + "1" + "]" * 900,
    '{"a":' * 300 + "1" + "}" * 300,
]
_RICH_SAMPLES = ("0196202a", "0196f5fc")


def _replace_leaves(line: bytes, token: bytes) -> bytes:
    """Every scalar of a record (but its structural keys) replaced by ``token``."""
    marker = "\x00HOSTILE\x00"

    def walk(node: Any, key: str | None) -> Any:
        if isinstance(node, dict):
            return {k: v if k in _KEEP else walk(v, k) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, key) for v in node]
        return marker

    obj = orjson.loads(line)
    if obj.get("type") == "session":
        return line
    return orjson.dumps(walk(obj, None)).replace(orjson.dumps(marker), token)


@pytest.mark.parametrize("token", _HOSTILE_LEAVES, ids=lambda t: t[:20])
def test_every_field_of_a_real_session_replaced(token: str, tmp_path: Path) -> None:
    """Each real sample with every field (ids, types and roles aside) set to one hostile
    value: no command crashes and JSON stays strict."""
    runner = CliRunner()
    for pick in _RICH_SAMPLES:
        source = next(p for p in sample_files() if pick in p.name)
        lines = [ln for ln in source.read_bytes().split(b"\n") if ln.strip()]
        (tmp_path / pick).mkdir()
        path = tmp_path / pick / f"{pick}.jsonl"
        path.write_bytes(b"\n".join(_replace_leaves(ln, token.encode()) for ln in lines) + b"\n")
        _run_all(runner, path)
