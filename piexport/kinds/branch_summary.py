"""A branch summary: what the branch the user left did, carried over to the new one."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import code_span, message_markdown
from .base import Calls, MarkdownContext, Part, one_line, s
from .summaries import SummaryKind, files_markdown, usage_markdown


class BranchSummary(SummaryKind):
    name = "branch_summary"
    type = "branch_summary"
    macro = "branch_summary"
    in_context = True
    fields = frozenset({"fromId", "summary", "details", "fromHook", "usage"})

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return "[branch summary]: " + one_line(str(entry.raw.get("summary") or ""))

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        raw = entry.raw
        text = message_markdown(str(raw.get("summary", "")))
        left = raw.get("fromId")
        out = ["**Branch summary:**", "", text, ""]
        if left is not None:
            out += [f"Of the branch left at entry {code_span(str(left))}.", ""]
        return out + files_markdown(raw.get("details")) + usage_markdown(raw.get("usage"))

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "summary", "", s(entry.raw.get("summary")), False


KIND = BranchSummary()
