"""Model → what the session template walks: the tree as a flat event list, tools paired.

The tree is flattened here, iteratively, so templates never recurse (a 10,000-deep chain
would overflow a recursive macro). Each entry appears exactly once: the current path runs
straight down the page, and every other branch sits in a collapsed block where it forks.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal

from .context import build_session_context
from .loader import gc_paused
from .model import Entry, Session
from .outline import entry_summary, tool_calls_by_id
from .redact import shorten
from .stats import Figures, file_figures, path_figures
from .tree import Row, flatten

_SAFE_ID = re.compile(r"^[A-Za-z0-9_.:~-]{1,64}$")
MAX_INDENT = 10
"""Navigator rows show at most this many levels of tree lines; deeper rows say how deep they
are instead, so a tree branching thousands deep costs a line per row, not a page per row."""


def dom_id(entry_id: str) -> str:
    """``entry-<id>`` when the id is tame, else a stable hash: ids come from the file."""
    if _SAFE_ID.match(entry_id):
        return f"entry-{entry_id}"
    return "entry-x" + hashlib.sha1(entry_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class OutlineRow:
    """One row of the navigator, laid out like pi's ``/tree``."""

    id: str
    dom: str
    prefix: str
    """Box-drawing characters that indent the row (only where the tree branches)."""
    on_path: bool
    """On the current path (root → the last entry in the file)."""
    label: str | None
    text: str
    """One-line description: the same words ``piexport tree`` prints."""
    leaf: bool
    """The current leaf (the last entry in the file)."""
    is_end: bool
    """Any leaf: choosing it shows one whole path."""


@dataclass(slots=True)
class Event:
    """One step of the page: an entry, or the start/end of an alternative branch."""

    kind: Literal["entry", "open", "close"]
    """"open" starts a collapsed block holding another branch; "close" ends it."""
    entry: Entry
    label: str = ""


@dataclass(slots=True)
class SessionView:
    """Everything the session template needs, computed once."""

    session: Session
    title: str
    events: list[Event]
    outline: list[OutlineRow]
    bookmarks: list[OutlineRow]
    """Labelled entries, in navigator order."""
    results: dict[str, Entry]
    """toolCall id → its toolResult entry."""
    paired_results: set[str]
    """Ids of toolResult entries shown next to their call."""
    on_path: set[str]
    parent_dom: dict[str, str]
    """Entry id → DOM id of its parent ("" for a root): the page's script walks paths with it."""
    out_of_context: dict[str, str]
    """Entry id → id of the first compaction that summarised it away (on any branch)."""
    dimmed: set[str]
    """Entries summarised away by a compaction on the current path."""
    compaction_no: dict[str, int]
    """Compaction entry id → 1, 2, … in file order."""
    left_leaves: dict[str, str]
    """branch_summary id → the entry the user left (where the summarised branch ended)."""
    path_figures: Figures
    file_figures: Figures
    thinking_level: str
    """What the model was set to at the leaf, as pi's context gives it."""
    summaries: dict[str, str]
    """Entry id → one-line description (the navigator's text)."""
    parent_href: str | None = None
    forks: list[tuple[str, str]] = field(default_factory=list)

    @property
    def leaf_dom(self) -> str:
        leaf = self.session.tree.leaf_id
        return dom_id(leaf) if leaf is not None else ""


@gc_paused()
def build_view(
    session: Session, *, parent_href: str | None = None, forks: list[tuple[str, str]] | None = None
) -> SessionView:
    """Shape a loaded session for the template; pure, and linear in the number of entries."""
    tree = session.tree
    results: dict[str, Entry] = {}
    for e in session.entries:
        msg = e.message
        if msg is not None and msg.get("role") == "toolResult":
            cid = msg.get("toolCallId")
            if isinstance(cid, str) and cid not in results:
                results[cid] = e
    calls = tool_calls_by_id(session)
    paired = {r.id for cid, r in results.items() if cid in calls}
    title = session.name or session.first_user_text() or "Untitled session"
    outline = [
        OutlineRow(
            id=row.id,
            dom=dom_id(row.id),
            prefix=_prefix(row),
            on_path=row.on_path,
            label=session.labels.get(row.id),
            text=entry_summary(session.by_id[row.id], calls),
            leaf=row.id == tree.leaf_id,
            is_end=row.id not in tree.children,
        )
        for row in flatten(tree)
    ]
    out_of_context, dimmed, numbers = _compactions(session)
    return SessionView(
        session=session,
        title=shorten(" ".join(title.split()), 200, ""),
        events=_events(session),
        outline=outline,
        bookmarks=[r for r in outline if r.label],
        results=results,
        paired_results=paired,
        on_path=set(tree.path),
        parent_dom={
            e.id: dom_id(p) if (p := tree.parent.get(e.id)) is not None else ""
            for e in session.entries
        },
        out_of_context=out_of_context,
        dimmed=dimmed,
        compaction_no=numbers,
        left_leaves=_left_leaves(session),
        path_figures=path_figures(session),
        file_figures=file_figures(session),
        thinking_level=str(build_session_context(session).get("thinkingLevel", "off")),
        summaries={r.id: r.text for r in outline},
        parent_href=parent_href,
        forks=forks or [],
    )


