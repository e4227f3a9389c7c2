"""Every branch of a session with its outcome: what ``piexport branches`` prints and the
page's Branches panel shows.

A branch is the path from a root to one leaf. Each is described by the part only it has:
the entries after its fork point, the deepest entry it shares with the current branch
(the one that ends at the last entry in the file). The current branch's part is its whole
path. Figures come from :func:`~piexport.report.stats.compute_figures`, so they are the
numbers the summary and the page header use, over a smaller set of entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..read.figures import iso_time
from ..read.model import JSON, Entry, Session, content_text
from ..read.tree import flatten
from ..text.cut import Derive
from ..text.numbers import money, tokens
from .paths import shown_path
from .stats import Figures, compute_figures

LINE_CHARS = 160
"""The last request and answer of a branch are shown on one line, cut near this."""
ENDED_BADLY = ("error", "aborted")


def one_line(text: str, derive: Derive, limit: int = LINE_CHARS) -> str:
    """Text on one line, spaces collapsed, cut near ``limit``: made with the session's
    ``derive`` (joined lines and a cut are read again when the session was redacted)."""
    return derive.line(text, limit)


def message_text(entry: Entry, derive: Derive) -> str:
    """A message's text blocks as one text (made with the session's ``derive``)."""
    return content_text((entry.message or {}).get("content"), "", derive)


@dataclass(slots=True)
class Branch:
    """One leaf and the part of the tree only its path has."""

    leaf: str
    current: bool
    path: list[str]
    """Root → leaf."""
    fork_from: str | None
    """The deepest entry shared with the current branch (None for the current branch, and
    for a leaf under another root, which shares nothing)."""
    shared: int
    """Entries of its path before its own part (the fork point included)."""
    figures: Figures
    """Over its own part: the entries after the fork point, down to the leaf."""
    labels: list[str]
    """Labels on entries of its own part, in path order."""
    last_user: str
    last_answer: str
    stop: str | None
    """How its last assistant message stopped (``error``, ``aborted``, ``stop``…)."""
    summaries: list[tuple[str, str]] = field(default_factory=list)
    """(branch_summary entry id, its text) for summaries written when the user left this
    branch (the summary itself sits on the branch they went to)."""

    @property
    def own(self) -> list[str]:
        return self.path[self.shared :]

    @property
    def ended_badly(self) -> bool:
        return self.stop in ENDED_BADLY

    @property
    def duration_seconds(self) -> float | None:
        f = self.figures
        if f.first_ms is None or f.last_ms is None:
            return None
        return (f.last_ms - f.first_ms) / 1000

    @property
    def active_seconds(self) -> float | None:
        """Time spent working on its own part (``stats.active_ms``: idle gaps left out)."""
        f = self.figures
        return None if f.active_ms is None else f.active_ms / 1000

    def as_json(self) -> JSON:
        """The stable shape (README: ``piexport branches``); the first seven keys are the
        issue's, the rest say what the page shows beside them."""
        return {
            "id": self.leaf,
            "current": self.current,
            "labels": list(self.labels),
            "forkFrom": self.fork_from,
            "sharedEntries": self.shared,
            "entries": len(self.path),
            "figures": self.figures.as_json(),
            "lastUser": self.last_user or None,
            "lastAssistant": self.last_answer or None,
            "stopReason": self.stop,
            "endedInError": self.ended_badly,
            "started": iso_time(self.figures.first_ms),
            "ended": iso_time(self.figures.last_ms),
            "durationSeconds": self.duration_seconds,
            "activeSeconds": self.active_seconds,
            "summaries": [text for _id, text in self.summaries],
        }


def leaf_order(session: Session) -> list[str]:
    """Leaves as the tree shows them (pi's ``/tree`` order: the current branch first)."""
    children = session.tree.children
    return [row.id for row in flatten(session.tree) if row.id not in children]


