"""A bookmark set on (or cleared from) another entry."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import code_span
from .base import Calls, Kind, MarkdownContext, Part, s


class Label(Kind):
    name = "label"
    type = "label"
    macro = "label"
    fields = frozenset({"targetId", "label"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        label = entry.raw.get("label")
        return f"[label: {label if label else '(cleared)'}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        label, target = entry.raw.get("label"), str(entry.raw.get("targetId"))
        if label:
            return [f"_Label {code_span(str(label))} set on entry {code_span(target)}_", ""]
        return [f"_Label cleared on entry {code_span(target)}_", ""]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "label", "", s(entry.raw.get("label")), False


KIND = Label()
