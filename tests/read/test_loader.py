"""The loader: every non-blank line becomes the header, an entry, or a diagnostic."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piexport import InputError, load_session

from tests.support.sessions import HEADER, MakeSession, accounted, msg, ts


def chain(n: int, start: int = 1) -> list[dict]:
    out = []
    parent = None
    for i in range(start, start + n):
        eid = f"e{i:07d}"
        out.append(msg(eid, parent, "user" if i % 2 else "assistant", f"text {i}", i % 3000))
        parent = eid
    return out


def test_clean_file_loads_without_diagnostics(make_session: MakeSession) -> None:
    s = load_session(make_session(chain(5)))
    assert s.diagnostics == []
    assert [e.id for e in s.entries] == [f"e{i:07d}" for i in range(1, 6)]
    assert s.header is not None and s.header.cwd == "/home/alice/src/demo"
    assert s.tree.leaf_id == "e0000005"
    assert s.lines_read == 6


def test_truncated_last_line_is_reported_and_the_rest_kept(make_session: MakeSession) -> None:
    path = make_session(chain(3))
    path.write_bytes(
        path.read_bytes()
        + b'{"type":"message","id":"m9","parentId":"e0000003","message":{"role":"assistant","content":"hel'
    )
    s = load_session(path)
    assert len(s.entries) == 3
    [d] = s.diagnostics
    assert d.line == 5 and "truncated at end of file" in d.message
    assert str(d).startswith(f"{path}:5: ")


def test_stub_glued_to_a_record_is_salvaged(make_session: MakeSession) -> None:
    good = orjson.dumps(msg("m5", "e0000002", "user", "after the stub", 9))
    path = make_session([*chain(2), b'{"type":"label","id":"x","prNu' + good])
    s = load_session(path)
    assert "m5" in s.by_id
    assert s.by_id["m5"].parent_id == "e0000002"
    assert any(d.line == 4 and "cut-off record" in d.message for d in s.diagnostics)


def test_glued_complete_records_are_all_kept(make_session: MakeSession) -> None:
    """Real files hold a finished message directly followed by the next record (issue 13)."""
    a = orjson.dumps(
        msg("a1", "e0000002", "assistant", [{"type": "text", "text": 'done {"x": 1}'}], 5)
    )
    b = orjson.dumps(msg("u2", "a1", "user", "next", 6))
    c = orjson.dumps(
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "u2",
            "timestamp": ts(7),
            "summary": "s",
            "firstKeptEntryId": "u2",
            "tokensBefore": 10,
        }
    )
    path = make_session([*chain(2), a + b, a.replace(b'"a1"', b'"a2"', 1) + b"  " + c])
    s = load_session(path)
    assert [e.id for e in s.entries] == ["e0000001", "e0000002", "a1", "u2", "a2", "c1"]
    assert [e.line for e in s.entries][2:] == [4, 4, 5, 5]
    notes = [str(d) for d in s.diagnostics]
    assert notes == [
        f"{path}:4: 2 records on one line; both kept",
        f"{path}:5: 2 records on one line; both kept",
    ]
    assert accounted(s) == s.lines_read


def test_glued_records_without_ids_get_distinct_ids(make_session: MakeSession) -> None:
    rec = b'{"type":"message","message":{"role":"user","content":"x"}}'
    s = load_session(make_session([rec + rec + rec]))
    assert [e.id for e in s.entries] == ["line:2", "line:2.2", "line:2.3"]
    assert not any("duplicate" in d.message for d in s.diagnostics)


def test_stub_between_glued_records(make_session: MakeSession) -> None:
    """Records, a cut-off stub, more records, and a stub at the end: every complete one kept,
    in order, and the stubs named by column."""
    recs = [orjson.dumps(msg(f"g{i}", None, "user", f"t{i}", i)) for i in range(4)]
    stub = b'{"type":"message","id":"cut","message":{"role":"user","content":"x"},"pa'
    line = recs[0] + recs[1] + stub + recs[2] + recs[3] + stub
    s = load_session(make_session([line]))
    assert [e.id for e in s.entries] == ["g0", "g1", "g2", "g3"]
    [d] = s.diagnostics
    column = len(recs[0] + recs[1] + stub) + 1
    assert d.message == (
        f"4 records on one line; all kept; cut-off record before column {column} skipped; "
        f"cut-off record from column {len(line) - len(stub) + 1} to the end of the line skipped"
    )


def test_many_glued_records_are_read_once_each(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linear: each record of a long glued line is parsed once, never the rest of the line
    again for each record."""
    from piexport.read import loader

    calls = 0
    real = loader._object_at

    def counting(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(*args)

    monkeypatch.setattr(loader, "_object_at", counting)
    n = 5000
    line = b"".join(
        orjson.dumps(msg(f"r{i}", f"r{i - 1}" if i else None, "user", "x", 1)) for i in range(n)
    )
    stubbed = b"".join(
        b'{"type":"label","id":"x","prNu' + orjson.dumps(msg(f"s{i}", None, "user", "x", 1))
        for i in range(n)
    )
    s = load_session(make_session([line, stubbed]))
    assert len(s.entries) == 2 * n
    assert calls <= 2 * n + 2 * n + 4


def test_nul_run_costs_only_its_line(make_session: MakeSession) -> None:
    path = make_session([*chain(2), b"\x00" * 512, *chain(2, start=3)])
    s = load_session(path)
    assert len(s.entries) == 4
    assert [d.line for d in s.diagnostics] == [4]


def test_bom_and_crlf_are_invisible(make_session: MakeSession, tmp_path: Path) -> None:
    clean = make_session(chain(3))
    dirty = tmp_path / "crlf.jsonl"
    dirty.write_bytes(b"\xef\xbb\xbf" + clean.read_bytes().replace(b"\n", b"\r\n"))
    a, b = load_session(clean), load_session(dirty)
    assert b.diagnostics == []
    assert [e.raw for e in a.entries] == [e.raw for e in b.entries]
    assert all("\r" not in str(e.raw) for e in b.entries)


def test_invalid_utf8_is_replaced_and_kept(make_session: MakeSession) -> None:
    line = b'{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T10:00:01.000Z","message":{"role":"user","content":"caf\xe9 \xc0\xaf"}}'
    s = load_session(make_session([line]))
    assert s.by_id["u1"].raw["message"]["content"] == "caf\ufffd \ufffd\ufffd"
    assert [d.message for d in s.diagnostics] == ["invalid UTF-8 replaced with U+FFFD"]


def test_lone_surrogate_is_replaced_and_kept(make_session: MakeSession) -> None:
    line = b'{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T10:00:01.000Z","message":{"role":"user","content":"a\\ud800b"}}'
    s = load_session(make_session([line]))
    text = s.by_id["u1"].raw["message"]["content"]
    assert text == "a\ufffdb"
    text.encode("utf-8")  # would raise on a surrogate
    assert len(s.diagnostics) == 1 and s.diagnostics[0].line == 2


def test_line_separators_inside_strings_do_not_split_lines(make_session: MakeSession) -> None:
    text = "a\u2028b\u2029c\u0085d\u000b\u000ce"
    record = orjson.dumps(msg("u1", None, "user", text, 1)).replace(b'{"type"', b'{\r"type"', 1)
    s = load_session(make_session([record]))
    assert s.diagnostics == []
    assert s.by_id["u1"].raw["message"]["content"] == text


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (b"[1,2]", "an array"),
        (b'"hello"', "a string"),
        (b"42", "a number"),
        (b"null", "null"),
        (b"true", "a boolean"),
    ],
)
def test_non_object_lines_are_reported(make_session: MakeSession, line: bytes, kind: str) -> None:
    s = load_session(make_session([*chain(1), line, *chain(1, start=2)]))
    assert len(s.entries) == 2
    [d] = s.diagnostics
    assert d.line == 3 and f"expected a JSON object, got {kind}" in d.message


