"""Linking children to their parent reads the parent once for all of them (issue 36: 300 tiny
children naming a 100 MB parent were 300+ passes over it). Counted, never timed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from piexport.read import lineage
from piexport.read.lineage import SCANS, SessionFile, read_session_file, relate

from tests.support.sessions import HEADER, to_lines

T0 = "2025-01-01T10:00:00.000Z"


def _ts(ms: int) -> str:
    seconds, milli = divmod(ms, 1000)
    minutes, secs = divmod(seconds, 60)
    hours, mins = divmod(minutes, 60)
    return f"2025-01-01T{10 + hours:02d}:{mins:02d}:{secs:02d}.{milli:03d}Z"


def _kid(i: int) -> str:
    return f"0195a000-0000-7000-8000-{i:012d}"


def _kid_file(i: int) -> str:
    return f"2025-01-01T10-00-00-000Z_{_kid(i)}.jsonl"


def _write(folder: Path, calls: int, kids: int) -> tuple[Path, list[Path]]:
    """A parent of ``calls`` tool calls, each a second long; its first kids/3 results name a
    child's file, the next third of the children began inside later calls, the rest
    elsewhere; child 0 is a fork (its first entry is the parent's)."""
    records: list[Any] = []
    prev = None
    for i in range(calls):
        text = f"started {_kid_file(i)}" if 0 < i < kids // 3 else "done"
        call = {"type": "toolCall", "id": f"c{i}", "name": "task", "arguments": {}}
        records.append(
            {
                "type": "message",
                "id": f"a{i}",
                "parentId": prev,
                "timestamp": _ts(2000 * i),
                "message": {"role": "assistant", "content": [call]},
            }
        )
        records.append(
            {
                "type": "message",
                "id": f"r{i}",
                "parentId": f"a{i}",
                "timestamp": _ts(2000 * i + 1000),
                "message": {
                    "role": "toolResult",
                    "toolCallId": f"c{i}",
                    "toolName": "task",
                    "content": [{"type": "text", "text": text}],
                },
            }
        )
        prev = f"r{i}"
    parent = folder / "2025-01-01T10-00-00-000Z_0195a000-0000-7000-8000-00000000ffff.jsonl"
    parent.write_bytes(to_lines([{**HEADER, "timestamp": T0, "cwd": "/w"}, *records]))
    children = []
    for k in range(kids):
        if k == 0:
            first, start, cwd = "a0", 500, "/w"  # a fork: the parent's first entry
        elif k < kids // 3:
            first, start, cwd = f"k{k}", 10**8, "/w"  # named by a result
        elif k < 2 * kids // 3:
            first, start, cwd = f"k{k}", 2000 * k + 500, "/w"  # inside call k's window
        else:
            first, start, cwd = f"k{k}", 500, "/elsewhere"
        header = {
            **HEADER,
            "id": _kid(k),
            "timestamp": _ts(start),
            "cwd": cwd,
            "parentSession": f"/home/u/.pi/agent/sessions/--w--/{parent.name}",
        }
        entry = {"type": "message", "id": first, "parentId": None, "timestamp": _ts(start)}
        path = folder / _kid_file(k)
        path.write_bytes(to_lines([header, {**entry, "message": {"role": "user", "content": "x"}}]))
        children.append(path)
    return parent, children


def _facts(path: Path) -> SessionFile:
    return read_session_file(path, orjson.loads(path.read_bytes().split(b"\n", 1)[0]))


def _relate_counted(parent: Path, children: list[Path]) -> tuple[dict[Path, Any], Counter[str]]:
    before = Counter(SCANS)
    links = relate(_facts(parent), [_facts(c) for c in children])
    return links, Counter(SCANS) - before


def test_one_pass_over_the_parent_for_all_its_children(tmp_path: Path) -> None:
    lineage._CACHE.clear()
    parent, children = _write(tmp_path, calls=400, kids=300)
    links, work = _relate_counted(parent, children)
    kinds = Counter((link.relation, link.how) for link in links.values())
    assert kinds == {
        ("fork", None): 1,
        ("subagent", "named"): 99,
        ("subagent", "time"): 100,
        ("started", None): 100,
    }
    for k in range(1, 100):
        assert links[children[k]].call == f"r{k}"  # the result naming it
    for k in range(100, 200):
        assert links[children[k]].call == f"r{k}"  # the call it began under
    # the code before: 300 id searches and 500 name searches, each over the whole parent
    assert work == {"open": 1, "ids": 1, "names": 1, "calls": 1, "parsed": work["parsed"]}
    lines = 1 + 2 * 400
    assert work["parsed"] <= 2 * lines  # calls and results once each, naming lines once


def test_the_passes_do_not_grow_with_the_children(tmp_path: Path) -> None:
    counts = []
    for kids in (30, 300):
        lineage._CACHE.clear()
        folder = tmp_path / str(kids)
        folder.mkdir()
        parent, children = _write(folder, calls=400, kids=kids)
        _links, work = _relate_counted(parent, children)
        counts.append({k: v for k, v in work.items() if k != "parsed"})
    assert counts[0] == counts[1] == {"open": 1, "ids": 1, "names": 1, "calls": 1}


def test_a_parent_read_once_is_not_read_again_until_it_changes(tmp_path: Path) -> None:
    lineage._CACHE.clear()
    parent, children = _write(tmp_path, calls=50, kids=30)
    first, _work = _relate_counted(parent, children)
    again, work = _relate_counted(parent, children)
    assert again == first
    assert not work  # nothing opened, nothing parsed
    some, work = _relate_counted(parent, children[:5])  # fewer children: all known already
    assert not work and some == {c: first[c] for c in children[:5]}
    with parent.open("ab") as f:  # the parent changes: read again
        f.write(
            b'{"type":"message","id":"z","parentId":"r49","timestamp":"' + T0.encode() + b'"}\n'
        )
    changed, work = _relate_counted(parent, children)
    assert changed == first
    assert work["open"] == 1 and work["ids"] == 1