def _prefix(row: Row) -> str:
    """pi's tree lines for one row; past ``MAX_INDENT`` levels, the depth as a number."""
    if row.indent <= MAX_INDENT:
        return row.prefix()
    return f"{row.indent}→ {row.connector}"


def _events(session: Session) -> list[Event]:
    """Depth first; at each fork the alternatives come (collapsed) before the main line."""
    tree = session.tree
    on_path = set(tree.path)
    sizes = _subtree_sizes(session)
    events: list[Event] = []
    roots = sorted(tree.roots, key=lambda r: r not in on_path)
    stack: list[tuple[str, str]] = []

    def push_children(kids: list[str]) -> None:
        if not kids:
            return
        main = next((k for k in kids if k in on_path), kids[0])
        stack.append(("node", main))
        for alt in reversed([k for k in kids if k != main]):
            stack.append(("close", alt))
            stack.append(("node", alt))
            stack.append(("open", alt))

    push_children(roots)
    while stack:
        kind, node = stack.pop()
        entry = session.by_id[node]
        if kind == "node":
            events.append(Event("entry", entry))
            push_children(tree.children.get(node, []))
        elif kind == "open":
            entries, leaves = sizes[node]
            what = "Separate root" if tree.parent.get(node) is None else "Other branch"
            count = f"{entries} entr{'y' if entries == 1 else 'ies'}"
            if leaves > 1:
                count += f", {leaves} leaves"
            events.append(Event("open", entry, f"{what} · {count}"))
        else:
            events.append(Event("close", entry))
    return events


def _subtree_sizes(session: Session) -> dict[str, tuple[int, int]]:
    """Entry id → (entries, leaves) in its subtree, in one pass (no recursion, no re-walks)."""
    tree = session.tree
    order = [node for node, _depth in tree.walk()]
    sizes: dict[str, tuple[int, int]] = {}
    for node in reversed(order):
        kids = tree.children.get(node, ())
        if not kids:
            sizes[node] = (1, 1)
            continue
        entries, leaves = 1, 0
        for k in kids:
            e, lv = sizes[k]
            entries += e
            leaves += lv
        sizes[node] = (entries, leaves)
    return sizes


def _is_ancestor(session: Session, candidate: str, entry_id: str) -> bool:
    """Whether candidate is entry_id or above it (a walk up, no path list built)."""
    parent = session.tree.parent
    cur: str | None = entry_id
    while cur is not None:
        if cur == candidate:
            return True
        cur = parent.get(cur)
    return False


def _left_leaves(session: Session) -> dict[str, str]:
    """Where each branch summary's abandoned branch ended.

    pi writes a summary as it navigates away: its ``fromId`` is the entry navigated *to*
    (the summary's parent), and the entry just before it in the file is where the user
    was. That entry is the end of the summarised branch unless it is an ancestor.
    """
    found: dict[str, str] = {}
    entries = session.entries
    for i, e in enumerate(entries):
        if e.type != "branch_summary" or i == 0:
            continue
        before = entries[i - 1].id
        if not _is_ancestor(session, before, e.id):
            found[e.id] = before
    return found


