"""An extension's own state (``custom``): never sent to the model."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.jsonutil import dumps_shown
from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import code_fence
from .base import Calls, Kind, MarkdownContext, Part, details


class Custom(Kind):
    name = "custom"
    type = "custom"
    macro = "custom_state"
    fields = frozenset({"customType", "data"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return f"[custom: {entry.raw.get('customType')}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        return details(
            f"Extension state: {entry.raw.get('customType')} (never sent to the model)",
            code_fence(dumps_shown(entry.raw.get("data")), "json"),
        )

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        return iter(())  # state, not words: its data is shown, not searched


KIND = Custom()
