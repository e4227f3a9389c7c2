"""What the model saw: ``build_session_context()``, as pi 1.5's ``buildSessionContext()`` builds it.

pi 1.5 builds a context in three steps, and so does this module:

1. **Selection** (``selected_entries``, pi's ``buildContextEntries``): the path root → leaf; with
   a compaction on it, the latest one first, then the entries from its ``firstKeptEntryId`` up
   to it *without system messages* (its own system checkpoint replaces them), then every entry
   after it. A retain-none compaction names itself as the first kept entry and keeps nothing.
2. **Projection** (``projection``, pi's ``buildSessionProjection``): each selected entry becomes
   its messages, with the latest ``context_edit`` among the selected entries that targets it
   applied (``replacement: null`` omits it; otherwise its content is replaced, a string
   becoming one text block for assistant and tool-result messages). An older compaction that
   lies inside the kept range contributes nothing. Edits are branch-relative because only the
   selected entries' edits count.
3. **Context** (``build_session_context``): the projected messages, with the thinking level and
   model of the whole path.

The result is the object pi would build, in pi's own shape, so ``piexport context`` can be
diffed against pi. Where pi would put ``undefined`` the key is left out (as ``JSON.stringify``
does), and timestamps JavaScript cannot read become ``None`` (``null``). Files written by older
pi read the same way (their contexts are unchanged: they hold no system messages, context edits
or compaction checkpoints).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .jsutil import MISSING, js_truthy, put
from .model import JSON, Entry, Session
from .tree import timestamp_ms

_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})
_ARRAY_ROLES = frozenset({"assistant", "toolResult"})
_NULL_CONTENT_AS_ARRAY = frozenset({"user", "assistant", "toolResult"})


@dataclass(frozen=True, slots=True)
class Projected:
    """One selected entry and the messages it gives the model (none when omitted)."""

    entry: Entry
    messages: list[Any]
    edit: Entry | None
    """The ``context_edit`` that applies to this entry on this path, if any."""


def _leaf(session: Session, leaf_id: str | None) -> str | None:
    """pi's leaf: the given entry, else the last entry in the file (an unknown id too)."""
    if leaf_id is not None and leaf_id in session.by_id:
        return leaf_id
    return session.tree.leaf_id


def is_system(entry: Entry) -> bool:
    """A ``message`` entry holding a system message (the prompt and tool loadout)."""
    return entry.role == "system"


def selected_entries(session: Session, leaf_id: str | None = None) -> list[Entry]:
    """The path's entries that make up the context (pi's ``buildContextEntries``), in order:
    entries that contribute no message (labels, model changes, edits) are kept too."""
    leaf = _leaf(session, leaf_id)
    if leaf is None:
        return []
    path = session.path_entries(leaf)
    at = next((i for i in range(len(path) - 1, -1, -1) if path[i].type == "compaction"), -1)
    if at < 0:
        return path
    compaction = path[at]
    first_kept = compaction.raw.get("firstKeptEntryId", MISSING)
    # pi compares against the id as the file wrote it (a missing one included)
    start = next((i for i in range(at) if path[i].raw.get("id", MISSING) == first_kept), at)
    kept = [e for e in path[start:at] if not is_system(e)]
    return [compaction, *kept, *path[at + 1 :]]


def entry_messages(entry: Entry) -> list[Any]:
    """The messages one entry gives the model before any edit (pi's
    ``sessionEntryToContextMessages``)."""
    raw = entry.raw
    if entry.type == "message":
        msg = raw.get("message")
        if not isinstance(msg, dict):
            return []
        role = msg.get("role")
        if msg.get("content") is None:  # null or missing: pi repairs both
            if role == "system":
                return [{**msg, "content": ""}]
            if role in _NULL_CONTENT_AS_ARRAY:
                return [{**msg, "content": []}]
        return [msg]
    if entry.type == "custom_message":
        out: JSON = {"role": "custom"}
        put(out, "customType", raw.get("customType", MISSING))
        content = raw.get("content")
        out["content"] = [] if content is None else content
        put(out, "display", raw.get("display", MISSING))
        put(out, "details", raw.get("details", MISSING))
        out["timestamp"] = timestamp_ms(raw.get("timestamp"))
        return [out]
    if entry.type == "branch_summary" and js_truthy(raw.get("summary", MISSING)):
        out = {"role": "branchSummary", "summary": raw["summary"]}
        put(out, "fromId", raw.get("fromId", MISSING))
        out["timestamp"] = timestamp_ms(raw.get("timestamp"))
        return [out]
    if entry.type == "compaction":
        summary: JSON = {"role": "compactionSummary"}
        put(summary, "summary", raw.get("summary", MISSING))
        put(summary, "tokensBefore", raw.get("tokensBefore", MISSING))
        summary["timestamp"] = timestamp_ms(raw.get("timestamp"))
        checkpoint = raw.get("systemMessage", MISSING)
        return [checkpoint, summary] if js_truthy(checkpoint) else [summary]
    return []


