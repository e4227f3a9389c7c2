"""The other ways out of ``piexport render``: readable Markdown, and the normalised model as JSON.

Markdown follows the current path first, then every other branch from where it forks, so
every entry of the file is in it once. Message text is Markdown already and goes in as
written; everything a tool or a command produced goes inside code fences longer than any
backtick run in it, folded in ``<details>`` (GitHub, GitLab and most viewers render those).
What each kind of entry looks like is its kind's (``piexport.kinds``); an entry of a type
this version does not know is shown whole, as JSON in a fence, and the fields of a known one
that no output shows in its own way follow it, under "Other fields".
"""

from __future__ import annotations

from typing import Any

from ..kinds import MarkdownContext, kind_of, other_fields
from ..kinds.base import details
from ..read.context import build_session_context
from ..read.jsonutil import dumps_shown, output_json
from ..read.model import Entry, Session
from ..read.pairing import pair_tool_results
from ..read.system import leading_system_ids
from ..text.mdsafe import code_fence, code_span, inline_text
from .branches import leaf_order


def _entry_markdown(e: Entry, ctx: MarkdownContext) -> list[str]:
    """An entry's lines, by its kind, then the fields no output shows in its own way."""
    kind = kind_of(e)
    out = kind.markdown(e, ctx)
    extra = other_fields(e) if not kind.whole else None
    if extra:
        out += details(f"Other fields of entry {e.id}", code_fence(dumps_shown(extra), "json"))
    return out


Section = tuple[str | None, str | None, list[Entry]]


def _branches(session: Session, leaf_id: str | None) -> list[Section]:
    """The current path, then each other leaf's entries not shown yet, in the tree's order:
    ``(leaf, fork, entries)``, where ``fork`` is the entry shown already that its first
    entry follows (None under another root). Each entry once: linear in the file."""
    tree = session.tree
    current = session.path_entries(leaf_id)
    out: list[Section] = [(None, None, current)]
    done = {e.id for e in current}
    for leaf in leaf_order(session):
        own: list[str] = []
        cur: str | None = leaf
        while cur is not None and cur not in done and cur in session.by_id:
            own.append(cur)
            done.add(cur)
            cur = tree.parent.get(cur)
        if own:
            out.append((leaf, cur, [session.by_id[i] for i in reversed(own)]))
    rest = [e for e in session.entries if e.id not in done]  # none, unless the tree lost one
    if rest:
        out.append((None, None, rest))
    return out


def _branch_heading(session: Session, leaf: str | None, fork: str | None) -> list[str]:
    if leaf is None:
        return ["## Entries on no branch", ""]
    label = session.labels.get(leaf)
    head = f"## Branch ending at {code_span(leaf)}" + (f" ({inline_text(label)})" if label else "")
    where = (
        f"It forks from entry {code_span(fork)}, shown above."
        if fork is not None
        else "It shares no entry with the branches above."
    )
    return ["---", "", head, "", where, ""]


def session_markdown(session: Session, leaf_id: str | None = None) -> str:
    """The conversation along the current path as Markdown, then every other branch."""
    results = pair_tool_results(session)
    sections = _branches(session, leaf_id)
    # a result is shown with its call (every call is shown, on one branch or another)
    shown = {r.id for r in results.values()}
    ctx = MarkdownContext(results, shown, leading_system_ids(session), kind_of)
    title = session.title or "pi session"
    lines = [
        f"# {inline_text(title)}",
        "",
        f"- Project: {code_span(str(session.cwd))}",
        f"- Session: {code_span(str(session.id))}",
        "",
    ]
    if len(sections) > 1:
        current = sections[0][2][-1].id if sections[0][2] else None
        lines += [
            f"The current branch{f' (ending at {code_span(current)})' if current else ''} "
            f"comes first, then {len(sections) - 1} other branch"
            f"{'es' if len(sections) > 2 else ''} from where each forks.",
            "",
        ]
    for i, (leaf, fork, entries) in enumerate(sections):
        if i:
            lines += _branch_heading(session, leaf, fork)
        for e in entries:
            lines += _entry_markdown(e, ctx)
    # everything above joins, cuts or puts session text on one line: it is read again as it
    # shows, with the session's derive (outside code a line at a time, each code block whole)
    return session.derive.markdown("\n".join(lines).rstrip()) + "\n"


def session_json(session: Session, leaf_id: str | None = None) -> str:
    """The normalised model: migrated entries, the tree, labels, name, context, problems."""
    tree = session.tree
    data: dict[str, Any] = {
        "file": session.path,
        "header": session.header.raw if session.header else None,
        "name": session.name,
        "entries": [
            {"id": e.id, "line": e.line, **{k: v for k, v in e.raw.items() if k != "id"}}
            for e in session.entries
        ],
        "tree": {
            "roots": tree.roots,
            "leaf": tree.leaf_id,
            "path": tree.path,
            "leaves": tree.leaves,
            "branchPoints": tree.branch_points,
            "orphans": tree.orphans,
            "parent": tree.parent,
        },
        "labels": session.labels,
        "context": build_session_context(session, leaf_id),
        "diagnostics": [
            {"line": d.line, "level": d.level, "message": d.message} for d in session.diagnostics
        ],
    }
    return output_json(data) + "\n"
