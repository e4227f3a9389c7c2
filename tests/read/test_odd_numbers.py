"""Numbers no double or int64 holds, and nesting past orjson's limit (issue 13): shown as
written, unknown in figures, and never a crash or invalid JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from piexport import load_session
from piexport.cli import cli
from piexport.page.render import render_session
from piexport.read.jsonutil import MAX_DEPTH, OddNumber, dumps
from piexport.report.outline import render_tree_text
from piexport.report.stats import file_figures

from tests.support.sessions import MakeSession, msg

WIDE = 123456789012345678901234567890


def _strict(text: str) -> Any:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    orjson.loads(text)
    return json.loads(text, parse_constant=refuse)


def _odd_file(make_session: MakeSession) -> Path:
    return make_session(
        [
            msg("u1", None, "user", "hi", 1),
            b'{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant",'
            b'"content":[{"type":"text","text":"x"}],"stopReason":"stop","provider":"p",'
            b'"model":"m","usage":{"input":1e999,"output":5,"cacheRead":NaN,'
            b'"cacheWrite":123456789012345678901234567890,"totalTokens":-Infinity,'
            b'"cost":{"total":1e999}}}}',
            b'{"type":"compaction","id":"c1","parentId":"a1","summary":"s",'
            b'"firstKeptEntryId":"a1","tokensBefore":1e999,"n":123456789012345678901234567890}',
        ]
    )


def test_out_of_range_numbers_show_as_written(make_session: MakeSession) -> None:
    session = load_session(_odd_file(make_session))
    assert "[compaction: 1e999 tokens]" in render_tree_text(session)
    page = render_session(session)
    assert "in 1e999" in page and "The context (1e999 tokens)" in page
    assert "$1e999" in page
    assert any("out of range (1e999, NaN" in d.message for d in session.diagnostics)
    assert session.entries[-1].raw["n"] == WIDE  # exact, not a rounded float


def test_out_of_range_numbers_are_unknown_in_figures(make_session: MakeSession) -> None:
    """A usage holding a figure no call could report is left out whole (issue 27: its other
    figures are not to be trusted either), and named with its line."""
    session = load_session(_odd_file(make_session))
    fig = file_figures(session)
    assert fig.tokens["input"] == 0 and fig.tokens["cacheRead"] == 0
    assert fig.tokens["cacheWrite"] == 0  # past 64 bits: no tool wrote it
    assert fig.tokens["output"] == 0 and fig.tokens["total"] == 0
    assert fig.cost == 0
    assert any(d.line == 3 and "left out of every total" in d.message for d in session.diagnostics)


def test_json_outputs_stay_strict_json(make_session: MakeSession) -> None:
    path = _odd_file(make_session)
    runner = CliRunner()
    for args in (
        ["render", "--format", "json", "-o", "-"],
        ["summary", "--format", "json"],
        ["info", "--json"],
        ["context"],
    ):
        result = runner.invoke(cli, [*args, str(path)])
        assert result.exit_code == 0, result.output
        _strict(result.stdout)
    out = runner.invoke(cli, ["render", "--format", "json", "-o", "-", str(path)]).stdout
    data = _strict(out)
    compaction = data["entries"][-1]
    assert compaction["tokensBefore"] == "1e999"
    assert compaction["n"] == WIDE


def test_deep_label_and_wide_int_label(make_session: MakeSession) -> None:
    deep = "[" * 300 + "]" * 300
    path = make_session(
        [
            msg("u1", None, "user", "hi", 1),
            f'{{"type":"label","id":"l1","parentId":"u1","targetId":"u1","label":{deep}}}'.encode(),
            f'{{"type":"label","id":"l2","parentId":"l1","targetId":"l1","label":{WIDE}}}'.encode(),
        ]
    )
    session = load_session(path)
    assert session.labels["u1"] == deep
    assert session.labels["l1"] == str(WIDE)
    assert str(WIDE) in render_session(session)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["1e999", "-1e999", "NaN", "Infinity", "-Infinity"]).map(OddNumber),
    st.text(max_size=8),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(_values, st.integers(min_value=0, max_value=600), st.booleans())
def test_dumps_is_strict_json_at_any_depth(value: Any, depth: int, indent: bool) -> None:
    nested: Any = value
    for _ in range(depth):
        nested = [nested]
    text = dumps(nested, indent=indent)
    back = _strict(text)
    for _ in range(depth):
        back = back[0]
    assert back == _plain(value)


def _plain(value: Any) -> Any:
    """What a value reads back as: odd numbers as the text the file had."""
    if isinstance(value, OddNumber):
        return value.text
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def test_dumps_matches_orjson_layout() -> None:
    value = {"a": [1, {"b": None, "c": []}, {}], "d": "x"}
    assert dumps([value, WIDE]) == orjson.dumps(
        [value, 1], option=orjson.OPT_INDENT_2
    ).decode().replace("\n  1\n", f"\n  {WIDE}\n")
    assert dumps([value, WIDE], indent=False) == f"[{orjson.dumps(value).decode()},{WIDE}]"


def test_nesting_past_the_cap_is_kept_as_json_text(make_session: MakeSession) -> None:
    """Past ``MAX_DEPTH`` levels a value is held as its JSON text: commands can show it
    (Python's repr would overflow), and JSON output gives back the very structure."""
    deep = "[" * 1010 + '"bottom"' + "]" * 1010
    path = make_session(
        [
            msg("u1", None, "user", "hi", 1),
            f'{{"type":"message","id":"a1","parentId":"u1","message":{{"role":"assistant",'
            f'"content":[{{"type":"toolCall","id":"c","name":"bash","arguments":{{"command":'
            f'{deep}}}}}],"stopReason":{deep}}}}}'.encode(),
        ]
    )
    session = load_session(path)
    assert any(f"nested more than {MAX_DEPTH} levels" in d.message for d in session.diagnostics)
    assert "[bash: [[[" in render_tree_text(session)
    assert "bottom" in render_session(session)
    out = CliRunner().invoke(cli, ["render", "--format", "json", "-o", "-", str(path)]).stdout
    data = orjson.loads(out)
    command = data["entries"][-1]["message"]["content"][0]["arguments"]["command"]
    for _ in range(1010):
        [command] = command
    assert command == "bottom"
