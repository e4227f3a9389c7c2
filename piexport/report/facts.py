"""``piexport info``: the facts of one session file, in display order."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..read.model import Session

__all__ = ["fact_lines", "session_facts"]


def session_facts(session: Session) -> dict[str, Any]:
    """The facts ``piexport info`` shows, in display order (its ``--json``)."""
    header = session.header
    types = Counter(e.type for e in session.entries)
    roles = Counter(e.role or "?" for e in session.entries if e.type == "message")
    return {
        "file": session.path,
        "id": header.id if header else None,
        "version": header.version if header else None,
        "cwd": header.cwd if header else None,
        "started": header.timestamp if header else None,
        "forkedFrom": header.parent_session if header else None,
        "name": session.name,
        "entries": len(session.entries),
        "types": dict(types.most_common()),
        "roles": dict(roles.most_common()),
        "leaf": session.tree.leaf_id,
        "leaves": session.tree.leaves,
        "branchPoints": session.tree.branch_points,
        "labels": [session.derive(f"{k}={v}") for k, v in session.labels.items()],
        "diagnostics": [session.derive(str(d)) for d in session.diagnostics],
    }


def fact_lines(facts: dict[str, Any]) -> list[str]:
    """The facts as ``info`` prints them: ``key:  value`` a line, lists and counts joined
    with commas, ``-`` for none."""
    lines = []
    for key, value in facts.items():
        if isinstance(value, dict):
            shown = ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
        elif isinstance(value, list):
            shown = ", ".join(str(v) for v in value) or "-"
        else:
            shown = "-" if value is None else str(value)
        lines.append(f"{key + ':':<14}{shown}")
    return lines
