"""A user message: what the user typed (text and images; a skill pi sent folded)."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry, content_text, skill_block
from ..text.cut import Derive
from ..text.mdsafe import message_markdown
from .base import Calls, MarkdownContext, Part, RowWords, one_line
from .message import MessageKind


class User(MessageKind):
    name = "user"
    role = "user"
    macro = "user"

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return "user: " + one_line(content_text((entry.message or {}).get("content")))

    def row(self, entry: Entry, calls: Calls, leading: bool, words: RowWords) -> str:
        """Its words; a skill as pi's tree shows it: its name, then the user's words."""
        text = content_text((entry.message or {}).get("content"))
        skill = skill_block(text.lstrip("\n"))
        if skill is not None:
            rest = one_line(words.said(skill.rest))
            return f"user: [skill] {one_line(skill.name)}" + (f" · {rest}" if rest else "")
        said = one_line(words.said(text))
        return f"user: {said}" if said else self.summary(entry, calls, leading)

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        text = content_text((entry.message or {}).get("content"))
        return ["### User", "", message_markdown(text) or "(no text)", ""]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "user", "", content_text((entry.message or {}).get("content"), "\n\n", derive), False


KIND = User()
