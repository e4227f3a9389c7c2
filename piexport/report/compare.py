"""Two branches side by side: what ``piexport compare`` writes and the page's compare view shows.

Both paths share their history down to the fork point (the deepest entry on both); each
side is what comes after it. Sides are cut into turns at user messages, and the turns are
aligned by their user text with :class:`difflib.SequenceMatcher`: equal requests pair up
as "same", a run replaced by another pairs up in order as "changed", and the rest stand on
one side. For a file both sides modified, the final versions are rebuilt from the whole
path (a ``write``, or edits applied to a full ``read`` or an earlier write) and compared
with :func:`difflib.unified_diff`; when the session does not hold enough, it says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..read.model import JSON, Session
from ..read.tooloutput import split_notice
from ..text.mdsafe import code_fence, code_span, html_text, inline_text
from .branches import ENDED_BADLY, cost_text, last_texts, message_text, one_line
from .linediff import line_counts, opcodes, unified
from .paths import shown_path
from .stats import Figures, compute_figures

MAX_DIFF_LINES = 400
"""A longer diff is cut here, with a line saying how much was left out."""
Match = Literal["same", "changed", "onlyA", "onlyB"]


@dataclass(frozen=True, slots=True)
class Turn:
    """A user request and what followed it, up to the next request (or the side's end)."""

    entry: str
    """Its user message, or the side's first entry when the side starts mid-turn."""
    user: str | None
    """The request on one line; None for the rest of a turn begun before the fork."""
    answer: str
    tool_calls: int
    tool_errors: int
    stop: str | None
    key: str
    """The request as the alignment compares it (case and spacing folded)."""

    def as_json(self) -> JSON:
        return {
            "entry": self.entry,
            "user": self.user,
            "answer": self.answer or None,
            "toolCalls": self.tool_calls,
            "toolErrors": self.tool_errors,
            "stopReason": self.stop,
        }


@dataclass(slots=True)
class Side:
    leaf: str
    labels: list[str]
    own: list[str]
    figures: Figures
    turns: list[Turn]
    stop: str | None
    versions: dict[str, str | None]
    """Path → its final text on this path, or None when it cannot be rebuilt."""
    why: dict[str, str]
    """Path → why its final text cannot be rebuilt."""

    def as_json(self) -> JSON:
        return {
            "leaf": self.leaf,
            "labels": list(self.labels),
            "entries": len(self.own),
            "figures": self.figures.as_json(),
            "stopReason": self.stop,
            "endedInError": self.stop in ENDED_BADLY,
            "turns": [t.as_json() for t in self.turns],
        }


@dataclass(frozen=True, slots=True)
class FileComparison:
    path: str
    status: Literal["same", "different", "unknown"]
    diff: str | None = None
    reason: str | None = None

    def as_json(self) -> JSON:
        return {"path": self.path, "status": self.status, "diff": self.diff, "reason": self.reason}


@dataclass(slots=True)
class Comparison:
    a: Side
    b: Side
    fork: str | None
    shared: int
    alignment: list[tuple[int | None, int | None, Match]]
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    both: list[FileComparison] = field(default_factory=list)

    def as_json(self) -> JSON:
        """The stable JSON of ``piexport compare --format json`` (see README)."""
        return {
            "forkFrom": self.fork,
            "sharedEntries": self.shared,
            "a": self.a.as_json(),
            "b": self.b.as_json(),
            "turns": [{"a": i, "b": j, "match": m} for i, j, m in self.alignment],
            "files": {
                "onlyA": list(self.only_a),
                "onlyB": list(self.only_b),
                "both": [f.as_json() for f in self.both],
            },
        }


def fold(text: str) -> str:
    return " ".join(text.lower().split())


def turns_of(
    session: Session, ids: list[str], memo: dict[tuple[str, str], Turn] | None = None
) -> list[Turn]:
    """A side cut into turns at its user messages. With ``memo``, a turn already worked out
    (for another side: sides of one session share most of their turns) is taken from it; a
    turn is one run of a path, so its first and last entry name it."""
    groups: list[list[str]] = []
    for eid in ids:
        if session.by_id[eid].role == "user" or not groups:
            groups.append([])
        groups[-1].append(eid)
    out = []
    for group in groups:
        key = (group[0], group[-1])
        if memo is not None and key in memo:
            out.append(memo[key])
            continue
        first = session.by_id[group[0]]
        request = message_text(first, session.derive) if first.role == "user" else None
        figures = compute_figures((session.by_id[i] for i in group), estimate=True)
        _user, answer, stop = last_texts(session, group)
        has_assistant = figures.messages.get("assistant", 0) > 0
        turn = Turn(
            entry=group[0],
            user=one_line(request, session.derive) if request is not None else None,
            answer=answer,
            tool_calls=sum(figures.tool_calls.values()),
            tool_errors=figures.tool_errors,
            stop=stop if has_assistant else None,
            key="" if request is None else fold(request),
        )
        if memo is not None:
            memo[key] = turn
        out.append(turn)
    return out


def align(a: list[str], b: list[str]) -> list[tuple[int | None, int | None, Match]]:
    """Pair turns by their (folded) requests: the longest matching runs first, as difflib
    finds them; a replaced run pairs up in order, what is left over stands alone."""
    rows: list[tuple[int | None, int | None, Match]] = []
    # thousands of identical requests ("go on") make difflib quadratic: then in order
    ops = opcodes(a, b) or [("replace", 0, len(a), 0, len(b))]
    for op, i1, i2, j1, j2 in ops:
        if op == "equal":
            rows += [(i1 + k, j1 + k, "same") for k in range(i2 - i1)]
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        rows += [(i1 + k, j1 + k, "changed") for k in range(paired)]
        rows += [(i, None, "onlyA") for i in range(i1 + paired, i2)]
        rows += [(None, j, "onlyB") for j in range(j1 + paired, j2)]
    return rows


def _edits(args: dict[str, Any]) -> list[tuple[str, str]] | None:
    raw = args.get("edits")
    pairs = raw if isinstance(raw, list) else [args]
    out = []
    for p in pairs:
        if not isinstance(p, dict):
            return None
        old, new = p.get("oldText", p.get("old_string")), p.get("newText", p.get("new_string"))
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            return None
        out.append((old, new))
    return out


def final_versions(
    session: Session, path: list[str]
) -> tuple[dict[str, str | None], dict[str, str]]:
    """Each file's text at the end of a path, where the path holds it all: a write, a read
    of the whole file, and edits applied to either. A file edited without one is unknown."""
    text, why, _first = file_versions(session, path)
    return text, why


def file_versions(
    session: Session, path: list[str]
) -> tuple[dict[str, str | None], dict[str, str], dict[str, str | None]]:
    """``final_versions`` and, for each file, its text before the path first changed it:
    a whole read before any change, or None when the path changed it without holding what
    was there (a first ``write`` replaced what it does not show)."""
    text: dict[str, str | None] = {}
    why: dict[str, str] = {}
    first: dict[str, str | None] = {}
    changed: set[str] = set()
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for eid in path:
        e = session.by_id[eid]
        msg = e.message or {}
        if e.role == "assistant":
            for block in e.tool_calls():
                cid, args = block.get("id"), block.get("arguments")
                if isinstance(cid, str) and isinstance(args, dict):
                    calls[cid] = (str(block.get("name")), args)
            continue
        if e.role != "toolResult" or msg.get("isError") is True:
            continue
        found = calls.pop(str(msg.get("toolCallId")), None)
        if found is None:
            continue
        name, args = found
        file = args.get("path", args.get("file_path"))
        if not isinstance(file, str) or not file:
            continue
        if name in ("write", "edit") and file not in changed:
            changed.add(file)
            first[file] = text.get(file)
        if name == "write" and isinstance(args.get("content"), str):
            text[file], _ = args["content"], why.pop(file, None)
        elif name == "read":
            body, notice = split_notice(message_text(e, session.derive))
            whole = "offset" not in args and "limit" not in args and notice is None
            if whole and text.get(file) is None:
                text[file], _ = body, why.pop(file, None)
        elif name == "edit":
            before = text.get(file)
            edits = _edits(args)
            if before is None:
                text[file] = None
                why.setdefault(file, "edited without the whole file in the session before")
            elif edits is None:
                text[file], why[file] = None, "an edit the session does not spell out"
            else:
                for old, new in edits:
                    if before.count(old) != 1:
                        text[file], why[file] = None, "an edit does not match the text rebuilt"
                        break
                    at = before.index(old)  # the text around an edit is new: derive reads it
                    before = session.derive.join([before[:at], new, before[at + len(old) :]], "")
                else:
                    text[file] = before
    return text, why, first


@dataclass(slots=True)
class Cache:
    """What comparing many pairs of one session's leaves works out once: each side (by leaf
    and fork depth), each turn (by its first and last entry) and each leaf's path."""

    sides: dict[tuple[str, int], Side] = field(default_factory=dict)
    turns: dict[tuple[str, str], Turn] = field(default_factory=dict)
    paths: dict[str, list[str]] = field(default_factory=dict)
    segments: dict[tuple[str, str], tuple[Figures, list[tuple[str, float]]]] = field(
        default_factory=dict
    )
    """Figures of each stretch of the tree between forks, by its first and last entry, with
    the costs they add up: a side's figures are the sum of its stretches, so each entry is
    counted once per page rather than once per side holding it."""

    def figures(self, session: Session, own: list[str]) -> Figures:
        total, start = Figures(), 0
        costs: list[tuple[str, float]] = []
        forks = session.tree.children
        for i, entry_id in enumerate(own):
            if i + 1 < len(own) and len(forks.get(entry_id, ())) < 2:
                continue
            key = (own[start], entry_id)
            if key not in self.segments:
                part: list[tuple[str, float]] = []
                stretch = (session.by_id[e] for e in own[start : i + 1])
                self.segments[key] = compute_figures(stretch, part, estimate=True), part
            figures, part = self.segments[key]
            total.add(figures)
            costs += part
            start = i + 1
        total.resum(costs)  # added again in the order of one pass: the same float to the last bit
        return total

    def path_to(self, session: Session, leaf: str) -> list[str]:
        if leaf not in self.paths:
            self.paths[leaf] = session.tree.path_to(leaf)
        return self.paths[leaf]


def _side(session: Session, leaf: str, shared: int, cache: Cache | None = None) -> Side:
    """One side; with ``cache``, each (leaf, fork depth) is worked out once (a page compares
    every pair of its leaves, and most pairs share their sides)."""
    if cache is not None and (leaf, shared) in cache.sides:
        return cache.sides[(leaf, shared)]
    path = cache.path_to(session, leaf) if cache is not None else session.tree.path_to(leaf)
    own = path[shared:]
    whole = cache.sides.get((leaf, -1)) if cache is not None else None
    if whole is not None:
        versions, why = whole.versions, whole.why
    else:
        versions, why = final_versions(session, path)
    _u, _a, stop = last_texts(session, path)
    side = Side(
        leaf=leaf,
        labels=[session.labels[i] for i in own if i in session.labels],
        own=own,
        figures=cache.figures(session, own)
        if cache is not None
        else compute_figures((session.by_id[i] for i in own), estimate=True),
        turns=turns_of(session, own, cache.turns if cache is not None else None),
        stop=stop,
        versions=versions,
        why=why,
    )
    if cache is not None:
        cache.sides[(leaf, shared)] = side
        cache.sides.setdefault((leaf, -1), side)
    return side


def file_diff(path: str, a: str, b: str) -> str:
    made = unified(a, b, f"A/{path}", f"B/{path}")
    if made is None:
        added, removed = line_counts(a, b)
        changed = added + removed
        return f"[the two versions differ in about {changed} lines: too big a change to diff]\n"
    lines = made
    if len(lines) > MAX_DIFF_LINES:
        left = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], f"[{left} more diff lines not shown]\n"]
    return "".join(lines)


