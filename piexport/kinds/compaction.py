"""A compaction: older history summarised; the model kept the summary and the entries from
``firstKeptEntryId`` on."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..read.jsonutil import finite_number
from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import code_span, inline_text, message_markdown
from ..text.numbers import tokens as tokens_text
from .base import Calls, MarkdownContext, Part, s
from .summaries import SummaryKind, files_markdown, usage_markdown
from .system import system_markdown, system_text


class Compaction(SummaryKind):
    name = "compaction"
    type = "compaction"
    macro = "compaction"
    in_context = True
    fields = frozenset(
        {"summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook", "systemMessage"}
        | {"usage"}
    )

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        tokens = entry.raw.get("tokensBefore")
        n = finite_number(tokens)
        if n is not None:
            return f"[compaction: {tokens_text(n)} tokens]"  # as the card says it
        if isinstance(tokens, (int, float)) and not isinstance(tokens, bool):
            return f"[compaction: {tokens} tokens]"
        return "[compaction: ?k tokens]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        raw = entry.raw
        system = raw.get("systemMessage")
        return [
            "---",
            "",
            f"**Compaction** (context was {inline_text(str(raw.get('tokensBefore')))} tokens):",
            "",
            message_markdown(str(raw.get("summary", ""))),
            "",
            *_kept(raw.get("firstKeptEntryId")),
            *files_markdown(raw.get("details")),
            *usage_markdown(raw.get("usage")),
            *(system_markdown(system, True) if isinstance(system, dict) else []),
            "---",
            "",
        ]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        raw = entry.raw
        yield "summary", "", s(raw.get("summary")), False
        if isinstance(raw.get("systemMessage"), Mapping):
            yield "system", "", system_text(raw["systemMessage"], derive), False


def _kept(first: object) -> list[str]:
    if first is None:
        return []
    return [f"The model kept the entries from {code_span(str(first))} on.", ""]


KIND = Compaction()
