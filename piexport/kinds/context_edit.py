"""A context edit (pi 1.5): a later change to what the model sees of an earlier entry."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..read.model import Entry, content_text
from ..text.cut import Derive
from ..text.mdsafe import code_fence, inline_text
from .base import Calls, Kind, MarkdownContext, Part, details


class ContextEdit(Kind):
    name = "context_edit"
    type = "context_edit"
    macro = "context_edit"
    in_context = True
    fields = frozenset({"targetId", "replacement"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        what = "omit" if entry.raw.get("replacement") is None else "replace"
        return f"[context {what}: {entry.raw.get('targetId')}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        target = entry.raw.get("targetId")
        rep = entry.raw.get("replacement")
        if rep is None:
            return [
                f"_Context edit: entry {inline_text(str(target))} removed from the model's "
                "context_",
                "",
            ]
        text = content_text(rep.get("content")) if isinstance(rep, dict) else ""
        return details(
            f"Context edit: what the model saw instead of entry {target}", code_fence(text)
        )

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        """What the model saw instead of an earlier entry."""
        rep = entry.raw.get("replacement")
        text = content_text(rep.get("content"), "\n\n", derive) if isinstance(rep, Mapping) else ""
        yield "custom", "", text, False


KIND = ContextEdit()
