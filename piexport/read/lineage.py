"""Sessions started from other sessions: forks, subagents, and sessions begun from another.

A header's ``parentSession`` names the session a new one came from, in three ways pi and its
extensions write:

- a **fork** (``/fork``, ``/clone``, ``createBranchedSession``) copies the parent's path, entry
  ids included, so its first entry is one of the parent's;
- a **subagent** (an extension's tool spawning pi on a task, or an in-process subagent) starts
  a fresh context while a tool call of the parent runs: the call's result or details usually
  name the child's session file or id, else the child began inside the call's time window,
  in the same folder;
- any other session that names a parent (``/new`` from an extension, a hand-off) was
  **started** from it.

Only the parent's bytes are searched (ids and names), and only the lines holding tool calls
and results are parsed when time has to decide: a parent can be a 200 MB session, and most
have no children at all. Each of those searches is one pass over the parent for all its
children (300 children of a 100 MB parent are not 300 passes), kept for the same file.
"""

from __future__ import annotations

import heapq
import mmap
import re
from collections import Counter, OrderedDict
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Literal

import orjson

from .tree import timestamp_ms

Relation = Literal["fork", "subagent", "started"]
How = Literal["named", "time"]

MAX_LINE = 64 << 20
"""A line this long is not parsed while looking for a call (a tool output, not a call)."""


@dataclass(frozen=True, slots=True)
class SessionFile:
    """What a session file says of itself in its first lines (no full load)."""

    path: Path
    id: str | None
    cwd: str | None
    started_ms: int | None
    parent: str | None
    """The header's ``parentSession`` (or older ``branchedFrom``): a path on the machine
    that wrote it, so it is matched on its file name."""
    first_ids: tuple[str, ...]
    """The ids of its first few entries (a fork's are its parent's)."""


@dataclass(frozen=True, slots=True)
class Link:
    """How a session relates to the parent its header names."""

    relation: Relation
    call: str | None = None
    """The parent's entry that started it (the tool result that names it, or the call whose
    time window holds its start); None when nothing in the parent points at it."""
    how: How | None = None
    """``named``: the parent's entry names the child's file or id; ``time``: the child began
    while that call ran, in the same folder."""


def file_name(path: str) -> str:
    """The last part of a path from any machine (POSIX, Windows)."""
    return PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name


def read_session_file(path: Path, header: dict[str, object], entries: int = 3) -> SessionFile:
    """The facts of one file: its header (already read) and the ids of its first entries."""
    first: list[str] = []
    try:
        with path.open("rb") as f:
            f.readline(1 << 20)  # the header
            while len(first) < entries:
                line = f.readline(1 << 20)
                if not line:
                    break
                try:
                    obj = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                    first.append(obj["id"])
    except OSError:
        pass
    parent = header.get("parentSession") or header.get("branchedFrom")
    sid, cwd = header.get("id"), header.get("cwd")
    return SessionFile(
        path,
        sid if isinstance(sid, str) else None,
        cwd if isinstance(cwd, str) else None,
        timestamp_ms(header.get("timestamp")),
        parent if isinstance(parent, str) and parent else None,
        tuple(first),
    )


SCANS: Counter[str] = Counter()
"""Work done on parents, counted: ``open`` (a parent file opened), ``ids``, ``names`` and
``calls`` (a pass over all of a parent's bytes), ``loose`` (a pass for one name with no
UUID in it), ``parsed`` (lines parsed). Tests read it; nothing decides by it."""

