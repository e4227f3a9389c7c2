"""Model → what the session template walks: the tree as a flat event list, tools paired.

The tree is flattened here, iteratively, so templates never recurse (a 10,000-deep chain
would overflow a recursive macro). Each entry appears exactly once: the current path runs
straight down the page, and every other branch sits in a collapsed block where it forks.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..read.context import build_session_context, edit_replacement, projection, selected_entries
from ..read.loader import gc_paused
from ..read.model import Entry, Session
from ..read.pairing import pair_tool_results, tool_calls_by_id
from ..read.system import SystemState, current_system, leading_system_ids
from ..read.tree import Row, flatten
from ..report.branches import branch_summaries
from ..report.outline import tree_row_text
from ..report.stats import Figures, failure, file_figures, path_figures
from ..report.subagents import SessionOutcome

_SAFE_ID = re.compile(r"^(?!x[0-9a-f]{12})[A-Za-z0-9_.:~-]{1,64}$")
"""Ids shown as they are. One that starts like a hashed id (``x`` and 12 hex digits) is
hashed too, so a plain id can never take the DOM id of a hashed one."""
MAX_INDENT = 10
"""Navigator rows show at most this many levels of tree lines; deeper rows say how deep they
are instead, so a tree branching thousands deep costs a line per row, not a page per row."""


def dom_id(entry_id: str) -> str:
    """``entry-<id>`` when the id is tame, else a stable hash: ids come from the file.

    A page uses ``SessionView.dom``, which is this unless two hashes collide."""
    if _SAFE_ID.match(entry_id):
        return f"entry-{entry_id}"
    return "entry-x" + hashlib.sha1(entry_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def dom_ids(session: Session) -> dict[str, str]:
    """Entry id → DOM id, unique on the page: a hash that collides with an earlier entry's
    (ids are chosen by whoever wrote the file) gets ``~2``, ``~3``… in file order. Plain ids
    never collide (entry ids are unique and hashed ones look different), and no plain id
    ends up like a hashed one with a suffix, as both start with ``x`` and 12 hex digits."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for e in session.entries:
        dom = dom_id(e.id)
        if dom in used:
            n = 2
            while f"{dom}~{n}" in used:
                n += 1
            dom = f"{dom}~{n}"
        used.add(dom)
        out[e.id] = dom
    return out


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
    """One-line description: ``piexport tree``'s words, with paths relative to the cwd and
    commands by their head (``outline.tree_row_text``)."""
    leaf: bool
    """The current leaf (the last entry in the file)."""
    is_end: bool
    """Any leaf: choosing it shows one whole path."""
    failure: str | None = None
    """How the entry failed (``report.stats.failure``): the row is marked."""


@dataclass(frozen=True, slots=True)
class EditNote:
    """A ``context_edit`` that targets an entry, as the target shows it."""

    edit: str
    """The edit entry's id."""
    omit: bool
    """``replacement: null``: the model stops seeing the target."""
    in_effect: bool
    """Applied to the context at the current leaf (on the current path, the latest edit of its
    target there, and the target in that context). Edits are branch-relative: the others show
    when their branch is shown."""


@dataclass(frozen=True, slots=True)
class Origin:
    """How this session came from the one its header names (``read.lineage``), for its page."""

    relation: str
    """``fork``, ``subagent`` or ``started``."""
    href: str | None
    """The parent's page, when it is in the same site."""
    call_href: str | None = None
    """The parent's entry that started it (a subagent's tool call), on the parent's page."""
    how: str | None = None
    """``named`` (the call's result names this session) or ``time`` (it began while the call
    ran, in the same folder)."""


@dataclass(frozen=True, slots=True)
class ChildRef:
    """A session started from this one, as the site found it (``read.lineage``)."""

    path: Path
    href: str
    relation: str
    call: str | None = None
    """This session's entry that started it."""
    how: str | None = None
    children: tuple[ChildRef, ...] = ()
    """Its own subagents, counted in the "with subagents" total."""