def _compactions(session: Session) -> tuple[dict[str, str], set[str], dict[str, int]]:
    """Which entries each compaction summarised away: those before its firstKeptEntryId on
    the path that leads to it. Current-path compactions come first, so an entry on the
    current path names the compaction that matters there."""
    tree = session.tree
    numbers: dict[str, int] = {}
    for e in session.entries:
        if e.type == "compaction":
            numbers[e.id] = len(numbers) + 1
    on_path = set(tree.path)
    ordered = sorted(numbers, key=lambda c: c not in on_path)
    out: dict[str, str] = {}
    dimmed: set[str] = set()
    # on the current path (most compactions), positions come from one pass over it
    position = {eid: i for i, eid in enumerate(tree.path)}
    first_at: dict[str, int] = {}
    for i, eid in enumerate(tree.path):
        raw_id = session.by_id[eid].raw.get("id")
        if isinstance(raw_id, str):
            first_at.setdefault(raw_id, i)
    for cid in ordered:
        first = session.by_id[cid].raw.get("firstKeptEntryId")
        if cid in position and isinstance(first, str):
            end = position[cid]
            path = tree.path[:end]
            stop = min(first_at.get(first, end), end)
        else:
            path = tree.path_to(cid)[:-1]
            # pi compares against the id as the file wrote it
            stop = next(
                (j for j, pid in enumerate(path) if session.by_id[pid].raw.get("id") == first),
                len(path),
            )
        for pid in path[:stop]:
            out.setdefault(pid, cid)
            if cid in on_path:
                dimmed.add(pid)
    return out, dimmed, numbers


def diff_rows(diff: str) -> list[tuple[str, str, str]]:
    """pi's edit diff (``+12 text``, ``-12 text``, `` 12 text``, `` … ...``) → (kind, n, text)."""
    rows = []
    for line in diff.split("\n"):
        sign, rest = line[:1], line[1:]
        kind = {"+": "add", "-": "del"}.get(sign, "ctx")
        m = re.match(r"\s*(\d+) ?(.*)$", rest, re.DOTALL)
        if m:
            rows.append((kind, m.group(1), m.group(2)))
        elif rest.strip() == "...":
            rows.append(("skip", "", "…"))
        else:
            rows.append((kind, "", rest))
    return rows


_NOTICE = re.compile(r"\n*(\[(?:\d+ more lines in file|Showing lines)[^\]\n]*\])\s*$")
_EXIT = re.compile(r"\n*Command exited with code (-?\d+)\s*$")


_TAIL = 1024
"""Trailers sit at the end: only this much of a (possibly huge) output is searched."""


def _trailer(pattern: re.Pattern[str], text: str) -> tuple[str, re.Match[str] | None]:
    cut = max(0, len(text) - _TAIL)
    m = pattern.search(text, cut)
    return (text, None) if m is None else (text[: m.start()], m)


def split_notice(text: str) -> tuple[str, str | None]:
    """Separate pi's trailing ``[N more lines in file…]`` notice from a tool's output."""
    body, m = _trailer(_NOTICE, text)
    return body, m.group(1) if m else None


def split_exit(text: str) -> tuple[str, int | None]:
    """Separate pi's ``Command exited with code N`` line from bash output."""
    body, m = _trailer(_EXIT, text)
    return body, int(m.group(1)) if m else None


MAX_GREP_LINES = 2000
"""Longer grep output is shown as plain text (grouping it would cost more than it helps)."""
_GREP_MATCH = re.compile(r"^(.+?):(\d+):(?: (.*))?$", re.DOTALL)
_GREP_CONTEXT = re.compile(r"^(.+?)-(\d+)-(?: (.*))?$", re.DOTALL)


def grep_groups(text: str) -> list[tuple[str, list[tuple[str, str, str]]]] | None:
    """pi's grep output (``path:12: text``, context ``path-12- text``) grouped by file as
    (path, [(kind, line, text)]), or None when it is not in that shape."""
    lines = [ln for ln in text.rstrip("\n").split("\n") if ln != "--"]
    if len(lines) > MAX_GREP_LINES:
        return None
    matches = [_GREP_MATCH.match(ln) for ln in lines]
    known = {m.group(1) for m in matches if m}
    groups: list[tuple[str, list[tuple[str, str, str]]]] = []
    for line, m in zip(lines, matches, strict=True):
        if m:
            path, kind, number, rest = m.group(1), "match", m.group(2), m.group(3)
        else:
            # a context line: prefer a path already seen in a match (paths may hold "-2-")
            path = max((k for k in known if line.startswith(k + "-")), key=len, default="")
            c = re.match(r"(\d+)-(?: (.*))?$", line[len(path) + 1 :], re.DOTALL) if path else None
            c_any = None if c else _GREP_CONTEXT.match(line)
            if c:
                number, rest = c.group(1), c.group(2)
            elif c_any:
                path, number, rest = c_any.group(1), c_any.group(2), c_any.group(3)
            else:
                return None
            kind = "context"
        if not groups or groups[-1][0] != path:
            groups.append((path, []))
        groups[-1][1].append((kind, number, rest or ""))
    return groups or None