def test_deep_nesting_is_reported_not_a_crash(make_session: MakeSession) -> None:
    deep = (
        b'{"type":"message","id":"d1","parentId":null,"message":{"role":"user","content":'
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}}"
    )
    s = load_session(make_session([*chain(1), deep, *chain(1, start=2)]))
    assert len(s.entries) == 2
    assert any(d.line == 3 for d in s.diagnostics)


def test_oversized_line_is_skipped_without_holding_it(make_session: MakeSession) -> None:
    big = orjson.dumps(msg("big", None, "user", "x" * 50_000, 1))
    s = load_session(make_session([*chain(1), big, *chain(1, start=2)]), max_line_bytes=10_000)
    assert "big" not in s.by_id and len(s.entries) == 2
    [d] = s.diagnostics
    assert d.line == 3 and "over the 10000-byte limit" in d.message


def test_big_integer_ids_stay_distinct(make_session: MakeSession) -> None:
    lines = [
        b'{"type":"message","id":12345678901234567890123,"parentId":null,"message":{"role":"user","content":"a"}}',
        b'{"type":"message","id":12345678901234567890124,"parentId":12345678901234567890123,"message":{"role":"user","content":"b"}}',
    ]
    s = load_session(make_session(lines))
    assert [e.id for e in s.entries] == ["12345678901234567890123", "12345678901234567890124"]
    assert s.tree.parent["12345678901234567890124"] == "12345678901234567890123"
    assert sum("is not a string" in d.message for d in s.diagnostics) == 2


