"""A usage entry (pi 1.5): model work that is not a turn, such as warming the prompt cache."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry
from ..text.cut import Derive
from ..text.mdsafe import inline_text
from .base import Calls, Kind, MarkdownContext, Part, obj, s


class Usage(Kind):
    name = "usage"
    type = "usage"
    macro = "usage_entry"
    fields = frozenset({"kind", "provider", "model", "usage", "note"})
    whole = False

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return f"[usage: {entry.raw.get('kind')}]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        raw = entry.raw
        u = obj(raw.get("usage"))
        cost = obj(u.get("cost"))
        model = f"{raw.get('provider')}/{raw.get('model')}"
        figures = ", ".join(
            f"{k} {u[k]}" for k in ("input", "output", "cacheRead", "cacheWrite") if u.get(k)
        )
        line = f"Usage ({raw.get('kind')}): {model}; {figures or 'no tokens'}"
        if isinstance(cost.get("total"), int | float) and cost["total"]:
            line += f"; ${cost['total']:.4f}"
        if raw.get("note"):
            line += f"; {raw.get('note')}"
        return [f"_{inline_text(line)}_", ""]

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        raw = entry.raw
        what = [
            s(raw.get("kind")),
            derive.join(filter(None, [s(raw.get("provider")), s(raw.get("model"))]), "/"),
        ]
        yield "other", "", derive.join(filter(None, [*what, s(raw.get("note"))]), "\n"), False


KIND = Usage()
