"""The tree: roots, children order, leaf, path, labels, name, and repair of defects."""

from __future__ import annotations

import pytest

from piexport import load_session
from piexport.read.tree import flatten, timestamp_ms
from piexport.report.outline import render_tree_text

from tests.support.sessions import MakeSession, msg, ts


def entry(
    eid: str, parent: str | None, second: int, etype: str = "custom", **extra: object
) -> dict:
    return {"type": etype, "id": eid, "parentId": parent, "timestamp": ts(second), **extra}


def test_leaf_is_last_in_file_not_newest(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                entry("a", None, 1),
                entry("b", "a", 50),
                entry("c", "a", 2),
            ]
        )
    )
    assert s.tree.leaf_id == "c"
    assert s.tree.path == ["a", "c"]
    assert s.tree.leaves == ["b", "c"]
    assert s.tree.branch_points == ["a"]


def test_children_ordered_by_timestamp_then_file_order(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                entry("r", None, 1),
                entry("late", "r", 30),
                entry("early", "r", 10),
                entry("tie1", "r", 20),
                entry("tie2", "r", 20),
                entry("bad", "r", 0, timestamp="nope"),
            ]
        )
    )
    assert s.tree.children["r"] == ["early", "tie1", "tie2", "late", "bad"]


def test_orphans_and_self_parents_become_roots(make_session: MakeSession) -> None:
    s = load_session(
        make_session([entry("a", None, 1), entry("o", "ghost", 2), entry("s", "s", 3)])
    )
    assert s.tree.roots == ["a", "o", "s"]
    assert s.tree.orphans == ["o"]
    messages = " ".join(d.message for d in s.diagnostics)
    assert "ghost" in messages and "its own parent" in messages


def test_cycles_are_cut_and_every_entry_shown_once(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                entry("root", None, 1),
                entry("A", "B", 2),
                entry("B", "A", 3),
                entry("C", "C", 4),
                entry("x", "y", 5),
                entry("y", "z", 6),
                entry("z", "x", 7),
                entry("k", "z", 8),
            ]
        )
    )
    seen = [node for node, _ in s.tree.walk()]
    assert sorted(seen) == sorted(e.id for e in s.entries)
    assert len(seen) == len(set(seen))
    assert s.tree.parent["A"] is None and s.tree.parent["B"] == "A"
    assert s.tree.parent["x"] is None
    assert sum("cycle" in d.message for d in s.diagnostics) == 2
    assert s.tree.path_to("k") == ["x", "z", "k"]
    assert s.tree.path_to("y") == ["x", "z", "y"]


def test_long_chain_has_no_recursion(make_session: MakeSession) -> None:
    n = 5_000  # past Python's recursion limit five times over, as a million was
    lines = [b'{"type":"custom","id":"e0","parentId":null,"timestamp":"2025-01-01T10:00:00.000Z"}']
    lines += [
        f'{{"type":"custom","id":"e{i}","parentId":"e{i - 1}","timestamp":"2025-01-01T10:00:00.000Z"}}'.encode()
        for i in range(1, n)
    ]
    s = load_session(make_session(lines))
    assert len(s.tree.path) == n
    rows = flatten(s.tree)
    assert len(rows) == n and rows[-1].indent == 0


def test_labels_replay_in_file_order(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                entry("a", None, 1),
                entry("b", "a", 2),
                entry("l1", "b", 3, "label", targetId="a", label="start"),
                entry("l2", "l1", 4, "label", targetId="b", label="keep"),
                entry(
                    "l3", "a", 5, "label", targetId="a", label="renamed"
                ),  # on another branch: still counts
                entry("l4", "l2", 6, "label", targetId="b"),  # absent clears
                entry("l5", "l4", 7, "label", targetId="b", label="again"),
                entry("l6", "l5", 8, "label", targetId="b", label=None),  # null clears
                entry("l7", "l6", 9, "label", targetId="x", label="t"),
                entry("l8", "l7", 10, "label", targetId="x", label=""),  # empty clears
            ]
        )
    )
    assert s.labels == {"a": "renamed"}


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["First", "  Second  "], "Second"),
        (["First", ""], None),
        (["First", "   "], None),
        ([], None),
    ],
)
def test_session_name_is_latest_in_file(
    make_session: MakeSession, names: list[str], expected: str | None
) -> None:
    recs = [entry("a", None, 1)]
    for i, name in enumerate(names):
        recs.append(entry(f"n{i}", "a", 2 + i, "session_info", name=name))
    assert load_session(make_session(recs)).name == expected