def compare(session: Session, leaf_a: str, leaf_b: str, cache: Cache | None = None) -> Comparison:
    """Compare the paths to two entries (usually leaves) of one session."""
    if cache is not None:
        pa, pb = cache.path_to(session, leaf_a), cache.path_to(session, leaf_b)
    else:
        pa, pb = session.tree.path_to(leaf_a), session.tree.path_to(leaf_b)
    shared = 0
    while shared < min(len(pa), len(pb)) and pa[shared] == pb[shared]:
        shared += 1
    fork = pa[shared - 1] if shared else None
    a, b = _side(session, leaf_a, shared, cache), _side(session, leaf_b, shared, cache)
    out = Comparison(a, b, fork, shared, align([t.key for t in a.turns], [t.key for t in b.turns]))
    mod_a, mod_b = a.figures.files_modified, b.figures.files_modified

    def shown(paths: set[str]) -> list[str]:  # relative to the cwd, as every list shows them
        return sorted({shown_path(p, session.cwd) for p in paths})

    out.only_a = shown(mod_a - mod_b)
    out.only_b = shown(mod_b - mod_a)
    for raw in sorted(mod_a & mod_b):
        path = shown_path(raw, session.cwd)
        va, vb = a.versions.get(raw), b.versions.get(raw)
        if va is not None and vb is not None:
            if va == vb:
                out.both.append(FileComparison(path, "same"))
            else:
                out.both.append(FileComparison(path, "different", diff=file_diff(path, va, vb)))
            continue
        missing = [side for side, v in ((a, va), (b, vb)) if v is None]
        reasons = "; ".join(
            f"on the branch ending at {side.leaf}: {side.why.get(path, 'not rebuilt')}"
            for side in missing
        )
        out.both.append(
            FileComparison(
                path, "unknown", reason=f"the session does not hold it whole ({reasons})"
            )
        )
    return out


