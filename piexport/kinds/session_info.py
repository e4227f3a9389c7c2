"""The session's name, set or cleared."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import code_span
from .base import Calls, Kind, MarkdownContext, Part, s


class SessionInfo(Kind):
    name = "session_info"
    type = "session_info"
    macro = "session_info"
    fields = frozenset({"name"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return f"[title: {entry.raw.get('name') or 'empty'}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        name = entry.raw.get("name")
        return [f"_Session named {code_span(str(name))}_" if name else "_Session name cleared_", ""]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "name", "", s(entry.raw.get("name")), False


KIND = SessionInfo()
