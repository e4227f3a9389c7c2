"""Every entry kind, and which one an entry is: the one place a new kind is added.

``kind_of`` looks an entry up by its type (and a message's role), then asks the kinds that
refine that one (``Kind.refines``) whether the entry is theirs. An entry no kind knows gets
one that shows everything (``unknown.py``).
"""

from __future__ import annotations

from ..read.model import Entry
from . import (
    assistant,
    bash_execution,
    branch_summary,
    compaction,
    context_edit,
    custom,
    custom_message,
    label,
    model_change,
    session_info,
    stored_message,
    system,
    thinking_level_change,
    tool_aborted,
    tool_result,
    usage,
    user,
)
from .base import Kind
from .unknown import NO_MESSAGE, UNKNOWN, UNKNOWN_ROLE

KINDS: tuple[Kind, ...] = (
    user.KIND,
    assistant.KIND,
    tool_result.KIND,
    tool_aborted.KIND,
    bash_execution.KIND,
    system.KIND,
    *stored_message.KINDS,
    compaction.KIND,
    branch_summary.KIND,
    custom.KIND,
    custom_message.KIND,
    model_change.KIND,
    thinking_level_change.KIND,
    label.KIND,
    session_info.KIND,
    context_edit.KIND,
    usage.KIND,
)
"""Every kind of entry piexport knows, each once. A kind that ``refines`` another comes
with it: it is asked first."""

SHOWS_EVERYTHING: tuple[Kind, ...] = (UNKNOWN, UNKNOWN_ROLE, NO_MESSAGE)
"""The kinds of entries no kind knows."""

BY_NAME: dict[str, Kind] = {k.name: k for k in (*KINDS, *SHOWS_EVERYTHING)}

_BASE: dict[tuple[str | None, str | None], Kind] = {
    (k.type, k.role): k for k in KINDS if not k.refines
}
_REFINED: dict[tuple[str | None, str | None], tuple[Kind, ...]] = {}
for _k in KINDS:
    if _k.refines:
        _REFINED[_k.type, _k.role] = (*_REFINED.get((_k.type, _k.role), ()), _k)

ENTRY_TYPES = frozenset(k.type for k in KINDS if k.type is not None)
"""The entry types some kind knows."""


def kind_of(entry: Entry) -> Kind:
    """The kind of one entry."""
    t = entry.type
    if t == "message":
        msg = entry.message
        if msg is None:
            return NO_MESSAGE
        role = msg.get("role")
        key = (t, role if isinstance(role, str) else None)
        found = _BASE.get(key, UNKNOWN_ROLE)
    else:
        key = (t, None)
        found = _BASE.get(key, UNKNOWN)
    for refined in _REFINED.get(key, ()):
        if refined.matches(entry):
            return refined
    return found