def edit_replacement(edit: Entry) -> Any:
    """What a ``context_edit`` puts in place of its target's content: None (omit the target),
    a replacement object, or MISSING when the edit has no usable ``replacement`` (pi would fail
    on it; here it changes nothing)."""
    replacement = edit.raw.get("replacement", MISSING)
    if replacement is None or isinstance(replacement, dict):
        return replacement
    return MISSING


def apply_edit(messages: list[Any], edit: Entry | None) -> list[Any]:
    """pi's ``projectContextEntry``: an entry's messages with one context edit applied."""
    if edit is None:
        return messages
    replacement = edit_replacement(edit)
    if replacement is None:
        return []
    if replacement is MISSING:
        return messages
    new = replacement.get("content", MISSING)
    out: list[Any] = []
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role not in _EDITABLE_ROLES:
            out.append(message)
            continue
        as_block = role in _ARRAY_ROLES and isinstance(new, str)
        content = [{"type": "text", "text": new}] if as_block else new
        edited = dict(message)
        if content is MISSING:
            edited.pop("content", None)  # {...message, content: undefined}
        else:
            edited["content"] = content
        out.append(edited)
    return out


def projection(session: Session, leaf_id: str | None = None) -> list[Projected]:
    """Every selected entry with what it gives the model at ``leaf_id`` (pi's
    ``buildSessionProjection``)."""
    selected = selected_entries(session, leaf_id)
    edits: dict[Any, Entry] = {}
    for e in selected:
        if e.type == "context_edit":
            target = e.raw.get("targetId")
            if _hashable(target):
                edits[target] = e  # the latest edit on the path wins
    out: list[Projected] = []
    for i, e in enumerate(selected):
        if e.type == "compaction" and i > 0:
            # an older compaction inside the newest kept range: only the newest (first) counts
            out.append(Projected(e, [], None))
            continue
        raw_id = e.raw.get("id", MISSING)
        edit = edits.get(raw_id) if _hashable(raw_id) else None
        out.append(Projected(e, apply_edit(entry_messages(e), edit), edit))
    return out


def settings(path: list[Entry]) -> tuple[Any, JSON | None]:
    """The thinking level and model at the end of a path (pi's ``getSessionContextSettings``):
    the latest thinking-level change; the latest model change or assistant message."""
    thinking: Any = "off"
    model: JSON | None = None
    for e in path:
        if e.type == "thinking_level_change":
            thinking = e.raw.get("thinkingLevel", MISSING)
        elif e.type == "model_change":
            model = {}
            put(model, "provider", e.raw.get("provider", MISSING))
            put(model, "modelId", e.raw.get("modelId", MISSING))
        elif e.role == "assistant":
            msg = e.message or {}
            model = {}
            put(model, "provider", msg.get("provider", MISSING))
            put(model, "modelId", msg.get("model", MISSING))
    return thinking, model


def build_session_context(session: Session, leaf_id: str | None = None) -> JSON:
    """Return ``{messages, thinkingLevel, model}`` for the path ending at ``leaf_id``.

    ``leaf_id`` defaults to the session's leaf (the last entry in the file); an id that
    does not exist falls back to it too, as in pi.
    """
    leaf = _leaf(session, leaf_id)
    if leaf is None:
        return {"messages": [], "thinkingLevel": "off", "model": None}
    thinking, model = settings(session.path_entries(leaf))
    out: JSON = {"messages": [m for p in projection(session, leaf) for m in p.messages]}
    put(out, "thinkingLevel", thinking)
    out["model"] = model
    return out


def context_entries(session: Session, leaf_id: str | None = None) -> list[Entry]:
    """The entries behind ``build_session_context``'s messages, in the same order (each once)."""
    return [p.entry for p in projection(session, leaf_id) if p.messages]


def _hashable(value: object) -> bool:
    """JSON scalars: ids a file may write (an array or object id never matches one)."""
    return value is None or isinstance(value, str | int | float | bool)
