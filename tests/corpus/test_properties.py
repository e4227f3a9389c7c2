"""Hypothesis: valid entries round-trip; garbage never crashes the loader or costs a valid line."""

from __future__ import annotations

import io
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piexport import load_session

from tests.support.sessions import HEADER

# Drawing one example of a session (up to 12 entries with nested JSON values of any
# characters) takes about 90 ms, the test itself well under one: 150 examples, the same
# ones each run (derandomized: the suite passes or fails the same way on any machine; the
# suite's longest tests were these two, 1,000 examples, 4 minutes each on a busy machine).
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
MARKDOWN_SETTINGS = settings(SETTINGS, max_examples=500)
"""Markdown's examples are cheap to draw: more of them."""

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)


# Strategies built once: one built inside ``entries`` is validated again at every draw, which
# took nine tenths of these tests' time (cProfile), for the same values.
extra_fields = st.dictionaries(text, json_values, max_size=3)
entry_types = st.sampled_from(["message", "custom", "label", "model_change", "checkpoint"])
roles = st.sampled_from(["user", "assistant", "weird"])


@st.composite
def entries(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(1, 12))
    out: list[dict[str, Any]] = []
    for i in range(n):
        parent = (
            out[draw(st.integers(0, len(out) - 1))]["id"] if out and draw(st.booleans()) else None
        )
        etype = draw(entry_types)
        e: dict[str, Any] = {
            "type": etype,
            "id": f"{i:08x}",
            "parentId": parent,
            "timestamp": f"2025-01-01T10:00:{i:02d}.000Z",
        }
        # more fields of any name and value; the four above are the entry's own
        e.update((k, v) for k, v in draw(extra_fields).items() if k not in e)
        if etype == "message":
            e["message"] = {
                "role": draw(roles),
                "content": draw(text),
            }
        out.append(e)
    return out


def jsonl(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


@SETTINGS
@given(entries())
def test_valid_entries_round_trip(records: list[dict[str, Any]]) -> None:
    s = load_session(io.BytesIO(jsonl([HEADER, *records])))
    assert s.diagnostics == []
    assert [e.raw for e in s.entries] == records
    assert s.tree.leaf_id == records[-1]["id"]


garbage = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")),
    st.sampled_from(
        [b"[1,2]", b"null", b"{", b'{"type":', b"\x00" * 20, b'"str"', b"{}", b"\xff\xfe{}"]
    ),
    json_values.map(lambda v: orjson.dumps(v)),
)


@SETTINGS
@given(entries(), st.lists(st.tuples(st.integers(0, 20), garbage), max_size=6))
def test_garbage_lines_never_crash_nor_lose_valid_lines(
    records: list[dict[str, Any]], junk: list[tuple[int, bytes]]
) -> None:
    lines: list[bytes] = [orjson.dumps(r) for r in records]
    for pos, g in junk:
        lines.insert(min(pos, len(lines)), g)
    data = orjson.dumps(HEADER) + b"\n" + b"\n".join(lines) + b"\n"
    s = load_session(io.BytesIO(data))
    kept = [e.raw for e in s.entries if e.raw in records]
    for r in records:
        assert r in kept
    # every non-blank line is the header, an entry or a diagnostic
    accounted = {e.line for e in s.entries} | {d.line for d in s.diagnostics if d.line} | {1}
    assert len(accounted) == s.lines_read


# Markdown: plain text takes a short cut that must give markdown-it's own output, and no
# text, plain or not, may lose a word. The alphabet mixes prose with every character that
# means something to markdown, so both paths are taken often.
md_text = st.lists(
    st.sampled_from(
        [
            *["word", "ab", "x", " ", " ", "\n", "\n\n", "\t", ".", ",", ";", ":", "?", "!"],
            *["'", '"', "(", ")", "/", "0", "42", "é", "中", "\u2028", "  \n", "1. ", "- ", "> "],
            *"\\`*_[]<>&~|#=+-\r\x00",
            *["    ", "**", "`code`", "[a](b)", "http://x.y"],
        ]
    ),
    max_size=30,
).map("".join)


@MARKDOWN_SETTINGS
@given(md_text)
def test_plain_text_short_cut_matches_markdown_it(text: str) -> None:
    from piexport.page.markdown import _NOT_PLAIN, _md, _plain_paragraphs, render_markdown

    if _NOT_PLAIN.search(text) is None:
        assert _plain_paragraphs(text) == _md.render(text)
        assert render_markdown(text) == _md.render(text)


@MARKDOWN_SETTINGS
@given(md_text)
def test_markdown_keeps_every_word(text: str) -> None:
    from piexport.page.markdown import _WORD, render_markdown

    html = render_markdown(text)
    assert set(_WORD.findall(text)) <= set(_WORD.findall(html))