def branch_summaries(session: Session) -> dict[str, str]:
    """branch_summary id → the entry the user left (where the summarised branch ended).

    pi 1.5 names it: ``fromId`` is the leaf it left. Older pi put the entry it went back to
    there (an ancestor of the summary), so then the entry just before the summary in the file
    is where the user was (pi writes the summary as it navigates away), unless that entry is
    on the path to the summary itself."""
    found: dict[str, str] = {}
    entries = session.entries
    for i, e in enumerate(entries):
        if e.type != "branch_summary":
            continue
        left = e.raw.get("fromId")
        if (
            isinstance(left, str)
            and left in session.by_id
            and not _is_ancestor(session, left, e.id)
        ):
            found[e.id] = left
            continue
        if i == 0:
            continue
        before = entries[i - 1].id
        if not _is_ancestor(session, before, e.id):
            found[e.id] = before
    return found


def _is_ancestor(session: Session, candidate: str, entry_id: str) -> bool:
    """Whether candidate is entry_id or above it (a walk up, no path list built)."""
    parent = session.tree.parent
    cur: str | None = entry_id
    while cur is not None:
        if cur == candidate:
            return True
        cur = parent.get(cur)
    return False


def last_texts(session: Session, path: list[str]) -> tuple[str, str, str | None]:
    """The last user request, the last assistant text and the last stop reason on a path."""
    user = answer = ""
    stop: str | None = None
    seen_stop = False
    for eid in reversed(path):
        e = session.by_id[eid]
        role = e.role
        if role == "assistant":
            if not seen_stop:
                raw = (e.message or {}).get("stopReason")
                stop = raw if isinstance(raw, str) else None
                seen_stop = True
            if not answer:
                answer = message_text(e, session.derive).strip()
        elif role == "user" and not user:
            user = message_text(e, session.derive).strip()
        if user and answer and seen_stop:
            break
    return one_line(user, session.derive), one_line(answer, session.derive), stop


def describe(session: Session, leaf: str, shared: int, current: bool, fork: str | None) -> Branch:
    """One branch: its own part's figures, labels, last texts and outcome."""
    path = session.tree.path_to(leaf)
    own = path[shared:]
    user, _answer, stop = last_texts(session, path)
    _user, answer, _stop = last_texts(session, own)  # an answer of its own, not the fork's
    return Branch(
        leaf=leaf,
        current=current,
        path=path,
        fork_from=fork,
        shared=shared,
        figures=compute_figures((session.by_id[i] for i in own), estimate=True),
        labels=[session.labels[i] for i in own if i in session.labels],
        last_user=user,
        last_answer=answer,
        stop=stop,
    )


def list_branches(session: Session) -> list[Branch]:
    """Every leaf of the session with its own part's figures, in the tree's order."""
    tree = session.tree
    depth_on_current = {eid: i for i, eid in enumerate(tree.path)}
    out: list[Branch] = []
    for leaf in leaf_order(session):
        current = leaf == tree.leaf_id
        fork: str | None = None
        shared = 0
        if not current:
            cur: str | None = leaf
            while cur is not None and cur not in depth_on_current:
                cur = tree.parent.get(cur)
            if cur is not None:
                fork, shared = cur, depth_on_current[cur] + 1
        out.append(describe(session, leaf, shared, current, fork))
    left = branch_summaries(session)
    for sid, left_at in left.items():
        text = one_line(str(session.by_id[sid].raw.get("summary") or ""), session.derive, 400)
        for b in out:
            if left_at in b.own:
                b.summaries.append((sid, text))
    return out


def branches_json(session: Session) -> JSON:
    """The stable JSON of ``piexport branches --format json``."""
    header = session.header
    return {
        "leaves": [b.as_json() for b in list_branches(session)],
        "parentSession": header.parent_session if header else None,
    }


def figures_line(b: Branch) -> str:
    """turns · tool calls · errors · tokens · cost · files · time: one line of figures."""
    line = figures_text(b.figures)
    if b.duration_seconds is not None:
        line += f" · {active_text(b.active_seconds, b.duration_seconds)}"
    return line


def active_text(active: float | None, span: float | None) -> str:
    """``1h 02m active · 3h 10m span``: time spent working, and the span from the first entry
    to the last when idle gaps (``stats.IDLE_GAP_MS``) make it longer."""
    if span is None:
        return "—"
    if active is None or not span_differs(active, span):
        return f"{duration(active if active is not None else span)} active"
    return f"{duration(active)} active · {duration(span)} span"


