"""What the model saw: ``build_session_context()``, as pi's ``buildSessionContext()`` builds it.

The result is the object pi would build, in pi's own shape, so ``piexport context`` can be
diffed against pi. Where pi would put ``undefined`` the key is left out (as
``JSON.stringify`` does), and timestamps JavaScript cannot read become ``None`` (``null``).
"""

from __future__ import annotations

from typing import Any

from .model import JSON, Entry, Session
from .tree import timestamp_ms

_MISSING = object()


def _put(out: JSON, key: str, value: Any) -> None:
    """Set a key unless the value is missing (JavaScript's undefined)."""
    if value is not _MISSING:
        out[key] = value


def context_message(entry: Entry) -> JSON | None:
    """The message one entry contributes to the context, or None.

    A stored message goes in verbatim (any role); a custom_message is wrapped even when
    ``display`` is false; a branch summary counts only when its summary is non-empty.
    """
    raw = entry.raw
    if entry.type == "message":
        msg = raw.get("message")
        return msg if isinstance(msg, dict) else None
    if entry.type == "custom_message":
        out: JSON = {"role": "custom"}
        for key in ("customType", "content", "display", "details"):
            _put(out, key, raw.get(key, _MISSING))
        out["timestamp"] = timestamp_ms(raw.get("timestamp"))
        return out
    if entry.type == "branch_summary" and raw.get("summary"):
        out = {"role": "branchSummary", "summary": raw["summary"]}
        _put(out, "fromId", raw.get("fromId", _MISSING))
        out["timestamp"] = timestamp_ms(raw.get("timestamp"))
        return out
    return None


def build_session_context(session: Session, leaf_id: str | None = None) -> JSON:
    """Return ``{messages, thinkingLevel, model}`` for the path ending at ``leaf_id``.

    ``leaf_id`` defaults to the session's leaf (the last entry in the file); an id that
    does not exist falls back to it too, as in pi.
    """
    leaf = leaf_id if leaf_id is not None and leaf_id in session.by_id else session.tree.leaf_id
    if leaf is None:
        return {"messages": [], "thinkingLevel": "off", "model": None}
    path = session.path_entries(leaf)

    thinking: Any = "off"
    model: JSON | None = None
    compaction: Entry | None = None
    compaction_at = -1
    for i, e in enumerate(path):
        if e.type == "thinking_level_change":
            thinking = e.raw.get("thinkingLevel", _MISSING)
        elif e.type == "model_change":
            model = {}
            _put(model, "provider", e.raw.get("provider", _MISSING))
            _put(model, "modelId", e.raw.get("modelId", _MISSING))
        elif e.type == "message" and e.role == "assistant":
            msg = e.message or {}
            model = {}
            _put(model, "provider", msg.get("provider", _MISSING))
            _put(model, "modelId", msg.get("model", _MISSING))
        elif e.type == "compaction":
            compaction, compaction_at = e, i

    messages: list[Any] = []
    kept = _kept(path, compaction, compaction_at)
    if compaction is not None:
        summary: JSON = {"role": "compactionSummary"}
        _put(summary, "summary", compaction.raw.get("summary", _MISSING))
        _put(summary, "tokensBefore", compaction.raw.get("tokensBefore", _MISSING))
        summary["timestamp"] = timestamp_ms(compaction.raw.get("timestamp"))
        messages.append(summary)
    for e in kept:
        contributed = context_message(e)
        if contributed is not None:
            messages.append(contributed)

    out: JSON = {"messages": messages}
    _put(out, "thinkingLevel", thinking)
    out["model"] = model
    return out


def _kept(path: list[Entry], compaction: Entry | None, compaction_at: int) -> list[Entry]:
    """The entries of the path a compaction keeps (all of them when there is none)."""
    if compaction is None:
        return path
    first_kept = compaction.raw.get("firstKeptEntryId", _MISSING)
    start = next((i for i in range(compaction_at) if _raw_id(path[i]) == first_kept), compaction_at)
    return path[start:compaction_at] + path[compaction_at + 1 :]


def context_entries(session: Session, leaf_id: str | None = None) -> list[Entry]:
    """The entries behind ``build_session_context``'s messages, in the same order: the last
    compaction on the path (for its summary), then every kept entry that contributes."""
    leaf = leaf_id if leaf_id is not None and leaf_id in session.by_id else session.tree.leaf_id
    if leaf is None:
        return []
    path = session.path_entries(leaf)
    at = max((i for i, e in enumerate(path) if e.type == "compaction"), default=-1)
    compaction = path[at] if at >= 0 else None
    kept = [e for e in _kept(path, compaction, at) if context_message(e) is not None]
    return ([compaction] if compaction is not None else []) + kept


def _raw_id(entry: Entry) -> Any:
    """The id as the file wrote it: pi compares ``firstKeptEntryId`` against that."""
    return entry.raw.get("id", _MISSING)
