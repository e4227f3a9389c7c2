"""Every file a session read, edited or wrote (``piexport files`` and the page's Files panel).

Calls on every branch count; files touched on the current branch come first. Each edit or
write keeps the entry that made it and whether that entry is on the current branch, so a
reader can go from the list to the moment in the transcript. Paths inside the session's cwd
are shown relative to it (POSIX and Windows paths alike).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from ..read.model import JSON, Entry, Session
from .stats import READ_TOOLS, WRITE_TOOLS

_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def is_windows_path(path: str) -> bool:
    return _WINDOWS.match(path) is not None


def shown_path(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies inside it, else as written."""
    if not cwd:
        return path
    if is_windows_path(cwd):
        if not is_windows_path(path):
            return path
        base, p = PureWindowsPath(cwd), PureWindowsPath(path)
        # Windows paths compare without case; the file's own spelling is kept
        if p.parts[: len(base.parts)] and [x.lower() for x in p.parts[: len(base.parts)]] == [
            x.lower() for x in base.parts
        ]:
            rest = p.parts[len(base.parts) :]
            return "\\".join(rest) if rest else "."
        return path
    if not path.startswith("/"):
        return path
    try:
        rel = PurePosixPath(path).relative_to(PurePosixPath(cwd))
    except ValueError:
        return path
    return str(rel)


@dataclass(slots=True)
class Change:
    """One edit or write of a file."""

    entry_id: str
    tool: str
    on_path: bool
    leaf: str | None
    """A leaf the entry leads to (the branch it is on)."""
    timestamp: Any
    diff: str | None = None
    """pi's own diff of an edit (``+12 text`` lines), when its result recorded one."""
    pairs: list[tuple[str, str]] = field(default_factory=list)
    """(oldText, newText) of an edit with no recorded diff."""
    content: str | None = None
    """What a write wrote."""
    error: bool = False

    def as_json(self) -> JSON:
        return {
            "entry": self.entry_id,
            "tool": self.tool,
            "onCurrentBranch": self.on_path,
            "leaf": self.leaf,
            "timestamp": self.timestamp,
            "error": self.error,
            "diff": self.diff,
            "edits": [{"oldText": o, "newText": n} for o, n in self.pairs],
            "chars": None if self.content is None else len(self.content),
        }


@dataclass(slots=True)
class FileTouch:
    path: str
    """As shown: relative to the cwd where inside it."""
    raw: str
    """As the first call wrote it."""
    on_path: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    """Calls per tool (read, edit, write)."""
    changes: list[Change] = field(default_factory=list)

    def as_json(self) -> JSON:
        return {
            "path": self.path,
            "rawPath": self.raw,
            "onCurrentBranch": self.on_path,
            "tools": dict(sorted(self.counts.items())),
            "reads": self.counts.get("read", 0),
            "edits": self.counts.get("edit", 0),
            "writes": self.counts.get("write", 0),
            "changes": [c.as_json() for c in self.changes],
        }


def _leaf_below(session: Session) -> dict[str, str]:
    """Entry id → the leaf its last child leads to (the newest branch below it)."""
    kids = session.tree.children
    out: dict[str, str] = {}
    for e in reversed(session.entries):
        children = kids.get(e.id)
        out[e.id] = out.get(children[-1], e.id) if children else e.id
    return out


def _results(session: Session) -> dict[str, Entry]:
    """toolCallId → its toolResult entry (the first one; ids that repeat keep the first)."""
    out: dict[str, Entry] = {}
    for e in session.entries:
        if e.role == "toolResult":
            cid = (e.message or {}).get("toolCallId")
            if isinstance(cid, str):
                out.setdefault(cid, e)
    return out


def files_touched(session: Session) -> list[FileTouch]:
    """Files read, edited or written on any branch: current branch first, then in the order
    they were first touched; each file's changes in file order."""
    on_path = set(session.tree.path)
    results = _results(session)
    leaves = _leaf_below(session)
    cwd = session.cwd
    files: dict[str, FileTouch] = {}
    for e in session.entries:
        for block in e.tool_calls():
            name = block.get("name")
            if not isinstance(name, str) or (name not in READ_TOOLS and name not in WRITE_TOOLS):
                continue
            args = block.get("arguments")
            if not isinstance(args, dict):
                continue
            path = args.get("path", args.get("file_path"))
            if not isinstance(path, str) or not path:
                continue
            shown = shown_path(path, cwd)
            touch = files.setdefault(shown, FileTouch(shown, path))
            touch.counts[name] = touch.counts.get(name, 0) + 1
            touch.on_path = touch.on_path or e.id in on_path
            if name in WRITE_TOOLS:
                touch.changes.append(_change(e, name, args, block, results, on_path, leaves))
    ordered = sorted(files.values(), key=lambda t: not t.on_path)  # stable: first-touch order
    for t in ordered:
        t.changes.sort(key=lambda c: not c.on_path)
    return ordered


def _change(
    e: Entry,
    name: str,
    args: JSON,
    block: JSON,
    results: dict[str, Entry],
    on_path: set[str],
    leaves: dict[str, str],
) -> Change:
    cid = block.get("id")
    result = results.get(cid) if isinstance(cid, str) else None
    rmsg = (result.message or {}) if result is not None else {}
    details = rmsg.get("details")
    diff = details.get("diff") if isinstance(details, dict) else None
    change = Change(
        e.id,
        name,
        e.id in on_path,
        leaves.get(e.id),
        e.timestamp,
        diff=diff if isinstance(diff, str) else None,
        error=rmsg.get("isError") is True,
    )
    if name == "write":
        text = args.get("content")
        change.content = text if isinstance(text, str) else None
    elif change.diff is None:
        edits = args.get("edits")
        for ed in edits if isinstance(edits, list) else [args]:
            if isinstance(ed, dict) and ("oldText" in ed or "newText" in ed):
                change.pairs.append((_str(ed.get("oldText")), _str(ed.get("newText"))))
    return change


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def files_json(session: Session) -> JSON:
    return {"cwd": session.cwd, "files": [f.as_json() for f in files_touched(session)]}


def files_text(session: Session) -> str:
    """One line per file, then one per change: for a terminal."""
    lines = []
    for f in files_touched(session):
        tools = ", ".join(f"{k} x{v}" for k, v in sorted(f.counts.items()))
        where = "" if f.on_path else "  (other branch only)"
        lines.append(f"{f.path}  {tools}{where}")
        for c in f.changes:
            branch = "current branch" if c.on_path else f"branch ending {c.leaf}"
            failed = " (failed)" if c.error else ""
            lines.append(f"    {c.tool} in entry {c.entry_id} · {branch}{failed}")
    return "\n".join(lines)