def compare_markdown(session: Session, c: Comparison) -> str:
    """The comparison for a pull request comment or a CI report: safe where HTML renders."""

    derive = session.derive

    def name(side: Side) -> str:
        labels = f" ({inline_text(derive.join(side.labels, ', '))})" if side.labels else ""
        return f"{code_span(side.leaf)}{labels}"

    title = session.title or "pi session"
    lines = [f"### Branches compared: {inline_text(title)}", ""]
    lines += [f"- **A**: {name(c.a)}", f"- **B**: {name(c.b)}"]
    if c.fork is None:
        lines.append("- Shared history: none (the two start from different roots)")
    else:
        lines.append(f"- Shared history: {c.shared} entries, up to {code_span(c.fork)}")
    lines += ["", "| | turns | tool calls | tool errors | tokens | cost | files modified | ended |"]
    lines.append("|---|---:|---:|---:|---:|---:|---:|---|")
    for n, side in (("A", c.a), ("B", c.b)):
        f = side.figures
        ended = inline_text(side.stop) if side.stop in ENDED_BADLY and side.stop else "ok"
        lines.append(
            f"| {n} | {f.messages.get('user', 0)} | {sum(f.tool_calls.values())} | "
            f"{f.tool_errors} | {f.tokens['total']} | {cost_text(f)} | "
            f"{len(f.files_modified)} | {ended} |"
        )
    lines += ["", "**Turns**, aligned by request", "", "| | A | B |", "|---|---|---|"]

    def cell(side: Side, i: int | None) -> str:
        if i is None:
            return "—"
        t = side.turns[i]
        if t.user and t.answer:  # the request and its answer read as one line: one text
            return inline_text(derive.join([t.user, t.answer], " → "))
        asked = inline_text(t.user) if t.user is not None else "_(continues the shared turn)_"
        extra = f" → {inline_text(t.answer)}" if t.answer else ""
        return asked + extra

    marks = {"same": "=", "changed": "≠", "onlyA": "A", "onlyB": "B"}
    for i, j, m in c.alignment:
        lines.append(f"| {marks[m]} | {cell(c.a, i)} | {cell(c.b, j)} |")
    if not c.alignment:
        lines.append("| | — | — |")
    lines += ["", "**Files modified**", ""]
    if not (c.only_a or c.only_b or c.both):
        lines.append("Neither side modified a file.")
    for n, files in (("A", c.only_a), ("B", c.only_b)):
        if files:
            lines.append(f"- only {n}: " + ", ".join(code_span(p) for p in files))
    for fc in c.both:
        if fc.status == "same":
            lines.append(f"- both: {code_span(fc.path)}, the same final version")
        elif fc.status == "unknown":
            lines.append(
                f"- both: {code_span(fc.path)}, cannot compare: {inline_text(fc.reason or '')}"
            )
        else:
            lines.append(f"- both: {code_span(fc.path)}, final versions differ:")
    for fc in c.both:
        if fc.diff:
            lines += ["", "<details>", f"<summary>{html_text('diff A → B: ' + fc.path)}</summary>"]
            lines += ["", code_fence(fc.diff, "diff"), "", "</details>"]
    # our one-line encoders (code spans, table cells, <summary>) join lines: read again
    return derive.markdown("\n".join(lines)) + "\n"
