"""The id/parentId tree: roots, children, the leaf, the current path, labels and the name.

Everything here is iterative: a million-entry chain must not touch the recursion limit,
and a parent cycle (which makes pi loop forever) is cut, with a warning, instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from .jsonutil import dumps
from .model import Diagnostic, Entry, Tree

_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def timestamp_ms(value: Any) -> int | None:
    """Milliseconds since the epoch, as JavaScript's ``new Date(value).getTime()`` gives.

    None where JavaScript would give NaN. A time without an offset is read as UTC
    (JavaScript would use the local zone; pi itself always writes ``Z``).
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return int(value) if math.isfinite(value) and abs(value) <= 8.64e15 else None
    if not isinstance(value, str):
        return None
    return _iso_ms(value)


@lru_cache(maxsize=1 << 16)
def _iso_ms(value: str) -> int | None:
    """An ISO time's milliseconds (one parse per distinct text: a branchy page adds up the
    figures of each branch's own part, and so reads the same entries' times many times)."""
    m = _ISO.fullmatch(value.strip())
    if not m:
        return None
    year, month, day, hh, mm, ss, frac, tz = m.groups()
    try:
        dt = datetime(
            int(year),
            int(month),
            int(day),
            int(hh or 0),
            int(mm or 0),
            int(ss or 0),
            tzinfo=UTC,
        )
    except ValueError:
        return None
    delta = dt - _EPOCH
    if tz and tz not in "Zz":  # applied to the difference: the date itself may be the last
        sign = -1 if tz[0] == "-" else 1
        digits = tz[1:].replace(":", "")
        delta -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    ms = int(delta.total_seconds()) * 1000
    if frac:
        ms += int((frac + "00")[:3])
    return ms


def build_tree(
    entries: Sequence[Entry], by_id: Mapping[str, Entry], path: str, diags: list[Diagnostic]
) -> Tree:
    """Link entries into a tree, repairing self-parents, orphans and cycles (with warnings)."""
    parent: dict[str, str | None] = {}
    orphans: list[str] = []
    for e in entries:
        p = e.parent_id
        if p is None:
            parent[e.id] = None
        elif p == e.id:
            diags.append(
                Diagnostic(path, e.line, f"entry {e.id} is its own parent; shown as a root")
            )
            parent[e.id] = None
        elif p not in by_id:
            diags.append(
                Diagnostic(
                    path,
                    e.line,
                    f"parent {p} of entry {e.id} is not in the file; shown as a root (orphan)",
                )
            )
            parent[e.id] = None
            orphans.append(e.id)
        else:
            parent[e.id] = p
    _break_cycles(entries, parent, by_id, path, diags)

    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for e in entries:
        p = parent[e.id]
        if p is None:
            roots.append(e.id)
        else:
            children.setdefault(p, []).append(e.id)
    for kids in children.values():
        if len(kids) > 1:
            # pi sorts siblings by timestamp, oldest first; sort is stable, so ties keep
            # file order. Unreadable timestamps go last.
            kids.sort(key=lambda k: _sort_key(by_id[k]))

    leaf = entries[-1].id if entries else None
    tree = Tree(
        parent=parent,
        children=children,
        roots=roots,
        leaf_id=leaf,
        path=[],
        leaves=[e.id for e in entries if e.id not in children],
        branch_points=[e.id for e in entries if len(children.get(e.id, ())) > 1],
        orphans=orphans,
    )
    tree.path = tree.path_to(leaf) if leaf is not None else []
    return tree


def _sort_key(entry: Entry) -> float:
    ms = timestamp_ms(entry.timestamp)
    return math.inf if ms is None else ms


def _break_cycles(
    entries: Sequence[Entry],
    parent: dict[str, str | None],
    by_id: Mapping[str, Entry],
    path: str,
    diags: list[Diagnostic],
) -> None:
    """Cut every parent cycle at its entry that comes first in the file."""
    done: set[str] = set()
    for e in entries:
        if e.id in done:
            continue
        trail: list[str] = []
        on_trail: set[str] = set()
        cur: str | None = e.id
        while cur is not None and cur not in done:
            if cur in on_trail:
                cycle = trail[trail.index(cur) :]
                first = min(cycle, key=lambda i: by_id[i].index)
                shown = " → ".join(cycle[:6]) + (" → …" if len(cycle) > 6 else "")
                diags.append(
                    Diagnostic(path, by_id[first].line, f"parent cycle {shown} broken at {first}")
                )
                parent[first] = None
                break
            trail.append(cur)
            on_trail.add(cur)
            cur = parent[cur]
        done.update(trail)


def resolve_labels(entries: Sequence[Entry]) -> dict[str, str]:
    """Replay every label entry in file order: a truthy label sets, anything else clears."""
    labels: dict[str, str] = {}
    for e in entries:
        if e.type != "label":
            continue
        target = e.raw.get("targetId")
        if not isinstance(target, str):
            continue
        value = e.raw.get("label")
        if value:
            labels[target] = value if isinstance(value, str) else dumps(value, indent=False)
        else:
            labels.pop(target, None)
    return labels


def resolve_name(entries: Sequence[Entry]) -> str | None:
    """The latest session_info name in file order, trimmed; empty means cleared."""
    for e in reversed(entries):
        if e.type == "session_info":
            name = e.raw.get("name")
            return name.strip() or None if isinstance(name, str) else None
    return None


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the tree outline, as pi's ``/tree`` lays it out."""

    id: str
    indent: int
    connector: str
    """"├─ ", "└─ " or "" (a chain continues flat, like pi's)."""
    gutters: tuple[tuple[int, bool], ...]
    """(level, show a │) for each open branch this row sits under."""
    on_path: bool

    def prefix(self) -> str:
        chars: list[str] = []
        conn_at = self.indent - 1 if self.connector else -1
        gut = dict(self.gutters)
        for level in range(self.indent):
            if level in gut:
                chars.append("│  " if gut[level] else "   ")
            elif level == conn_at:
                chars.append(self.connector)
            else:
                chars.append("   ")
        return "".join(chars)


def flatten(tree: Tree) -> list[Row]:
    """Rows in pi's ``/tree`` order: the branch holding the current leaf first, chains flat,
    an indent step only where the tree branches."""
    on_path = set(tree.path)
    rows: list[Row] = []
    multi_root = len(tree.roots) > 1
    roots = sorted(tree.roots, key=lambda r: r not in on_path)
    # stack items: (id, indent, just_branched, show_connector, is_last, gutters, virtual)
    stack: list[tuple[str, int, bool, bool, bool, tuple[tuple[int, bool], ...], bool]] = []
    for i in range(len(roots) - 1, -1, -1):
        stack.append(
            (
                roots[i],
                1 if multi_root else 0,
                multi_root,
                multi_root,
                i == len(roots) - 1,
                (),
                multi_root,
            )
        )
    while stack:
        node, indent, just_branched, show_conn, is_last, gutters, virtual = stack.pop()
        display = max(0, indent - 1) if multi_root else indent
        connector = ("└─ " if is_last else "├─ ") if show_conn and not virtual else ""
        rows.append(Row(node, display, connector, gutters, node in on_path))
        kids = tree.children.get(node, [])
        ordered = [k for k in kids if k in on_path] + [k for k in kids if k not in on_path]
        many = len(kids) > 1
        child_indent = indent + 1 if many or (just_branched and indent > 0) else indent
        if connector:
            gutters = (*gutters, (max(0, display - 1), not is_last))
        for i in range(len(ordered) - 1, -1, -1):
            stack.append(
                (ordered[i], child_indent, many, many, i == len(ordered) - 1, gutters, False)
            )
    return rows
