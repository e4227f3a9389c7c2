"""`render --format md` keeps every entry: unknown types whole, labels and extension state,
and with ``--branch all`` every leaf's branch (issue 36 "Silently lost")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from piexport.cli import cli
from piexport.read.loader import load_session
from piexport.report.formats import session_markdown

from tests.support.sessions import HEADER, SAMPLES, msg, sample_files, to_lines

SHOP = next((SAMPLES / "--home-alice-src-shop--").glob("2025-03-03*.jsonl"))


def _md(path: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["render", str(path), "--format", "md", "-o", "-", *args])
    assert result.exit_code == 0, result.output
    return result.output


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]{6,}", text)


def test_branch_all_has_every_leaf_of_the_shop_sample() -> None:
    session = load_session(SHOP)
    assert len(session.tree.leaves) == 4
    every = _md(SHOP, "--branch", "all")
    current = _md(SHOP, "--branch", "current")
    assert every != current
    for leaf in session.tree.leaves:
        if leaf != session.tree.leaf_id:
            assert f"## Branch ending at `{leaf}`" in every
            # the current branch alone: no other branch (a branch summary may name the leaf
            # it left, as its fromId)
            assert f"## Branch ending at `{leaf}`" not in current
    # each user message of the file, on whichever branch, is in the Markdown once
    for e in session.entries:
        if e.role == "user":
            text = e.message["content"] if e.message else ""
            text = (
                text
                if isinstance(text, str)
                else " ".join(b.get("text", "") for b in text if isinstance(b, dict))
            )
            for word in _words(text)[:3]:
                assert word in every, (e.id, word)


def test_every_sample_entry_reaches_the_markdown() -> None:
    """Each entry of every sample leaves a trace: the words of its text, or its label,
    custom type, model or name."""
    for path in sample_files():
        session = load_session(path)
        md = session_markdown(session)
        for e in session.entries:
            raw = e.raw
            if e.type == "label":
                assert str(raw.get("label") or "Label cleared") in md, (path.name, e.id)
            elif e.type == "custom":
                assert f"Extension state: {raw.get('customType')}" in md, (path.name, e.id)
            elif e.type == "session_info":
                assert "Session name" in md or str(raw.get("name")) in md
            elif e.type == "model_change":
                assert str(raw.get("modelId")) in md
            elif e.role == "user" and e.message is not None:
                content = e.message.get("content")
                if isinstance(content, str):
                    for word in _words(content)[:2]:
                        assert word in md, (path.name, e.id, word)


def _branchy(extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """u1 → a1 → (u2 → a2 → x0) | (u3 → x1 → x2 …): the first invented entry ends a side
    branch, the others follow u3 on the current one (the last line of the file)."""
    records = [
        msg("u1", None, "user", "start here", 1),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "ok"}], 2),
        msg("u2", "a1", "user", "side branch", 3),
        msg("a2", "u2", "assistant", [{"type": "text", "text": "side answer"}], 4),
        {**extra[0], "id": "x0", "parentId": "a2"},
        msg("u3", "a1", "user", "current branch", 5),
    ]
    parent = "u3"
    for i, e in enumerate(extra[1:], 1):
        records.append({**e, "id": f"x{i}", "parentId": parent})
        parent = f"x{i}"
    return records


UNIQUE = st.from_regex(r"[a-z]{4}[0-9]{6}", fullmatch=True)
TYPE = st.from_regex(r"invented_[a-z]{3,8}", fullmatch=True)
HOSTILE_TEXT = st.sampled_from(
    ["```", "~~~~", "</details>", "<script>x</script>", "@octocat", "\n\n"]
)


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.tuples(TYPE, UNIQUE, UNIQUE, UNIQUE, HOSTILE_TEXT),
        min_size=1,
        max_size=4,
        unique_by=lambda t: (t[1], t[2], t[3]),
    )
)
def test_entries_of_invented_types_reach_the_markdown_whole(
    tmp_path: Path, made: list[tuple[str, str, str, str, str]]
) -> None:
    extra = [
        {
            "type": kind,
            "timestamp": "2025-01-01T10:00:09.000Z",
            "top": top,
            "nested": {"deeper": [{"deepest": deep}], "around": f"{hostile}{hostile}"},
            "listed": [1, [2, [3, [4, [5, [leaf]]]]]],
        }
        for kind, top, deep, leaf, hostile in made
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(to_lines([HEADER, *_branchy(extra)]))
    md = _md(path, "--branch", "all")
    tokens = MarkdownIt("commonmark").parse(md)
    in_code = "".join(t.content for t in tokens if t.type in ("fence", "code_block"))
    outside = "".join(t.content for t in tokens if t.type not in ("fence", "code_block"))
    for kind, top, deep, leaf, _hostile in made:
        for unique in (top, deep, leaf):
            assert unique in in_code, (unique, md)  # inside a fence, whole
            assert unique not in outside
        assert f"does not know: {kind}" in md
    for t in tokens:  # nothing of the entries became HTML
        if t.type in ("html_block", "html_inline"):
            assert "<script" not in t.content and "x0" not in t.content
    # the first entry is on the side branch: not in the current branch's Markdown
    current = _md(path, "--branch", "current")
    assert made[0][1] not in current
    for _kind, top, _d, _l, _h in made[1:]:
        assert top in current


def test_markdown_of_a_branchy_session_shows_each_entry_once(tmp_path: Path) -> None:
    extra = [
        {"type": "invented", "timestamp": "2025-01-01T10:00:09.000Z", "v": f"zz{i}qq"}
        for i in range(3)
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(to_lines([HEADER, *_branchy(extra)]))
    md = session_markdown(load_session(path))
    md = md[md.index("### User") :]  # after the title (the first message)
    for i in range(3):
        assert md.count(f"zz{i}qq") == 1
    for text in ("start here", "side branch", "side answer", "current branch"):
        assert md.count(text) == 1, text
    assert (
        md.index("current branch") < md.index("## Branch ending at `x0`") < md.index("side branch")
    )
    assert orjson.loads(orjson.dumps(md))
