"""Text an extension put into the conversation (``custom_message``): sent to the model even
when pi does not show it."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.jsonutil import dumps_shown
from ..read.model import Entry, content_text
from ..text.cut import Derive
from ..text.mdsafe import code_fence
from .base import Calls, Kind, MarkdownContext, Part, details, one_line, s


class CustomMessage(Kind):
    name = "custom_message"
    type = "custom_message"
    macro = "custom_message"
    in_context = True
    fields = frozenset({"customType", "content", "display", "details"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        raw = entry.raw
        return f"[{raw.get('customType')}]: " + one_line(content_text(raw.get("content")))

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        raw = entry.raw
        out = details(
            f"Extension message: {raw.get('customType')}",
            code_fence(content_text(raw.get("content"))),
        )
        if raw.get("details") is not None:
            out += details(
                "Details (kept for the extension, not sent to the model)",
                code_fence(dumps_shown(raw.get("details")), "json"),
            )
        return out

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        raw = entry.raw
        text = content_text(raw.get("content"), "\n\n", derive)
        said = derive.join(filter(None, [s(raw.get("customType")), text]), "\n")
        yield "custom", "", said, False


KIND = CustomMessage()
