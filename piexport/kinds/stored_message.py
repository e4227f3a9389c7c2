"""Messages pi makes when it builds a context and a file stores anyway (``custom``, what a
``custom_message`` or a version 2 ``hookMessage`` becomes; ``branchSummary``;
``compactionSummary``): shown like any message, whole in Markdown."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.jsonutil import dumps_shown
from ..read.model import Entry, content_text
from ..text.cut import Derive
from ..text.mdsafe import code_fence
from .base import Calls, MarkdownContext, Part, details, s
from .message import MessageKind


class StoredMessage(MessageKind):
    """The three share their Markdown (the entry whole) and summary (``[role]``)."""

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return f"[{self.role}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        return details(f"{self.role} message", code_fence(dumps_shown(entry.raw), "json"))


class CustomRole(StoredMessage):
    name = "custom_role"
    role = "custom"
    macro = "custom_role_message"
    message_fields = frozenset({"role", "customType", "content", "display", "details"})
    message_fields |= {"timestamp"}

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        content = (entry.message or {}).get("content")
        yield "custom", "", content_text(content, "\n\n", derive), False


class BranchSummaryRole(StoredMessage):
    name = "branch_summary_role"
    role = "branchSummary"
    macro = "branch_summary_message"
    message_fields = frozenset({"role", "summary", "fromId", "timestamp"})

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "summary", "", s((entry.message or {}).get("summary")), False


class CompactionSummaryRole(StoredMessage):
    name = "compaction_summary_role"
    role = "compactionSummary"
    macro = "compaction_summary_message"
    message_fields = frozenset({"role", "summary", "tokensBefore", "timestamp"})

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "summary", "", s((entry.message or {}).get("summary")), False


KINDS = (CustomRole(), BranchSummaryRole(), CompactionSummaryRole())