@dataclass(frozen=True, slots=True)
class Subagent:
    """A subagent session as its parent's page lists it."""

    ref: ChildRef
    outcome: SessionOutcome | None
    """None when its file cannot be read."""
    total_cost: float | None
    """Its cost with its own subagents'."""


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
    results: dict[tuple[str, str], Entry]
    """(assistant entry id, toolCall id) → its toolResult entry (``outline.pair_tool_results``)."""
    paired_results: set[str]
    """Ids of toolResult entries shown next to their call."""
    on_path: set[str]
    dom: dict[str, str]
    """Entry id → its DOM id (``dom_ids``: unique on the page)."""
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
    system: SystemState = field(default_factory=SystemState)
    """The prompt and tools in force at the current leaf (pi's ``getCurrentSystemMessage``)."""
    system_leading: set[str] = field(default_factory=set)
    """System messages that start the prompt on their branch; the others are updates."""
    edit_notes: dict[str, list[EditNote]] = field(default_factory=dict)
    """Entry id → the context edits that target it, in file order."""
    edit_status: dict[str, str] = field(default_factory=dict)
    """Context edit id → what it does at the current leaf, in words."""
    parent_href: str | None = None
    forks: list[tuple[str, str]] = field(default_factory=list)
    origin: Origin | None = None
    subagents: list[Subagent] = field(default_factory=list)
    """Subagent sessions this one started, in the order they started."""
    subagents_of: dict[str, list[Subagent]] = field(default_factory=dict)
    """Entry id → the subagent sessions it started (a tool result naming them, or the call
    whose run they began in)."""
    context_runs: dict[str, int] = field(default_factory=dict)
    """First entry of each run of entries one compaction summarised away (each one's parent
    summarised by the same compaction) → entries in the run: the run's first entry says
    "not in context after compaction N" once, the others only wear the dashed frame."""
    summarised: dict[str, int] = field(default_factory=dict)
    """Compaction id → entries it summarised away (its marker says so)."""

    @property
    def cost_with_subagents(self) -> float | None:
        """This file's cost and its subagents' (never mixed into the figures above)."""
        costs = [self.file_figures.known_cost, *(s.total_cost for s in self.subagents)]
        known = [c for c in costs if c is not None]
        return sum(known) if known else None

    def dom_of(self, entry_id: str) -> str:
        return self.dom.get(entry_id) or dom_id(entry_id)

    def result_for(self, entry_id: str, call_id: Any) -> Entry | None:
        """The result of one tool call of one assistant entry, if any."""
        return self.results.get((entry_id, call_id)) if isinstance(call_id, str) else None

    @property
    def prompts(self) -> list[Entry]:
        """The user's messages on the current branch, in order (the page's prompts list)."""
        by_id = self.session.by_id
        return [by_id[i] for i in self.session.tree.path if by_id[i].role == "user"]

    @property
    def leaf_dom(self) -> str:
        leaf = self.session.tree.leaf_id
        return self.dom_of(leaf) if leaf is not None else ""


@gc_paused()
def build_view(
    session: Session,
    *,
    parent_href: str | None = None,
    forks: list[tuple[str, str]] | None = None,
    origin: Origin | None = None,
    subagents: list[Subagent] | None = None,
) -> SessionView:
    """Shape a loaded session for the template; pure, and linear in the number of entries."""
    tree = session.tree
    results = pair_tool_results(session)
    calls = tool_calls_by_id(session)
    paired = {r.id for r in results.values()}
    title = session.title or "Untitled session"
    doms = dom_ids(session)
    leading = leading_system_ids(session)
    outline = [
        OutlineRow(
            id=row.id,
            dom=doms[row.id],
            prefix=_prefix(row),
            on_path=row.on_path,
            label=session.labels.get(row.id),
            text=tree_row_text(
                session.by_id[row.id], calls, session.cwd, session.derive, row.id in leading
            ),
            leaf=row.id == tree.leaf_id,
            is_end=row.id not in tree.children,
            failure=failure(session.by_id[row.id]),
        )
        for row in flatten(tree)
    ]
    out_of_context, dimmed, numbers = _compactions(session)
    context = build_session_context(session)
    edit_notes, edit_status = _context_edits(session, out_of_context, numbers)
    return SessionView(
        session=session,
        title=session.derive.line(title, 200, ""),
        events=_events(session),
        # pi's tree leaves usage entries out (they pay for work, they say nothing)
        outline=[r for r in outline if session.by_id[r.id].type != "usage"],
        bookmarks=[r for r in outline if r.label],
        results=results,
        paired_results=paired,
        on_path=set(tree.path),
        dom=doms,
        parent_dom={
            e.id: doms[p] if (p := tree.parent.get(e.id)) is not None else ""
            for e in session.entries
        },
        out_of_context=out_of_context,
        dimmed=dimmed,
        compaction_no=numbers,
        context_runs=_context_runs(session, out_of_context, paired),
        summarised=Counter(out_of_context.values()),
        left_leaves=branch_summaries(session),
        path_figures=path_figures(session),
        file_figures=file_figures(session),
        thinking_level=str(context.get("thinkingLevel", "off")),
        summaries={r.id: r.text for r in outline},
        system=current_system(context["messages"]),
        system_leading=leading,
        edit_notes=edit_notes,
        edit_status=edit_status,
        parent_href=parent_href,
        forks=forks or [],
        origin=origin,
        subagents=subagents or [],
        subagents_of=_by_call(session, subagents or []),
    )


