"""Version migrations, in memory only: v1 → v2 → v3, as pi's session manager does them.

pi migrates and then rewrites the file; piexport never writes to its input. The objects
passed in are freshly parsed and owned by the loader, so they are changed in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from .jsonutil import finite_number
from .model import JSON

CURRENT_VERSION = 3


def v1_entry_id(line: int) -> str:
    """Deterministic id for a version-1 entry, so the same file always gives the same page.

    pi draws random ids; piexport derives them from the line number (8 hex digits, the
    shape pi's own ids have).
    """
    return f"{line:08x}"


def migrate_v1_to_v2(objects: Sequence[JSON], lines: Sequence[int]) -> None:
    """Give every entry an id and chain it to the previous one.

    ``objects`` are all parsed objects in file order, header(s) included, because a v1
    compaction's ``firstKeptEntryIndex`` indexes exactly that list (the header is 0).
    """
    prev: str | None = None
    last_line, part = 0, 1
    for obj, line in zip(objects, lines, strict=True):
        # records glued on one line count as if the newline were there; the second and
        # later ones get ``-2``, ``-3``… after the line's id
        part = part + 1 if line == last_line else 1
        last_line = line
        if obj.get("type") == "session":
            continue
        obj["id"] = v1_entry_id(line) if part == 1 else f"{v1_entry_id(line)}-{part}"
        obj["parentId"] = prev
        prev = obj["id"]
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
            index = obj.pop("firstKeptEntryIndex")
            # pi reads entries[index]: only an entry already given an id resolves
            # (a later one still has none, the header is never a target).
            index = finite_number(index)
            if index is not None and index == int(index) and 0 <= index < len(objects):
                target = objects[int(index)]
                if target.get("type") != "session" and isinstance(target.get("id"), str):
                    obj["firstKeptEntryId"] = target["id"]


def migrate_v2_to_v3(objects: Sequence[JSON]) -> None:
    """The ``hookMessage`` role became ``custom`` when hooks became extensions."""
    for obj in objects:
        if obj.get("type") == "message":
            msg = obj.get("message")
            if isinstance(msg, dict) and msg.get("role") == "hookMessage":
                msg["role"] = "custom"


def migrate(objects: Sequence[JSON], lines: Sequence[int], version: int) -> bool:
    """Bring ``objects`` to the current version; True when anything was migrated."""
    if version >= CURRENT_VERSION:
        return False
    if version < 2:
        migrate_v1_to_v2(objects, lines)
    migrate_v2_to_v3(objects)
    return True
