"""Version 1 and 2 files are migrated in memory exactly as pi migrates them."""

from __future__ import annotations

import orjson

from piexport import build_session_context, load_session
from piexport.read.migrate import v1_entry_id

from tests.support.sessions import HEADER, MakeSession, ts

V1_HEADER = {k: v for k, v in HEADER.items() if k != "version"}


def v1(second: int, role: str, text: str) -> dict:
    return {"type": "message", "timestamp": ts(second), "message": {"role": role, "content": text}}


def test_v1_gets_a_deterministic_chain(make_session: MakeSession) -> None:
    path = make_session(
        [v1(1, "user", "a"), v1(2, "assistant", "b"), v1(3, "user", "c")], header=V1_HEADER
    )
    s = load_session(path)
    assert [e.id for e in s.entries] == [v1_entry_id(n) for n in (2, 3, 4)]
    assert [e.parent_id for e in s.entries] == [None, v1_entry_id(2), v1_entry_id(3)]
    assert s.header is not None and s.header.version == 1
    assert [e.id for e in load_session(path).entries] == [e.id for e in s.entries]
    assert s.diagnostics == []


def test_v1_compaction_index_counts_the_header(make_session: MakeSession) -> None:
    comp = {
        "type": "compaction",
        "timestamp": ts(4),
        "summary": "s",
        "tokensBefore": 9,
        "firstKeptEntryIndex": 2,
    }
    s = load_session(
        make_session(
            [v1(1, "user", "a"), v1(2, "user", "b"), v1(3, "user", "c"), comp], header=V1_HEADER
        )
    )
    c = s.entries[-1]
    assert c.raw["firstKeptEntryId"] == s.entries[1].id
    assert "firstKeptEntryIndex" not in c.raw
    msgs = build_session_context(s)["messages"]
    assert [m.get("content") for m in msgs] == [None, "b", "c"]


def test_v1_compaction_index_at_header_or_past_end_resolves_to_nothing(
    make_session: MakeSession,
) -> None:
    for index in (0, 99, 1.5, "2"):
        comp = {
            "type": "compaction",
            "timestamp": ts(4),
            "summary": "s",
            "tokensBefore": 9,
            "firstKeptEntryIndex": index,
        }
        s = load_session(make_session([v1(1, "user", "a"), comp], header=V1_HEADER))
        assert "firstKeptEntryId" not in s.entries[-1].raw


def test_v2_hook_message_becomes_custom(make_session: MakeSession) -> None:
    rec = {
        "type": "message",
        "id": "h1",
        "parentId": None,
        "timestamp": ts(1),
        "message": {"role": "hookMessage", "customType": "x", "content": "y", "display": True},
    }
    s = load_session(make_session([rec], header={**HEADER, "version": 2}))
    assert s.by_id["h1"].role == "custom"


def test_v3_and_newer_are_left_alone(make_session: MakeSession) -> None:
    rec = {
        "type": "message",
        "id": "h1",
        "parentId": None,
        "timestamp": ts(1),
        "message": {"role": "hookMessage", "content": "y"},
    }
    for version in (3, 4):
        s = load_session(make_session([rec], header={**HEADER, "version": version}))
        assert s.by_id["h1"].role == "hookMessage"


def test_headerless_file_without_ids_reads_as_v1(make_session: MakeSession) -> None:
    s = load_session(make_session([v1(1, "user", "a"), v1(2, "user", "b")], header=None))
    assert s.tree.path == [v1_entry_id(1), v1_entry_id(2)]


def test_v1_glued_records_count_as_if_the_newline_were_there(make_session: MakeSession) -> None:
    """Two records on one line (issue 13): firstKeptEntryIndex counts both, ids differ."""
    comp = {"type": "compaction", "summary": "s", "tokensBefore": 9, "firstKeptEntryIndex": 3}
    glued = orjson.dumps(v1(2, "assistant", "b")) + orjson.dumps(v1(3, "user", "c"))
    s = load_session(
        make_session([v1(1, "user", "a"), glued, v1(4, "user", "d"), comp], header=V1_HEADER)
    )
    ids = [e.id for e in s.entries]
    assert ids == ["00000002", "00000003", "00000003-2", "00000004", "00000005"]
    assert [e.parent_id for e in s.entries][1:] == ids[:-1]
    c = s.entries[-1]
    assert c.raw["firstKeptEntryId"] == "00000003-2"
    msgs = build_session_context(s)["messages"]
    assert [m.get("content") for m in msgs][1:] == ["c", "d"]