def _by_call(session: Session, subagents: list[Subagent]) -> dict[str, list[Subagent]]:
    out: dict[str, list[Subagent]] = {}
    for sub in subagents:
        if sub.ref.call is not None and sub.ref.call in session.by_id:
            out.setdefault(sub.ref.call, []).append(sub)
    return out


def _context_edits(
    session: Session, out_of_context: dict[str, str], numbers: dict[str, int]
) -> tuple[dict[str, list[EditNote]], dict[str, str]]:
    """Each edited entry's edits, and what each edit does at the current leaf."""
    edits = [e for e in session.entries if e.type == "context_edit"]
    if not edits:
        return {}, {}
    leaf = session.tree.leaf_id
    applied = {p.edit.id for p in projection(session, leaf) if p.edit is not None}
    on_path = set(session.tree.path)
    in_context = {e.id for e in selected_entries(session, leaf)}
    latest: dict[str, str] = {}
    for eid in session.tree.path:
        e = session.by_id[eid]
        if e.type == "context_edit" and isinstance(e.raw.get("targetId"), str):
            latest[e.raw["targetId"]] = eid
    notes: dict[str, list[EditNote]] = {}
    status: dict[str, str] = {}
    for e in edits:
        target = e.raw.get("targetId")
        omit = edit_replacement(e) is None
        if isinstance(target, str) and target in session.by_id:
            notes.setdefault(target, []).append(EditNote(e.id, omit, e.id in applied))
        if e.id in applied:
            status[e.id] = "in effect on the current branch"
        elif e.id not in on_path:
            status[e.id] = "on another branch: it applies only there"
        elif not isinstance(target, str) or target not in session.by_id:
            status[e.id] = "no effect: its target is not in the file"
        elif latest.get(target) != e.id:
            status[e.id] = "no effect: a later edit of the same entry replaced it"
        elif target in out_of_context and target not in in_context:
            c = out_of_context[target]
            status[e.id] = f"no effect: compaction {numbers.get(c, '?')} summarised its target"
        elif target not in in_context:
            status[e.id] = "no effect: its target is not on this branch"
        else:
            status[e.id] = "no effect on the model's context"
    return notes, status


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


_UNFRAMED = frozenset(
    {"model_change", "thinking_level_change", "session_info", "label", "context_edit", "usage"}
)
"""Entry types the page draws as a one-line marker, with no header to hold a badge."""


def _context_runs(
    session: Session, out_of_context: dict[str, str], paired: set[str]
) -> dict[str, int]:
    """Runs of entries one compaction summarised away, each a chain of parent and child:
    the first entry of each that has a header (not a one-line marker, not a tool result
    drawn inside its call) → how many entries of the run the page draws on their own
    (``SessionView.context_runs``)."""
    parent = session.tree.parent
    start_of: dict[str, str] = {}
    holder: dict[str, str] = {}
    runs: dict[str, int] = {}
    for e in session.entries:
        c = out_of_context.get(e.id)
        if c is None:
            continue
        p = parent.get(e.id)
        start = start_of.get(p, e.id) if p is not None and out_of_context.get(p) == c else e.id
        start_of[e.id] = start
        if e.id in paired:
            continue
        if start not in holder and e.type not in _UNFRAMED:
            holder[start] = e.id
        runs[start] = runs.get(start, 0) + 1
    return {h: runs[start] for start, h in holder.items()}