def span_differs(active: float, span: float) -> bool:
    """Whether the span is worth showing beside the active time: idle gaps made it longer
    by a minute or more, as durations are shown."""
    return int(active) // 60 != int(span) // 60


def figures_text(f: Figures) -> str:
    """turns · tool calls · errors · tokens · cost · files (· compactions) of some entries:
    a branch card's line, and each side's in the compare view."""
    parts = [
        plural(f.messages.get("user", 0), "turn"),
        plural(sum(f.tool_calls.values()), "tool call"),
        plural(f.error_count, "error"),
        f"{tokens(f.tokens['total'])} tokens",
        f"cost {cost_text(f)}",
        plural(len(f.files_modified), "file") + " modified",
    ]
    if f.compactions:
        parts.append(plural(f.compactions, "compaction"))
    return " · ".join(parts)


def cost_text(f: Figures) -> str:
    """The reported cost and, marked, the estimate for messages that reported none (as the
    page header shows them): ``$0.50 + ~$0.0054 est.``, ``~$0.0054 est.`` or ``—``."""
    return cost_label(f.cost or None, f.known_estimate)


def cost_label(cost: float | None, est: float | None) -> str:
    """A reported cost (None: none reported) and, marked, an estimate: ``$3.70 + ~$20.66
    est.``, ``~$20.66 est.``, ``$3.70`` or ``—``; every text format and chart says it so."""
    if not est:
        return money(cost)
    if cost is None:
        return f"~{money(est)} est."
    return f"{money(cost)} + ~{money(est)} est."


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def duration(seconds: float) -> str:
    """``45s``, ``12m 05s``, ``1h 59m``, ``3d 4h``; a negative span (clocks that disagree)
    is no duration at all, shown as ``—``, never as a negative figure."""
    if seconds < 0:
        return "—"
    s = int(seconds)
    d, rem = divmod(s, 86_400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return f"{d}d {h}h"
    return f"{h}h {m:02d}m" if h else (f"{m}m {s:02d}s" if m else f"{s}s")


def branches_text(session: Session) -> str:
    """What ``piexport branches`` prints: one block per leaf (terminal-safe by the caller,
    which also reads each line it prints again with the session's ``derive``)."""
    branches = list_branches(session)
    header = session.header
    lines: list[str] = []
    if header and header.parent_session:
        lines += [f"forked from {header.parent_session} (the shared history is in that file)", ""]
    if len(branches) <= 1:
        lines.append("1 leaf: there are no other branches.")
    else:
        lines.append(f"{len(branches)} leaves")
    lines.append("")
    for b in branches:
        mark = "* current" if b.current else "  branch"
        label = f" [{', '.join(b.labels)}]" if b.labels else ""
        lines.append(f"{mark} {b.leaf}{label}")
        if b.current:
            where = f"whole path, {len(b.path)} entries"
        elif b.fork_from is None:
            where = f"separate root, {len(b.path)} entries, none shared"
        else:
            where = (
                f"forks from {b.fork_from} after {b.shared} shared entries, {len(b.own)} its own"
            )
        lines.append(f"    {where}")
        lines.append(f"    {figures_line(b)}")
        if b.ended_badly:
            lines.append(f"    ended in {b.stop}")
        if b.last_user:
            lines.append(f"    asked:    {b.last_user}")
        if b.last_answer:
            lines.append(f"    answered: {b.last_answer}")
        for _sid, text in b.summaries:
            lines.append(f"    summary when left: {text}")
        if b.figures.files_modified:
            shown = sorted({shown_path(p, session.cwd) for p in b.figures.files_modified})
            lines.append(f"    modified: {', '.join(shown)}")
        lines.append("")
    return "\n".join(lines)


def find_leaf(session: Session, wanted: str) -> str | None:
    """A leaf by id, or by a label on it; None when neither names one."""
    if wanted in session.by_id:
        return wanted
    for eid, label in session.labels.items():
        if label == wanted:
            return eid
    return None
