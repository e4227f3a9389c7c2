"""JSON a page or a Markdown file shows grows with the value, not with its size times its
depth (issue 36: nested-call arguments indented per level, 3.6 MB of input → 88 MB page).
Counted in characters, never in time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st

from piexport.page.render import render_session
from piexport.read.jsonutil import SHOWN_LEVELS, dumps, dumps_shown
from piexport.read.loader import load_session
from piexport.report.formats import session_markdown

from tests.support.sessions import HEADER, msg, to_lines

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=40,
)


def _depth(v: Any) -> int:
    if isinstance(v, dict):
        return 1 + max(map(_depth, v.values()), default=0)
    if isinstance(v, list):
        return 1 + max(map(_depth, v), default=0)
    return 0


def _deep(levels: int, leaf: Any) -> Any:
    v = leaf
    for i in range(levels):
        v = {f"k{i}": v, "n": i}
    return v


@settings(max_examples=300, deadline=None, derandomize=True)
@given(JSON_VALUES)
def test_shown_json_is_the_same_json_within_a_multiple_of_its_compact_size(v: Any) -> None:
    shown = dumps_shown(v)
    assert orjson.loads(shown) == v
    compact = dumps(v, indent=False)
    # each value at an indented level gains a line end and at most 2 * SHOWN_LEVELS spaces
    assert len(shown) <= (2 * SHOWN_LEVELS + 3) * len(compact)
    if _depth(v) <= SHOWN_LEVELS:
        assert shown == dumps(v)  # shallow values look as they always did


def test_deep_arguments_grow_with_size_not_with_size_times_depth() -> None:
    sizes = {}
    for levels in (10, 50, 99):
        v = _deep(levels, "x" * 200)
        sizes[levels] = len(dumps_shown(v)) / len(dumps(v, indent=False))
    assert max(sizes.values()) < 1.3, sizes  # indented: 2x at 10 levels, 19x at 99
    assert len(dumps(_deep(99, "x"), indent=True)) > 20 * len(dumps(_deep(99, "x"), indent=False))


def _session(tmp: Path, args: dict[str, Any]) -> Path:
    """One call to a tool with ``args``, whose result made two nested calls with them."""
    call = {"type": "toolCall", "id": "t1", "name": "probe", "arguments": args}
    nested = {
        "complete": True,
        "calls": [
            {"id": f"n{i}", "name": "probe", "arguments": args, "status": "ok"} for i in range(2)
        ],
    }
    records = [
        msg("u1", None, "user", "go", 1),
        msg("a1", "u1", "assistant", [call], 2),
        msg(
            "r1",
            "a1",
            "toolResult",
            [{"type": "text", "text": "ok"}],
            3,
            toolCallId="t1",
            toolName="probe",
            isError=False,
            nestedCalls=nested,
        ),
    ]
    path = tmp / "s.jsonl"
    path.write_bytes(to_lines([HEADER, *records]))
    return path


def test_nested_call_arguments_are_shown_like_the_calls_own(tmp_path: Path) -> None:
    args = _deep(99, "y" * 300)  # under pi's 8 KiB per nested call
    compact = len(dumps(args, indent=False))
    session = load_session(_session(tmp_path, args))
    soup = BeautifulSoup(render_session(session), "html.parser")
    own = soup.select_one(".tool-head + pre.hl, .tool > pre.hl")
    assert own is not None
    nested = soup.select(".nested-call pre.hl")
    assert len(nested) == 2
    texts = [own.get_text(), *(p.get_text() for p in nested)]
    assert texts[0] == texts[1] == texts[2]  # the same arguments, shown the same way
    for text in texts:
        assert orjson.loads(text) == args
        assert len(text) <= 1.2 * compact  # was 19 times: every level indented
    md = session_markdown(session)
    assert len(md) <= 4 * compact
    assert md.count("y" * 300) == 3  # the call's and both nested calls'
