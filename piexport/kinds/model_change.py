"""The user picked another model."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import inline_text
from .base import Calls, Kind, MarkdownContext, Part


class ModelChange(Kind):
    name = "model_change"
    type = "model_change"
    macro = "model_change"
    fields = frozenset({"provider", "modelId"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return f"[model: {entry.raw.get('modelId')}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        model = f"{entry.raw.get('provider')}/{entry.raw.get('modelId')}"
        return [f"_Model: {inline_text(model)}_", ""]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        return iter(())  # search gives it to the records after it, as their model


KIND = ModelChange()
