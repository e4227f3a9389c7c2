"""Entries piexport does not know: a type no kind has (a newer pi's, an extension's), a
message of an unknown role, a message entry without a message. Each shows everything: whole
on the page and in Markdown, every value searched, its type (and role) named in ``tree``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..read.jsonutil import dumps_shown
from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import code_fence
from .base import Calls, Kind, MarkdownContext, Part, details, top_level_others, value_text
from .message import MessageKind


class UnknownType(Kind):
    """The defaults of ``Kind``: shown whole everywhere."""


class UnknownRole(MessageKind):
    """A message of a role this version does not know: shown whole; its top-level fields
    beside ``message`` are other fields, as on any message entry."""

    name = "unknown_role"
    macro = "unknown"
    whole = True

    def other_fields(self, entry: Entry) -> dict[str, Any]:
        # the page shows them again under "Other fields", as it always has
        return top_level_others(entry, self.fields)

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return f"[{(entry.message or {}).get('role')}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        role = (entry.message or {}).get("role")
        return details(f"{role} message", code_fence(dumps_shown(entry.raw), "json"))

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        values: list[str] = []  # every value but its role and time, and the entry's others
        msg = entry.message or {}
        value_text({k: v for k, v in msg.items() if k not in ("role", "timestamp")}, values)
        value_text(self.other_fields(entry), values)
        yield "custom", "", derive.join(values, "\n"), False


class NoMessage(MessageKind):
    """A ``message`` entry whose ``message`` is not an object."""

    name = "no_message"
    macro = "unknown"
    whole = True
    in_context = False  # pi reads no message from it

    def other_fields(self, entry: Entry) -> dict[str, Any]:
        return top_level_others(entry, self.fields)

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return "[message without a message]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        return UNKNOWN.markdown(entry, ctx)

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        return UNKNOWN.parts(entry, derive)


UNKNOWN = UnknownType()
UNKNOWN_ROLE = UnknownRole()
NO_MESSAGE = NoMessage()
