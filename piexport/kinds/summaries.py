"""What compactions and branch summaries share: the files their ``details`` list."""

from __future__ import annotations

from typing import Any

from ..read.model import Entry
from ..text.mdsafe import code_span, inline_text
from .base import Kind, usage_words

FILE_LISTS = (("readFiles", "Files read"), ("modifiedFiles", "Files modified"))


class SummaryKind(Kind):
    """An entry with a ``summary`` and ``details`` that usually list files; other details
    (an extension's) are shown as other fields."""

    whole = False

    def other_fields(self, entry: Entry) -> dict[str, Any]:
        out = super().other_fields(entry)
        d = entry.raw.get("details")
        files_only = isinstance(d, dict) and d.keys() <= {key for key, _ in FILE_LISTS}
        if d is not None and not files_only:
            out["details"] = d
        return out


def usage_markdown(u: Any) -> list[str]:
    """What writing the summary cost, when pi recorded it."""
    words = usage_words(u)
    return [f"_Writing this summary: {inline_text(words)}_", ""] if words else []


def files_markdown(d: Any) -> list[str]:
    """The files a summary's ``details`` lists, one line per list."""
    out: list[str] = []
    for key, label in FILE_LISTS if isinstance(d, dict) else ():
        files = d.get(key)
        if isinstance(files, list) and files:
            out += [f"{label}: " + ", ".join(code_span(str(f)) for f in files), ""]
    return out
