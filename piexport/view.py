"""Model → what the session template walks: the tree as a flat event list, tools paired.

The tree is flattened here, iteratively, so templates never recurse (a 10,000-deep chain
would overflow a recursive macro). Each entry appears exactly once: the current path runs
straight down the page, and every other branch sits in a collapsed block where it forks.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from .context import build_session_context
from .model import JSON, Entry, Session
from .outline import entry_summary, tool_calls_by_id
from .stats import Figures, file_figures, path_figures
from .tree import flatten

_SAFE_ID = re.compile(r"^[A-Za-z0-9_.:~-]{1,64}$")
IMAGE_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
MAX_IMAGE_BYTES = 5 * 1024 * 1024


def dom_id(entry_id: str) -> str:
    """``entry-<id>`` when the id is tame, else a stable hash: ids come from the file."""
    if _SAFE_ID.match(entry_id):
        return f"entry-{entry_id}"
    return "entry-x" + hashlib.sha1(entry_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class Image:
    """An image block: a data URI when it passed every check, else why not."""

    mime: str
    size: int
    uri: str | None
    problem: str | None


def check_image(block: Any) -> Image:
    """Only png/jpeg/gif/webp, strictly valid base64, bytes that match the type, capped."""
    mime = block.get("mimeType") if isinstance(block, dict) else None
    data = block.get("data") if isinstance(block, dict) else None
    mime = mime if isinstance(mime, str) else "?"
    if not isinstance(data, str):
        return Image(mime[:60], 0, None, "no image data")
    size = len(data) * 3 // 4
    if mime not in IMAGE_MAGIC:
        return Image(mime[:60], size, None, "type not shown")
    if size > MAX_IMAGE_BYTES:
        return Image(mime, size, None, "too large to embed")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return Image(mime, size, None, "invalid base64")
    if not raw.startswith(IMAGE_MAGIC[mime]) or (mime == "image/webp" and raw[8:12] != b"WEBP"):
        return Image(mime, size, None, "bytes do not match the type")
    return Image(mime, len(raw), f"data:{mime};base64,{data}", None)


@dataclass(slots=True)
class Event:
    """One step of the page: an entry, or the start/end of an alternative branch."""

    kind: str
    """"entry", "open" (a collapsed branch begins) or "close"."""
    entry: Entry | None = None
    label: str = ""


@dataclass(slots=True)
class SessionView:
    """Everything the session template needs, computed once."""

    session: Session
    title: str
    events: list[Event]
    outline: list[JSON]
    results: dict[str, Entry]
    """toolCall id → its toolResult entry."""
    paired_results: set[str]
    """Ids of toolResult entries shown next to their call."""
    on_path: set[str]
    out_of_context: dict[str, str]
    """Entry id → id of the compaction that summarised it away."""
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


def build_view(
    session: Session, *, parent_href: str | None = None, forks: list[tuple[str, str]] | None = None
) -> SessionView:
    tree = session.tree
    on_path = set(tree.path)
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
    outline: list[JSON] = []
    for row in flatten(tree):
        entry = session.by_id[row.id]
        outline.append(
            {
                "id": row.id,
                "dom": dom_id(row.id),
                "prefix": row.prefix(),
                "on_path": row.on_path,
                "label": session.labels.get(row.id),
                "text": entry_summary(entry, calls),
                "kind": entry.role or entry.type,
                "leaf": row.id == tree.leaf_id,
            }
        )
    return SessionView(
        session=session,
        title=" ".join(title.split())[:200],
        events=_events(session),
        outline=outline,
        results=results,
        paired_results=paired,
        on_path=on_path,
        out_of_context=_out_of_context(session),
        left_leaves=_left_leaves(session),
        path_figures=path_figures(session),
        file_figures=file_figures(session),
        thinking_level=str(build_session_context(session).get("thinkingLevel", "off")),
        summaries={r["id"]: r["text"] for r in outline},
        parent_href=parent_href,
        forks=forks or [],
    )


def _events(session: Session) -> list[Event]:
    """Depth first; at each fork the alternatives come (collapsed) before the main line."""
    tree = session.tree
    on_path = set(tree.path)
    events: list[Event] = []
    roots = sorted(tree.roots, key=lambda r: r not in on_path)
    stack: list[tuple[str, str]] = []

    def push_children(kids: list[str], what: str) -> None:
        if not kids:
            return
        main = next((k for k in kids if k in on_path), kids[0])
        stack.append(("node", main))
        for alt in reversed([k for k in kids if k != main]):
            stack.append(("close", alt))
            stack.append(("node", alt))
            stack.append(("open", alt))

    push_children(roots, "root")
    while stack:
        kind, node = stack.pop()
        if kind == "node":
            events.append(Event("entry", session.by_id[node]))
            push_children(tree.children.get(node, []), "child")
        elif kind == "open":
            leaves = _count_leaves(session, node)
            is_root = tree.parent.get(node) is None
            label = ("separate root" if is_root else "other branch") + (
                f" · {leaves} leaves" if leaves > 1 else ""
            )
            events.append(Event("open", session.by_id[node], label))
        else:
            events.append(Event("close", session.by_id[node]))
    return events


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
        if before not in session.tree.path_to(e.id):
            found[e.id] = before
    return found


def _count_leaves(session: Session, start: str) -> int:
    count, stack = 0, [start]
    while stack:
        kids = session.tree.children.get(stack.pop(), [])
        if not kids:
            count += 1
        stack.extend(kids)
    return count


def _out_of_context(session: Session) -> dict[str, str]:
    """Entries each compaction on the current path summarised away (before firstKeptEntryId)."""
    path = session.path_entries()
    out: dict[str, str] = {}
    for i, e in enumerate(path):
        if e.type != "compaction":
            continue
        first = e.raw.get("firstKeptEntryId")
        stop = next((j for j in range(i) if path[j].raw.get("id") == first), i)
        for p in path[:stop]:
            out.setdefault(p.id, e.id)
    return out


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


def split_notice(text: str) -> tuple[str, str | None]:
    """Separate pi's trailing ``[N more lines in file…]`` notice from a tool's output."""
    m = _NOTICE.search(text)
    if not m:
        return text, None
    return text[: m.start()], m.group(1)
