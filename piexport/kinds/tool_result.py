"""A tool's result: shown with the call it answers (the assistant's kind puts it there), or
on its own when no call in the file matches."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from ..read.model import Entry, content_text
from ..text.ansi import strip_ansi
from ..text.cut import Derive
from ..text.mdsafe import code_fence, inline_text
from .base import Calls, MarkdownContext, Part, RowWords, details, obj, s, usage_words, value_text
from .message import MessageKind
from .tools import call_summary, nested_text


class ToolResult(MessageKind):
    name = "tool_result"
    role = "toolResult"
    macro = "orphan_result"
    message_fields = frozenset(
        {"role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"}
        | {"usage", "nestedCalls", "durationMs"}
    )
    result_macro: ClassVar[str] = "result_body"
    """The macro that shows it inside its call on the page (``tool_result``'s body)."""

    def summary(
        self,
        entry: Entry,
        calls: Calls,
        leading: bool = False,
        tool: Callable[[Any, Any], str] = call_summary,
    ) -> str:
        """The call it answers, as ``tool`` names calls (the page's rows name paths
        relative to the session's folder)."""
        msg = entry.message or {}
        cid = msg.get("toolCallId")
        if isinstance(cid, str) and cid in calls:
            return tool(*calls[cid])
        return f"[{msg.get('toolName') or 'tool'}]"

    def row(self, entry: Entry, calls: Calls, leading: bool, words: RowWords) -> str:
        return self.summary(entry, calls, leading, words.tool)

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        if entry.id in ctx.shown:
            return []  # shown with its call
        msg = entry.message or {}
        return details(
            f"Result of {msg.get('toolName')}", code_fence(content_text(msg.get("content")))
        )

    def result_markdown(self, entry: Entry) -> str:
        """What follows its call's arguments in Markdown."""
        msg = entry.message or {}
        error = " (error)" if msg.get("isError") is True else ""
        body = f"\n\nResult{error}:\n\n" + code_fence(content_text(msg.get("content")))
        nested = nested_text(msg.get("nestedCalls"))
        if nested:
            body += "\n\nNested calls:\n\n" + code_fence(nested)
        diff = obj(msg.get("details")).get("diff")
        if isinstance(diff, str) and diff:
            body += "\n\nDiff:\n\n" + code_fence(diff)
        if usage_words(msg.get("usage")):
            body += f"\n\n_Model work done by this tool: {inline_text(usage_words(msg['usage']))}_"
        return body

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        """A tool's output, and the calls it made to other tools while it ran (pi 1.5)."""
        msg: Mapping[str, Any] = entry.message or {}
        yield (
            "output",
            s(msg.get("toolName")),
            strip_ansi(content_text(msg.get("content"), "\n\n", derive)),
            msg.get("isError") is True,
        )
        nested = msg.get("nestedCalls")
        done = nested.get("calls") if isinstance(nested, Mapping) else None
        if isinstance(done, list) and done:  # calls the tool made to other tools
            names, texts = [], []
            for c in done:
                if isinstance(c, Mapping):
                    names.append(s(c.get("name")))
                    parts = [s(c.get("name"))]
                    value_text(c.get("arguments"), parts)
                    parts.append(s(c.get("error")))
                    texts.append(derive.join(filter(None, parts), "\n"))
            names_seen = derive.join(dict.fromkeys(filter(None, names)), " ")
            failed = any(isinstance(c, Mapping) and c.get("status") == "error" for c in done)
            yield "tool", names_seen, derive.join(texts, "\n\n"), failed


KIND = ToolResult()