def test_duplicate_keys_last_wins(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                b'{"type":"message","id":"a","id":"b","parentId":null,"message":{"role":"user","content":"x"}}'
            ]
        )
    )
    assert [e.id for e in s.entries] == ["b"]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"   \n\n\t\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
        b"hello world\nnot json\n",
    ],
)
def test_no_session_data_is_one_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError, match=r"no session entries found") as info:
        load_session(path)
    assert str(path) in str(info.value)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        load_session(tmp_path / "nope.jsonl")


def test_missing_header_warns_and_keeps_entries(make_session: MakeSession) -> None:
    s = load_session(make_session(chain(3), header=None))
    assert s.header is None and len(s.entries) == 3
    assert any("no session header" in d.message for d in s.diagnostics)


def test_header_not_first_is_used_with_a_warning(make_session: MakeSession) -> None:
    s = load_session(make_session([*chain(2), HEADER], header=None))
    assert s.header is not None and s.header.line == 3
    assert len(s.entries) == 2
    assert any(d.line == 3 and "not the first" in d.message for d in s.diagnostics)


def test_second_header_is_reported(make_session: MakeSession) -> None:
    s = load_session(make_session([*chain(2), HEADER]))
    assert len(s.entries) == 2
    assert any(d.line == 4 and "another session header" in d.message for d in s.diagnostics)


def test_branched_from_is_accepted_as_parent_session(make_session: MakeSession) -> None:
    header = {**HEADER, "branchedFrom": "/x/y.jsonl"}
    assert load_session(make_session(chain(1), header=header)).header.parent_session == "/x/y.jsonl"


def test_entry_without_id_gets_a_line_id(make_session: MakeSession) -> None:
    rec = {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "x"}}
    s = load_session(make_session([rec, rec]))
    assert [e.id for e in s.entries] == ["line:2", "line:3"]
    assert s.tree.roots == ["line:2", "line:3"]


