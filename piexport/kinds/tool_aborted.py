"""A tool the user stopped (pi 1.6.0): pi's tools throw ``Operation aborted`` when the run
is aborted (Esc), and pi stores the error's message as the result, with ``isError``. It is
not the tool's failure: the page and Markdown say it was stopped, and ``tree`` marks it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..read.model import Entry, content_text
from .base import Calls
from .tool_result import ToolResult
from .tools import call_summary

ABORTED = "Operation aborted"


class ToolAborted(ToolResult):
    name = "tool_aborted"
    refines = True
    result_macro = "aborted_result"

    def matches(self, entry: Entry) -> bool:
        msg = entry.message or {}
        return msg.get("isError") is True and content_text(msg.get("content")).strip() == ABORTED

    def summary(
        self,
        entry: Entry,
        calls: Calls,
        leading: bool = False,
        tool: Callable[[Any, Any], str] = call_summary,
    ) -> str:
        return super().summary(entry, calls, leading, tool) + " (stopped)"

    def result_markdown(self, entry: Entry) -> str:
        return "\n\n_Stopped by the user before it finished (pi recorded “Operation aborted”)._"


KIND = ToolAborted()
