"""A user message: what the user typed (text and images; a skill pi sent folded)."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry, content_text
from ..text.cut import Derive
from ..text.mdsafe import message_markdown
from .base import Calls, MarkdownContext, Part, one_line
from .message import MessageKind


class User(MessageKind):
    name = "user"
    role = "user"
    macro = "user"

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return "user: " + one_line(content_text((entry.message or {}).get("content")))

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        text = content_text((entry.message or {}).get("content"))
        return ["### User", "", message_markdown(text) or "(no text)", ""]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "user", "", content_text((entry.message or {}).get("content"), "\n\n", derive), False


KIND = User()
