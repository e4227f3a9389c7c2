"""Which tool result answers which tool call: pi writes results after their call, parallel
calls one after another, and some providers repeat call ids (``call_0``)."""

from __future__ import annotations

from typing import Any

from .model import Entry, Session

__all__ = ["MAX_RESULT_WALK", "pair_tool_results", "tool_calls_by_id"]


def tool_calls_by_id(session: Session) -> dict[str, tuple[Any, Any]]:
    """toolCall id → (name, arguments), over every assistant message in the file."""
    calls: dict[str, tuple[Any, Any]] = {}
    for e in session.entries:
        for block in e.tool_calls():
            cid = block.get("id")
            if isinstance(cid, str):
                calls[cid] = (block.get("name"), block.get("arguments"))
    return calls


MAX_RESULT_WALK = 64
"""How far up the tree a tool result looks for the assistant message that called it (pi
puts results right after their call; parallel calls put them one after another)."""


def pair_tool_results(session: Session) -> dict[tuple[str, str], Entry]:
    """(assistant entry id, toolCall id) → the toolResult entry that answers it.

    Only real assistant messages call tools. A result pairs with the nearest assistant
    message above it in the tree holding a call with its id (so calls whose ids repeat,
    as some providers' ``call_0`` do, each get their own result); failing that, with the
    first call of that id in the file still unanswered. Each call gets at most one result
    and each result at most one call: a result left over is shown on its own."""
    owners: dict[str, list[str]] = {}
    calls_in: dict[str, set[str]] = {}
    for e in session.entries:
        for block in e.tool_calls():
            cid = block.get("id")
            if isinstance(cid, str) and cid not in calls_in.setdefault(e.id, set()):
                calls_in[e.id].add(cid)
                owners.setdefault(cid, []).append(e.id)
    parent = session.tree.parent
    pairs: dict[tuple[str, str], Entry] = {}
    free: dict[str, int] = {}
    for e in session.entries:
        if e.role != "toolResult":
            continue
        cid = (e.message or {}).get("toolCallId")
        if not isinstance(cid, str) or cid not in owners:
            continue
        owner: str | None = None
        cur = parent.get(e.id)
        for _ in range(MAX_RESULT_WALK):
            if cur is None:
                break
            if cid in calls_in.get(cur, ()):
                owner = cur
                break
            cur = parent.get(cur)
        if owner is None or (owner, cid) in pairs:
            listed = owners[cid]
            i = free.get(cid, 0)
            while i < len(listed) and (listed[i], cid) in pairs:
                i += 1
            free[cid] = i
            owner = listed[i] if i < len(listed) else None
        if owner is not None:
            pairs[(owner, cid)] = e
    return pairs
