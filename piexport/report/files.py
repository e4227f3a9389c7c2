"""Every file a session read, edited or wrote (``piexport files`` and the page's Files panel).

What changed comes first: modified files (with the lines each change added and removed, and
the net change of the file over the current branch, first version to last), then the files
only read. Calls on every branch count; within each group, files touched on the current
branch come first. Each edit or write keeps the entry that made it and whether that entry is
on the current branch, so a reader can go from the list to the moment in the transcript.
Paths inside the session's cwd are shown relative to it (POSIX and Windows paths alike).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..read.model import JSON, Entry, Session
from .compare import file_versions
from .linediff import line_counts, unified
from .paths import shown_path
from .stats import READ_TOOLS, WRITE_TOOLS


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

    @property
    def lines(self) -> tuple[int, int] | None:
        """Lines this change added and removed (a failed one none; a write, every line it
        wrote as added: what it replaced is not in the call)."""
        if self.error:
            return (0, 0)
        if self.diff is not None:
            rows = self.diff.split("\n")
            return (sum(r.startswith("+") for r in rows), sum(r.startswith("-") for r in rows))
        if self.content is not None:
            return (line_count(self.content), 0)
        if self.pairs:
            added = removed = 0
            for old, new in self.pairs:
                a, r = diff_counts(old, new)
                added, removed = added + a, removed + r
            return (added, removed)
        return None

    def as_json(self) -> JSON:
        lines = self.lines
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
            "linesAdded": None if lines is None else lines[0],
            "linesRemoved": None if lines is None else lines[1],
        }


def line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def diff_counts(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed going from ``old`` to ``new`` (``linediff``: bounded)."""
    return line_counts(old, new)


NET_DIFF_LINES = 400


@dataclass(slots=True)
class NetChange:
    """A file over the current branch: its first version to its last."""

    status: str
    """``changed``, ``unchanged`` (edited back), ``created`` (written with nothing read
    before: the whole text is new as far as the session shows), or ``unknown``."""
    added: int = 0
    removed: int = 0
    diff: str | None = None
    """Unified diff, first version to last (cut at ``NET_DIFF_LINES``)."""
    reason: str | None = None

    def as_json(self) -> JSON:
        return {
            "status": self.status,
            "added": self.added,
            "removed": self.removed,
            "diff": self.diff,
            "reason": self.reason,
        }


def net_change(path: str, first: str | None, last: str | None, why: str | None) -> NetChange:
    if last is None:
        return NetChange("unknown", reason=why or "the session does not hold the whole file")
    if first is None:
        return NetChange(
            "created",
            added=line_count(last),
            reason=(
                "the whole file was written: what it replaced, if anything, is not in the session"
            ),
        )
    if first == last:
        return NetChange("unchanged")
    made = unified(first, last, f"a/{path}", f"b/{path}")
    if made is None:
        added, removed = line_counts(first, last)
        return NetChange(
            "changed", added, removed, None, "too big a change to show line by line here"
        )
    lines = made
    added = sum(ln.startswith("+") and not ln.startswith("+++") for ln in lines)
    removed = sum(ln.startswith("-") and not ln.startswith("---") for ln in lines)
    if len(lines) > NET_DIFF_LINES:
        left = len(lines) - NET_DIFF_LINES
        lines = [*lines[:NET_DIFF_LINES], f"[{left} more diff lines not shown]\n"]
    return NetChange("changed", added, removed, "".join(lines))


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
    net: NetChange | None = None
    """Over the current branch, first version to last (None: not changed on it)."""

    @property
    def modified(self) -> bool:
        return bool(self.changes)

    @property
    def lines(self) -> tuple[int, int]:
        """Lines added and removed by its changes, added up (each change on its own)."""
        added = removed = 0
        for c in self.changes:
            got = c.lines
            if got is not None:
                added, removed = added + got[0], removed + got[1]
        return added, removed

    def as_json(self) -> JSON:
        added, removed = self.lines
        return {
            "path": self.path,
            "rawPath": self.raw,
            "onCurrentBranch": self.on_path,
            "modified": self.modified,
            "tools": dict(sorted(self.counts.items())),
            "reads": self.counts.get("read", 0),
            "edits": self.counts.get("edit", 0),
            "writes": self.counts.get("write", 0),
            "linesAdded": added,
            "linesRemoved": removed,
            "net": None if self.net is None else self.net.as_json(),
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
    """Files read, edited or written on any branch: modified ones first, then those only
    read; in each group the current branch's first, then in the order they were first
    touched; each file's changes in file order, with its net change over the current
    branch."""
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
    # stable: first-touch order within each group
    ordered = sorted(files.values(), key=lambda t: (not t.modified, not t.on_path))
    for t in ordered:
        t.changes.sort(key=lambda c: not c.on_path)
    _add_net_changes(session, files)
    return ordered


def _add_net_changes(session: Session, files: dict[str, FileTouch]) -> None:
    """Each file changed on the current branch: its first version there to its last."""
    last, why, first = file_versions(session, session.tree.path)
    for raw in first:
        touch = files.get(shown_path(raw, session.cwd))
        if touch is not None and touch.net is None:
            touch.net = net_change(touch.path, first[raw], last.get(raw), why.get(raw))


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


def net_text(net: NetChange | None) -> str:
    """``net +10 -2`` and the like: what a file became over the current branch."""
    if net is None:
        return "not changed on the current branch"
    if net.status == "changed":
        return f"net +{net.added} -{net.removed}"
    if net.status == "created":
        return (
            f"net +{net.added} (the whole file was written; what it replaced is not in the session)"
        )
    if net.status == "unchanged":
        return "net: back to its first version"
    return f"change over the branch not known: {net.reason}"


def files_text(session: Session) -> str:
    """Modified files (each with its changes), then files only read: for a terminal."""
    touched = files_touched(session)
    modified = [f for f in touched if f.modified]
    read = [f for f in touched if not f.modified]
    lines = []
    if modified:
        lines.append(f"Modified ({len(modified)}): lines added/removed by each change, and net")
    for f in modified:
        tools = ", ".join(f"{k} x{v}" for k, v in sorted(f.counts.items()))
        where = "" if f.on_path else "  (other branch only)"
        added, removed = f.lines
        lines.append(f"  {f.path}  +{added} -{removed} · {net_text(f.net)} · {tools}{where}")
        for c in f.changes:
            branch = "current branch" if c.on_path else f"branch ending {c.leaf}"
            failed = " (failed)" if c.error else ""
            got = c.lines
            counts = "" if got is None else f" +{got[0]} -{got[1]}"
            lines.append(f"      {c.tool}{counts} in entry {c.entry_id} · {branch}{failed}")
    if read:
        lines.append(f"Read only ({len(read)})")
    for f in read:
        tools = ", ".join(f"{k} x{v}" for k, v in sorted(f.counts.items()))
        where = "" if f.on_path else "  (other branch only)"
        lines.append(f"  {f.path}  {tools}{where}")
    return "\n".join(lines)