def test_duplicate_ids_keep_both_entries(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("m1", None, "user", "a", 1),
                msg("m3", "m1", "user", "b", 2),
                msg("m3", "m1", "user", "c", 3),
                msg("m4", "m3", "user", "d", 4),
            ]
        )
    )
    assert [e.id for e in s.entries] == ["m1", "m3", "m3~2", "m4"]
    assert s.tree.parent["m4"] == "m3"  # references resolve to the first holder of the id
    assert any(d.line == 4 and "duplicate id m3" in d.message for d in s.diagnostics)


def test_wrong_types_are_kept(make_session: MakeSession) -> None:
    recs = [
        {"type": "message", "id": "w1", "parentId": None, "message": "str"},
        {
            "type": "message",
            "id": "w2",
            "parentId": "w1",
            "message": {"role": "user", "content": 42},
        },
        {
            "type": "message",
            "id": "w3",
            "parentId": {},
            "timestamp": "yesterday",
            "message": {"role": "user", "content": [{"type": "image"}]},
        },
        {"id": "w4", "parentId": "w3"},
    ]
    s = load_session(make_session(recs))
    assert [e.id for e in s.entries] == ["w1", "w2", "w3", "w4"]
    assert s.tree.parent["w3"] is None
    assert any(d.line == 2 and "not an object" in d.message for d in s.diagnostics)
    assert any(d.line == 4 and "parentId is an object" in d.message for d in s.diagnostics)
    assert any(d.line == 4 and "timestamp" in d.message for d in s.diagnostics)
    assert any(d.line == 5 and "no type" in d.message for d in s.diagnostics)


def test_reads_from_a_stream() -> None:
    data = orjson.dumps(HEADER) + b"\n" + orjson.dumps(msg("a", None, "user", "hi", 1)) + b"\n"
    s = load_session(io.BytesIO(data))
    assert s.path == "<stdin>" and [e.id for e in s.entries] == ["a"]


def test_loader_never_writes_its_input(make_session: MakeSession) -> None:
    path = make_session(
        [{"type": "message", "message": {"role": "hookMessage", "content": "x"}}],
        header={k: v for k, v in HEADER.items() if k != "version"},
    )
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    load_session(path)
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime


def test_every_nonblank_line_is_accounted_for(make_session: MakeSession) -> None:
    good = orjson.dumps(msg("m5", None, "user", "x", 9))
    path = make_session(
        [
            *chain(3),
            b"[1]",
            b"garbage",
            b"",
            b'{"type":"label","id":"x","pr' + good,
            b"\xff\xfe",
            *chain(2, start=10),
        ]
    )
    s = load_session(path)
    assert s.lines_read == 10
    assert accounted(s) == s.lines_read


def test_sample_sessions_load_and_only_the_damaged_one_complains() -> None:
    from tests.support.sessions import sample_files

    files = sample_files()
    assert len(files) >= 7
    for path in files:
        s = load_session(path)
        assert accounted(s) == s.lines_read, path
        if "0196f145" in path.name:
            assert len(s.diagnostics) == 6
        else:
            assert s.diagnostics == [], path


_glue_texts = st.text(alphabet=st.sampled_from(list('ab{}[]":,\\ \n\u2028x1')), max_size=12)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(_glue_texts, st.booleans(), st.integers(min_value=0, max_value=2)),
        min_size=1,
        max_size=8,
    )
)
def test_glued_records_property(make_session: MakeSession, plan: list[Any]) -> None:
    """Records written with or without the newline between them, some after a cut-off
    stub: every complete record comes out exactly once, in file order, and every line is
    accounted for."""
    lines: list[bytes] = [b""]
    expected = []
    for i, (text, newline, stub) in enumerate(plan):
        record = orjson.dumps(msg(f"r{i}", None, "user", text, i))
        if stub == 1:
            lines[-1] += record[: len(record) // 2]  # a cut-off copy before it
        lines[-1] += record
        expected.append(f"r{i}")
        if newline:
            lines.append(b"")
    s = load_session(make_session([ln for ln in lines if ln]))
    assert [e.id for e in s.entries] == expected
    assert accounted(s) == s.lines_read