def test_timestamp_ms_matches_javascript() -> None:
    assert timestamp_ms("2024-12-03T14:00:00.000Z") == 1733234400000
    assert timestamp_ms("2024-12-03T14:00:00.1234Z") == 1733234400123
    assert timestamp_ms("2024-12-03T15:00:00+01:00") == 1733234400000
    assert timestamp_ms("2024-12-03") == 1733184000000
    assert timestamp_ms(1733234400000) == 1733234400000
    assert timestamp_ms("yesterday") is None
    assert timestamp_ms(None) is None
    assert timestamp_ms("2024-13-03T14:00:00Z") is None


def test_tree_text_marks_path_labels_and_branches(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "fix the bug", 1),
                msg(
                    "a1",
                    "u1",
                    "assistant",
                    [
                        {
                            "type": "toolCall",
                            "id": "t1",
                            "name": "bash",
                            "arguments": {"command": "pytest -q"},
                        }
                    ],
                    2,
                ),
                msg(
                    "r1",
                    "a1",
                    "toolResult",
                    [{"type": "text", "text": "ok"}],
                    3,
                    toolCallId="t1",
                    toolName="bash",
                ),
                msg("u2", "u1", "user", "no, do it differently", 4),
                {
                    "type": "compaction",
                    "id": "c1",
                    "parentId": "u2",
                    "timestamp": ts(5),
                    "summary": "s",
                    "firstKeptEntryId": "u2",
                    "tokensBefore": 51234,
                },
                entry("l1", "c1", 6, "label", targetId="u1", label="start"),
            ]
        )
    )
    text = render_tree_text(s)
    lines = text.splitlines()
    assert lines[0] == "• [start] user: fix the bug"
    assert "• user: no, do it differently" in text
    assert "[compaction: 51.2k tokens]" in text  # as the page's card says it
    assert any(line.strip().startswith("└─ assistant: [bash: pytest -q]") for line in lines)
    assert "[bash: pytest -q]" in lines[-1]  # the tool result, described by its call
    [leaf_line] = [line for line in lines if line.endswith("← leaf")]
    assert "• [label: start]" in leaf_line


def test_tree_text_strips_terminal_controls(make_session: MakeSession) -> None:
    s = load_session(
        make_session([msg("u1", None, "user", "\x1b]8;;http://x\x07click\x1b[2J\x07", 1)])
    )
    text = render_tree_text(s)
    assert "\x1b" not in text and "\x07" not in text and "click" in text


def test_terminal_output_shows_bidi_and_invisible_characters(
    make_session: MakeSession,
) -> None:
    """Trojan Source in a terminal that applies bidi (VTE, mlterm): tree and info lines
    show the marks, never the characters."""
    from click.testing import CliRunner

    from piexport.cli import cli

    sneaky = "lab\u202eel\u2066 A\u034fB\u3164"
    path = make_session(
        [
            msg("u1", None, "user", f"hi {sneaky}", 1),
            entry("l1", "u1", 2, "label", targetId="u1", label=sneaky),
        ],
        header={
            "type": "session",
            "version": 3,
            "id": f"id{sneaky}",
            "timestamp": "2025-01-01T10:00:00.000Z",
            "cwd": f"/c/{sneaky}",
        },
    )
    for command in ("tree", "info"):
        out = CliRunner().invoke(cli, [command, str(path)]).output
        for ch in "\u202e\u2066\u034f\u3164":
            assert ch not in out, (command, ch)
        assert "⟪U+202E⟫" in out, command
