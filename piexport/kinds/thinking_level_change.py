"""The user changed the thinking level."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import inline_text
from .base import Calls, Kind, MarkdownContext, Part


class ThinkingLevelChange(Kind):
    name = "thinking_level_change"
    type = "thinking_level_change"
    macro = "thinking_level_change"
    fields = frozenset({"thinkingLevel"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return f"[thinking: {entry.raw.get('thinkingLevel')}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        return [f"_Thinking level: {inline_text(str(entry.raw.get('thinkingLevel')))}_", ""]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        return iter(())  # a level, not words


KIND = ThinkingLevelChange()
