"""Export exactly what you mean to share: one branch, no thinking, no outputs, no images.

``apply_selection`` returns a new Session holding only the chosen entries and content parts.
Entry ids are never changed, and a dropped part leaves a visible marker, so deep links and
tool pairing still work and a reader can see that something was left out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from ..errors import PiexportError
from .context import edit_replacement, projection
from .model import JSON, Entry, Session
from .tree import build_tree

__all__ = ["Selection", "SelectionError", "apply_selection", "sharing_notice"]

OUTPUT_OMITTED = "[output omitted]"
IMAGE_OMITTED = "[image omitted]"


class SelectionError(PiexportError):
    """The selection names something the session does not have (an unknown leaf)."""


@dataclass(frozen=True, slots=True)
class Selection:
    """What part of a session a page shows; part of a site's fingerprint."""

    branch: Literal["all", "current"] = "all"
    """``current``: only the path root → leaf; ``all``: every branch."""
    leaf: str | None = None
    """The entry whose path is the current one (default: the last entry in the file)."""
    no_thinking: bool = False
    no_tool_output: bool = False
    """Tool calls stay; their results say ``[output omitted]``."""
    only_context: bool = False
    """Only what the model saw on the current path (pi's buildSessionContext)."""
    no_images: bool = False

    @property
    def is_default(self) -> bool:
        return self == Selection()


def apply_selection(session: Session, selection: Selection) -> Session:
    """A new Session with only what ``selection`` keeps; raises :class:`SelectionError` for a
    leaf id the session does not have."""
    if selection.is_default:
        return session
    leaf = session.tree.leaf_id
    if selection.leaf is not None:
        if selection.leaf not in session.by_id:
            msg = f"{session.path}: no entry with id {selection.leaf!r}"
            raise SelectionError(msg)
        leaf = selection.leaf

    if selection.only_context:
        entries = _as_the_model_saw(session, leaf)
    elif selection.branch == "current":
        entries = session.path_entries(leaf) if leaf is not None else []
    else:
        entries = list(session.entries)
    chained = selection.only_context or selection.branch == "current"
    if chained:
        # a single path: each kept entry hangs under the one before it (the page's tree,
        # not the file's parentId, which is shown unchanged)
        entries = [
            replace(e, parent_id=entries[i - 1].id if i else None) for i, e in enumerate(entries)
        ]
    entries = [replace(e, raw=_trim(e.raw, selection), index=i) for i, e in enumerate(entries)]
    by_id = {e.id: e for e in entries}
    tree = build_tree(entries, by_id, session.path, [])
    if leaf in by_id:
        tree.leaf_id = leaf
        tree.path = tree.path_to(leaf)
    return Session(
        path=session.path,
        header=session.header,
        entries=entries,
        by_id=by_id,
        tree=tree,
        labels={k: v for k, v in session.labels.items() if k in by_id},
        name=session.name,
        diagnostics=list(session.diagnostics),
        lines_read=session.lines_read,
        derive=session.derive,
    )


def _as_the_model_saw(session: Session, leaf: str | None) -> list[Entry]:
    """The entries behind the context at ``leaf``, in its order, each as the model saw it: an
    entry a context edit replaced holds the replacement (the original, which its author took
    out of the model's context, is not shared), followed by the edit, which says so."""
    out: list[Entry] = []
    for p in projection(session, leaf):
        if not p.messages:
            continue
        entry = p.entry
        rep = edit_replacement(p.edit) if p.edit is not None else None
        if p.edit is None or not isinstance(rep, dict) or "content" not in rep:
            out.append(entry)
            continue
        raw = dict(entry.raw)
        if entry.type == "message" and isinstance(raw.get("message"), dict):
            raw["message"] = {**raw["message"], "content": p.messages[0].get("content")}
        elif entry.type == "custom_message":
            raw["content"] = rep["content"]
        out += [replace(entry, raw=raw), p.edit]
    return out


def _trim(raw: JSON, selection: Selection) -> JSON:
    """A shallow copy of an entry's object with the unwanted content parts replaced."""
    if not (selection.no_thinking or selection.no_tool_output or selection.no_images):
        return raw
    out = dict(raw)
    if isinstance(out.get("content"), list):  # custom_message
        out["content"] = _blocks(out["content"], selection)
    msg = out.get("message")
    if not isinstance(msg, dict):
        return out
    msg = dict(msg)
    out["message"] = msg
    role = msg.get("role")
    if selection.no_tool_output and role == "toolResult":
        msg["content"] = [{"type": "text", "text": OUTPUT_OMITTED}]
        msg.pop("details", None)
    elif selection.no_tool_output and role == "bashExecution":
        msg["output"] = OUTPUT_OMITTED
        msg.pop("fullOutputPath", None)
    if isinstance(msg.get("content"), list):
        msg["content"] = _blocks(msg["content"], selection)
    return out


def _blocks(blocks: list[Any], selection: Selection) -> list[Any]:
    kept: list[Any] = []
    for b in blocks:
        kind = b.get("type") if isinstance(b, dict) else None
        if kind == "thinking" and selection.no_thinking:
            continue
        if kind == "image" and selection.no_images:
            kept.append({"type": "text", "text": IMAGE_OMITTED})
            continue
        kept.append(b)
    return kept


def sharing_notice(
    selection: Selection | None, redacted: dict[str, int] | None = None
) -> list[str]:
    """The parts of "Shared view: …" a page shows: what was left out and what was redacted."""
    parts: list[str] = []
    if selection is not None:
        if selection.only_context:
            parts.append("only what the model saw on the current branch")
        elif selection.branch == "current":
            parts.append("current branch only")
        if selection.leaf is not None:
            parts.append(f"branch ending at {selection.leaf}")
        if selection.no_thinking:
            parts.append("thinking removed")
        if selection.no_tool_output:
            parts.append("tool output removed")
        if selection.no_images:
            parts.append("images removed")
    if redacted is not None:
        total = sum(redacted.values())
        if total:
            ordered = sorted(redacted.items(), key=lambda kv: (-kv[1], kv[0]))
            rules = ", ".join(f"{name} \u00d7{n}" for name, n in ordered)
            parts.append(f"{total} secret{'s' if total != 1 else ''} redacted ({rules})")
        else:
            parts.append("secrets redaction on: none found")
    return parts
