"""An assistant message: the model's words, its thinking, its tool calls (with their
results), and how its turn ended."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..read.jsonutil import dumps_shown, finite_number
from ..read.model import JSON, Entry, content_text
from ..text.cut import Derive
from ..text.mdsafe import code_fence, code_span, inline_text, message_markdown
from .base import (
    Calls,
    MarkdownContext,
    Part,
    RowWords,
    details,
    obj,
    one_line,
    s,
    usage_words,
    value_text,
)
from .message import MessageKind
from .tool_result import ToolResult
from .tools import call_summary


class Assistant(MessageKind):
    name = "assistant"
    role = "assistant"
    macro = "assistant"
    message_fields = frozenset(
        {"role", "content", "api", "provider", "model", "usage", "stopReason", "errorMessage"}
        | {"timestamp"}
        # pi 1.5
        | {"responseModel", "thinkingLevel", "providerThinkingLevel", "durationMs"}
        | {"diagnostics", "deferred"}
    )

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        msg = entry.message or {}
        text = one_line(content_text(msg.get("content")))
        if text:
            return "assistant: " + text
        content = msg.get("content")
        tools = [
            call_summary(b.get("name"), b.get("arguments"))
            for b in (content if isinstance(content, list) else ())
            if isinstance(b, dict) and b.get("type") == "toolCall"
        ]
        if tools:
            return "assistant: " + " ".join(tools)
        if msg.get("stopReason") == "aborted":
            return "assistant: (aborted)"
        if msg.get("errorMessage"):
            return "assistant: " + one_line(str(msg["errorMessage"]), 80)
        return "assistant: (no content)"

    def row(self, entry: Entry, calls: Calls, leading: bool, words: RowWords) -> str:
        """Its words, else its calls, each named as rows name calls."""
        msg = entry.message or {}
        content = msg.get("content")
        text = content_text(content)
        if not one_line(text):
            tools = [
                words.tool(b.get("name"), b.get("arguments"))
                for b in (content if isinstance(content, list) else ())
                if isinstance(b, dict) and b.get("type") == "toolCall"
            ]
            if tools:
                return "assistant: " + " ".join(tools)
        said = one_line(words.said(text))
        return f"assistant: {said}" if said else self.summary(entry, calls, leading)

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        msg = entry.message or {}
        content = msg.get("content")
        out = ["### Assistant", ""]
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                out += [message_markdown(str(block.get("text", ""))), ""]
            elif block.get("type") == "thinking" and block.get("thinking"):
                what = (
                    "Thinking (marked redacted by the provider)"
                    if block.get("redacted")
                    else "Thinking"
                )
                out += details(what, code_fence(str(block["thinking"])))
            elif block.get("type") == "toolCall":
                cid = block.get("id")
                found = ctx.results.get((entry.id, cid)) if isinstance(cid, str) else None
                out += _call_markdown(block, found, ctx)
        return out + _ending(msg) + _turn_line(msg)

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        """What it said (with its error), its thinking, and its tool calls."""
        msg: Mapping[str, Any] = entry.message or {}
        content = msg.get("content")
        failed = msg.get("stopReason") in ("error", "aborted")
        texts, thinking, calls = [], [], []
        tools: list[str] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, Mapping):
                continue
            t = block.get("type")
            if t == "text":
                texts.append(s(block.get("text")))
            elif t == "thinking":
                thinking.append(s(block.get("thinking")))
            elif t == "toolCall":
                name = s(block.get("name"))
                tools.append(name)
                parts = [name]
                value_text(block.get("arguments"), parts)
                calls.append(derive.join(parts, "\n"))
        if isinstance(content, str):
            texts.append(content)
        error = s(msg.get("errorMessage"))
        if texts or error or failed:
            said = derive.join([*texts, error] if error else texts, "\n\n").strip("\n")
            yield "assistant", "", said, failed
        if thinking:
            yield "thinking", "", derive.join(thinking, "\n\n"), False
        if calls:
            tool_names = derive.join(dict.fromkeys(tools), " ")
            yield "tool", tool_names, derive.join(calls, "\n\n"), False


def _call_markdown(block: JSON, result: Entry | None, ctx: MarkdownContext) -> list[str]:
    """A tool call in Markdown: its arguments, then its result (by the result's kind)."""
    name, args = block.get("name"), block.get("arguments")
    if name == "bash" and isinstance(args, dict):
        call = str(args.get("command", ""))
    else:
        call = dumps_shown(args)
    body = code_fence(call, "bash" if name == "bash" and isinstance(args, dict) else "json")
    if block.get("argumentsError"):
        error = str(block["argumentsError"])
        body += "\n\nThe model's arguments were not valid JSON:\n\n" + code_fence(error)
    if block.get("partialJson"):
        partial = str(block["partialJson"])
        body += "\n\nArguments as far as they were streamed:\n\n" + code_fence(partial, "json")
    kind = ctx.kind_of(result) if result is not None and result.message is not None else None
    if result is not None and isinstance(kind, ToolResult):
        body += kind.result_markdown(result)
    else:
        body += "\n\n_No result recorded._"
    return details(call_summary(name, args), body)


def _turn_line(msg: JSON) -> list[str]:
    """The model, the one that answered when a router chose another, the thinking level asked
    for, tokens, cost and time, on one line; its diagnostics (retries, fallbacks) folded."""
    words = [f"{msg.get('provider') or '?'}/{msg.get('model') or '?'}"]
    answered = msg.get("responseModel")
    if isinstance(answered, str) and answered and answered != msg.get("model"):
        words.append(f"answered by {answered}")
    if isinstance(msg.get("thinkingLevel"), str):
        words.append(f"thinking {msg['thinkingLevel']}")
    if usage_words(msg.get("usage")):
        words.append(usage_words(msg.get("usage")))
    if finite_number(msg.get("durationMs")) is not None:
        words.append(f"took {msg['durationMs']} ms")
    out = [f"_{inline_text(' · '.join(words))}_", ""]
    ds = msg.get("diagnostics")
    if ds is not None:
        n = len(ds) if isinstance(ds, list) else 1
        out += details(f"Diagnostics ({n})", code_fence(dumps_shown(ds), "json"))
    return out


def _ending(msg: JSON) -> list[str]:
    """How the turn ended, when not plainly: deferred, cut off, failed, its error."""
    out: list[str] = []
    stop = msg.get("stopReason")
    if stop == "deferred":
        handle = obj(msg.get("deferred"))
        out += [
            "**Deferred**: the provider answers this request later"
            + (f" (handle {code_span(str(handle['id']))})" if handle.get("id") else "")
            + ".",
            "",
            code_fence(dumps_shown(handle), "json"),
            "",
        ]
    if stop == "length":
        out += ["**Stopped: length** (cut off by the output length limit)", ""]
    elif stop in ("error", "aborted"):
        out += [f"**Stopped: {stop}**", ""]
    if msg.get("errorMessage"):
        out += [code_fence(str(msg["errorMessage"])), ""]
    return out


KIND = Assistant()