def _compactions(session: Session) -> tuple[dict[str, str], set[str], dict[str, int]]:
    """Which entries each compaction summarised away: those before its firstKeptEntryId on
    the path that leads to it. Current-path compactions come first, so an entry on the
    current path names the compaction that matters there.

    Linear in the entries, however many compactions: each summarises a prefix of the path
    to it, so what is already claimed is closed under "parent of", and a compaction claims
    entries walking up from its cut until it meets one claimed before."""
    tree = session.tree
    numbers: dict[str, int] = {}
    for e in session.entries:
        if e.type == "compaction":
            numbers[e.id] = len(numbers) + 1
    on_path = set(tree.path)
    out: dict[str, str] = {}
    # on the current path (most compactions): prefixes of one list, claimed left to right
    # pi compares against the id as the file wrote it (a missing one included)
    first_at: dict[object, int] = {}
    for i, eid in enumerate(tree.path):
        raw_id = session.by_id[eid].raw.get("id")
        if _hashable(raw_id):
            first_at.setdefault(raw_id, i)
    position = {eid: i for i, eid in enumerate(tree.path)}
    claimed = 0
    off_path: list[str] = []
    for cid in numbers:
        if cid not in on_path:
            off_path.append(cid)
            continue
        end = position[cid]
        first = session.by_id[cid].raw.get("firstKeptEntryId")
        stop = min(first_at.get(first, end), end) if _hashable(first) else end
        for pid in tree.path[claimed:stop]:
            out[pid] = cid
        claimed = max(claimed, stop)
    dimmed = set(tree.path[:claimed])
    if off_path:
        _claim_off_path(session, off_path, out)
    return out, dimmed, numbers


_HEADER_KEYS = frozenset(
    {"type", "version", "id", "timestamp", "cwd", "parentSession", "branchedFrom"}
    | {"provider", "modelId", "thinkingLevel"}  # older pi wrote these in the header
)


def header_fields(session: Session) -> dict[str, Any]:
    """Header fields pi does not define (another tool's metadata): shown, never dropped."""
    header = session.header
    if header is None:
        return {}
    return {k: v for k, v in header.raw.items() if k not in _HEADER_KEYS}


def _claim_off_path(session: Session, compactions: list[str], out: dict[str, str]) -> None:
    """Compactions on other branches, in file order: each claims the entries above its cut
    (the entry on its path whose id is its firstKeptEntryId, else itself) not claimed yet."""
    tree = session.tree
    # preorder numbers and subtree sizes: "is an ancestor of" in constant time
    order: dict[str, int] = {}
    depth: dict[str, int] = {}
    for eid, d in tree.walk():
        order[eid] = len(order)
        depth[eid] = d
    size = dict.fromkeys(order, 1)
    for eid in reversed(order):
        up = tree.parent.get(eid)
        if up is not None:
            size[up] += size[eid]
    wanted: dict[object, list[str]] = {}
    for cid in compactions:
        first = session.by_id[cid].raw.get("firstKeptEntryId")
        if _hashable(first):
            wanted.setdefault(first, [])
    for e in session.entries:
        raw_id = e.raw.get("id")
        if _hashable(raw_id) and raw_id in wanted:
            wanted[raw_id].append(e.id)
    for cid in compactions:
        first = session.by_id[cid].raw.get("firstKeptEntryId")
        here = order[cid]
        above = [
            a
            for a in (wanted.get(first, ()) if _hashable(first) else ())
            if order[a] < here < order[a] + size[a]
        ]
        cut = min(above, key=depth.__getitem__) if above else cid
        node: str | None = tree.parent.get(cut)
        while node is not None and node not in out:
            out[node] = cid
            node = tree.parent.get(node)


def _hashable(value: object) -> bool:
    """JSON scalars: ids a file may write (an array or object id never matches one)."""
    return value is None or isinstance(value, str | int | float | bool)
