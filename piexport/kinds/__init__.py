"""Entry kinds: one module per kind of entry owns what piexport knows of it.

A kind (``base.Kind``) says which fields it shows in its own way (the rest are "Other
fields", never lost), its one line for ``tree`` and the navigator, its Markdown, its search
parts and the name of its Jinja macro (``templates/macros/entries.html.j2``). The outputs
look an entry's kind up (``kind_of``) instead of switching on its type; an entry of a type
or role no kind knows shows everything in every output.

To add a kind: a module here with a ``Kind`` subclass, its place in ``registry.KINDS``,
its macro, and a fixture folder in ``tests/kinds/fixtures`` (see its README).
"""

from __future__ import annotations

from typing import Any

from ..read.model import Entry
from .base import QUIET_FIELDS, Calls, Kind, MarkdownContext, Part
from .registry import BY_NAME, ENTRY_TYPES, KINDS, kind_of


def other_fields(entry: Entry) -> dict[str, Any]:
    """The fields of an entry no output shows in its own way (a newer pi's, an extension's),
    by where they sit (``message.x``, ``message.content[2].y``), so they can be shown raw
    instead of dropped; none when they are all quiet (``QUIET_FIELDS``). Entries no kind
    knows are shown raw whole and have none."""
    out = kind_of(entry).other_fields(entry)
    return out if out.keys() - QUIET_FIELDS else {}


__all__ = [
    "BY_NAME",
    "ENTRY_TYPES",
    "KINDS",
    "QUIET_FIELDS",
    "Calls",
    "Kind",
    "MarkdownContext",
    "Part",
    "kind_of",
    "other_fields",
]