_UUID = re.compile(rb"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_ID_FIELD = re.compile(rb'"id"\s*:\s*"([^"\\]*)"')
CACHED_PARENTS = 8
"""Parents whose index is kept (by file identity: a changed file is read again)."""


@dataclass(slots=True)
class _ParentIndex:
    """What the children of one parent file are looked up in, each part made in one pass
    over the parent when first needed, whatever the number of children."""

    ids: frozenset[bytes] | None = None
    """Every ``"id": "…"`` value in the file (a fork's first entries are among them)."""
    named: dict[bytes, str | None] = field(default_factory=dict)
    """A child's file name or id → the parent's entry naming it (None: none does)."""
    runs: list[tuple[int, int, str]] | None = None
    """(began, ended, tool result id) of every call of the parent."""


_CACHE: OrderedDict[tuple[object, ...], _ParentIndex] = OrderedDict()


class _Bytes:
    """The parent's bytes, opened (and counted) on first use only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stack = ExitStack()
        self._data: mmap.mmap | None = None

    def get(self) -> mmap.mmap:
        if self._data is None:
            SCANS["open"] += 1
            f = self._stack.enter_context(self.path.open("rb"))
            self._data = self._stack.enter_context(
                mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            )
        return self._data

    def __enter__(self) -> _Bytes:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


def _names(child: SessionFile) -> list[bytes]:
    """How a parent's entry may name a child: its file name, and its id when that is long
    enough not to turn up by chance."""
    names = [file_name(str(child.path)).encode()]
    if child.id and len(child.id) >= 8:
        names.append(child.id.encode())
    return names


def relate(parent: SessionFile, children: list[SessionFile]) -> dict[Path, Link]:
    """What each child is of ``parent``: a fork, a subagent (and the call that started it), or
    a session started from it. Children are related together: a call that names one child
    is not the call another began under.

    The parent is read in one pass per kind of fact (its ids, the lines naming any child,
    its calls), not once per child, and what was read is kept for the same file."""
    started = {c.path: Link("started") for c in children}
    try:
        st = parent.path.stat()
    except OSError:
        return started
    key = (str(parent.path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    index = _CACHE.pop(key, None) or _ParentIndex()
    try:
        with _Bytes(parent.path) as data:
            links = _relate(data, index, parent, children)
    except (OSError, ValueError):  # unreadable, or empty (mmap refuses 0 bytes)
        return started
    _CACHE[key] = index
    while len(_CACHE) > CACHED_PARENTS:
        _CACHE.popitem(last=False)
    return links


def _relate(
    data: _Bytes, index: _ParentIndex, parent: SessionFile, children: list[SessionFile]
) -> dict[Path, Link]:
    if index.ids is None:
        SCANS["ids"] += 1
        index.ids = frozenset(m.group(1) for m in _ID_FIELD.finditer(data.get()))
    ids = index.ids
    forks = {c.path for c in children if any(eid.encode() in ids for eid in c.first_ids)}
    wanted = {n for c in children if c.path not in forks for n in _names(c)}
    missing = wanted - index.named.keys()
    if missing:
        index.named.update(_entries_naming(data.get(), missing))
    links: dict[Path, Link] = {}
    for child in children:
        if child.path in forks:
            links[child.path] = Link("fork")
            continue
        for name in _names(child):
            entry = index.named.get(name)
            if entry is not None:
                links[child.path] = Link("subagent", entry, "named")
                break
    named = {link.call for link in links.values() if link.call is not None}
    timed = [
        c
        for c in children
        if c.path not in links and c.started_ms is not None and c.cwd and c.cwd == parent.cwd
    ]
    if timed and index.runs is None:
        index.runs = _calls(data.get())
    runs = sorted(r for r in index.runs or () if r[2] not in named)
    for child, call in _shortest_holding(runs, timed):
        links[child.path] = Link("subagent", call, "time")
    return {c.path: links.get(c.path, Link("started")) for c in children}


def _shortest_holding(
    runs: list[tuple[int, int, str]], children: list[SessionFile]
) -> Iterator[tuple[SessionFile, str]]:
    """Each child with the shortest call (``runs`` sorted by start) whose time window holds
    its start, ties to the smaller result id: one sweep over both, children in time order,
    the calls begun so far in a heap by length (so not every call for every child)."""
    begun: list[tuple[int, str, int]] = []  # (length, result id, end)
    i = 0
    for child in sorted(children, key=lambda c: c.started_ms or 0):
        at = child.started_ms
        assert at is not None
        while i < len(runs) and runs[i][0] <= at:
            begin, end, eid = runs[i]
            heapq.heappush(begun, (end - begin, eid, end))
            i += 1
        while begun and begun[0][2] < at:
            heapq.heappop(begun)  # ended before this child began: before every later one too
        if begun:
            yield child, begun[0][1]


def _entries_naming(data: mmap.mmap, names: set[bytes]) -> dict[bytes, str | None]:
    """For each name, the first tool result (else tool call) of the parent whose line holds
    it. Names are found by the UUID in them, in one pass over the parent for all of them:
    each UUID found is looked up, and a name holding it is compared where it would be."""
    anchored: dict[bytes, list[tuple[bytes, int]]] = {}
    lines: dict[bytes, list[tuple[int, int]]] = {n: [] for n in names}
    for name in names:
        m = _UUID.search(name)
        if m is None:  # no UUID to find it by: a pass of its own (pi's names all have one)
            SCANS["loose"] += 1
            lines[name] = _lines_with(data, name)
        else:
            anchored.setdefault(m.group(), []).append((name, m.start()))
    if anchored:
        SCANS["names"] += 1
        line_start = line_end = -1
        for m in _UUID.finditer(data):
            group = anchored.get(m.group())
            if group is None:
                continue
            if m.start() >= line_end:  # the first match on its line: find the line
                line_start = data.rfind(b"\n", 0, m.start()) + 1
                line_end = data.find(b"\n", m.end())
                line_end = len(data) if line_end < 0 else line_end
            for name, at in group:
                begin = m.start() - at
                spans = lines[name]
                if spans and spans[-1][0] == line_start:
                    continue
                if begin >= line_start and data[begin : begin + len(name)] == name:
                    spans.append((line_start, line_end))
    records: dict[int, dict[str, object] | None] = {}
    found: dict[bytes, str | None] = {}
    for name, spans in lines.items():
        calls: list[str] = []
        result: str | None = None
        for start, end in spans:
            if start not in records:
                records[start] = _record(data, start, end)
            record = records[start]
            message = record.get("message") if record else None
            if not isinstance(message, dict) or not isinstance(record.get("id"), str):  # type: ignore[union-attr]
                continue
            entry_id = str(record["id"])  # type: ignore[index]
            if message.get("role") == "toolResult":
                result = entry_id
                break
            if message.get("role") == "assistant":
                calls.append(entry_id)
        found[name] = result if result is not None else (calls[0] if calls else None)
    return found


def _lines_with(data: mmap.mmap, needle: bytes) -> list[tuple[int, int]]:
    """(start, end) of every line holding ``needle``."""
    out: list[tuple[int, int]] = []
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        out.append((start, end))
        at = data.find(needle, end)
    return out


def _record(data: mmap.mmap, start: int, end: int) -> dict[str, object] | None:
    SCANS["parsed"] += 1
    if end - start > MAX_LINE:
        return None
    try:
        obj = orjson.loads(data[start:end])
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def _calls(data: mmap.mmap) -> list[tuple[int, int, str]]:
    """(began, ended, tool result id) of every call of the parent, from its assistant
    message to its result."""
    SCANS["calls"] += 1
    called: dict[str, int] = {}
    for start, end in _lines_with(data, b'"toolCall"'):
        record = _record(data, start, end)
        message = record.get("message") if record else None
        when = timestamp_ms(record.get("timestamp")) if record else None
        if not isinstance(message, dict) or message.get("role") != "assistant" or when is None:
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and isinstance(block.get("id"), str):
                called.setdefault(block["id"], when)
    runs: list[tuple[int, int, str]] = []
    for start, end in _lines_with(data, b'"toolResult"'):
        record = _record(data, start, end)
        message = record.get("message") if record else None
        if not isinstance(message, dict) or message.get("role") != "toolResult":
            continue
        began = called.get(str(message.get("toolCallId")))
        ended = timestamp_ms(record.get("timestamp")) if record else None
        eid = record.get("id") if record else None
        if began is None or ended is None or not isinstance(eid, str):
            continue
        runs.append((began, ended, eid))
    return runs
