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
have no children at all.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
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


def relate(parent: SessionFile, children: list[SessionFile]) -> dict[Path, Link]:
    """What each child is of ``parent``: a fork, a subagent (and the call that started it), or
    a session started from it. Children are related together: a call that names one child
    is not the call another began under."""
    try:
        with parent.path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _relate(data, parent, children)
    except (OSError, ValueError):  # unreadable, or empty (mmap refuses 0 bytes)
        return {c.path: Link("started") for c in children}


def _relate(data: mmap.mmap, parent: SessionFile, children: list[SessionFile]) -> dict[Path, Link]:
    links: dict[Path, Link] = {}
    for child in children:
        if any(
            re.search(rb'"id"\s*:\s*"' + re.escape(eid.encode()) + rb'"', data)
            for eid in child.first_ids
        ):
            links[child.path] = Link("fork")
            continue
        names = [file_name(str(child.path))]
        if child.id and len(child.id) >= 8:
            names.append(child.id)
        for name in names:
            entry = _entry_naming(data, name.encode())
            if entry is not None:
                links[child.path] = Link("subagent", entry, "named")
                break
    named = {link.call for link in links.values() if link.call is not None}
    timed = [
        c
        for c in children
        if c.path not in links and c.started_ms is not None and c.cwd and c.cwd == parent.cwd
    ]
    runs = _calls(data, named) if timed else []
    for child in timed:
        assert child.started_ms is not None
        holding = [
            (end - begin, eid) for begin, end, eid in runs if begin <= child.started_ms <= end
        ]
        if holding:
            links[child.path] = Link("subagent", min(holding)[1], "time")
    return {c.path: links.get(c.path, Link("started")) for c in children}


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
    if end - start > MAX_LINE:
        return None
    try:
        obj = orjson.loads(data[start:end])
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def _entry_naming(data: mmap.mmap, name: bytes) -> str | None:
    """The first tool result (else tool call) of the parent whose line names the child."""
    calls: list[str] = []
    for start, end in _lines_with(data, name):
        record = _record(data, start, end)
        message = record.get("message") if record else None
        if not isinstance(message, dict) or not isinstance(record.get("id"), str):  # type: ignore[union-attr]
            continue
        entry_id = str(record["id"])  # type: ignore[index]
        if message.get("role") == "toolResult":
            return entry_id
        if message.get("role") == "assistant":
            calls.append(entry_id)
    return calls[0] if calls else None


def _calls(data: mmap.mmap, taken: set[str]) -> list[tuple[int, int, str]]:
    """(began, ended, tool result id) of every call of the parent, from its assistant
    message to its result; results in ``taken`` (named by a child already) left out."""
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
        if began is None or ended is None or not isinstance(eid, str) or eid in taken:
            continue
        runs.append((began, ended, eid))
    return runs
