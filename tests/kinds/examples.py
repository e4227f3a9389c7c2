"""One example of each entry kind, with a unique marker in each of its distinctive fields:
what tests/kinds/test_every_output.py sends through every output.

An example is the entries that lead to it (a tool call before its result…) and then the
entry of the kind, last; ``m(label)`` makes a marker unique to the kind and the label.
The marker ``m("head")`` is in the field the kind's one line (``tree``) shows, when it shows
session words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Marker = Callable[[str], str]
Example = Callable[[Marker], list[dict[str, Any]]]


def _msg(role: str, **fields: Any) -> dict[str, Any]:
    return {"type": "message", "message": {"role": role, "timestamp": 1735725600000, **fields}}


def _call(m: Marker) -> dict[str, Any]:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": m("head")}}
    return _msg("assistant", content=[call], provider="p", model="x", stopReason="toolUse")


def _system(m: Marker) -> dict[str, Any]:
    return {
        "role": "system",
        "content": [{"type": "text", "text": m("prompt")}],
        "sections": {"rules": m("section")},
        "toolsAdded": [{"name": "bash", "description": "Runs a command.", "parameters": {}}],
    }


EXAMPLES: dict[str, Example] = {
    "user": lambda m: [_msg("user", content=[{"type": "text", "text": m("head")}])],
    "assistant": lambda m: [
        _msg(
            "assistant",
            content=[
                {"type": "text", "text": m("head")},
                {"type": "thinking", "thinking": m("thinking")},
            ],
            provider="p",
            model="x",
            stopReason="stop",
        )
    ],
    "tool_result": lambda m: [
        _call(m),
        _msg(
            "toolResult",
            toolCallId="c1",
            toolName="bash",
            content=[{"type": "text", "text": m("output")}],
            isError=False,
        ),
    ],
    "tool_aborted": lambda m: [
        _call(m),
        _msg(
            "toolResult",
            toolCallId="c1",
            toolName="bash",
            content=[{"type": "text", "text": "Operation aborted"}],
            isError=True,
        ),
    ],
    "bash_execution": lambda m: [
        _msg("bashExecution", command=m("head"), output=m("output"), exitCode=0)
    ],
    "system": lambda m: [_msg("system") | {"message": _system(m)}],
    "custom_role": lambda m: [
        _msg("custom", customType="ext", content=m("head"), display=True, details={"d": m("d")})
    ],
    "branch_summary_role": lambda m: [_msg("branchSummary", summary=m("head"), fromId="e0")],
    "compaction_summary_role": lambda m: [
        _msg("compactionSummary", summary=m("head"), tokensBefore=1000)
    ],
    "compaction": lambda m: [
        {
            "type": "compaction",
            "summary": m("head"),
            "firstKeptEntryId": "e0",
            "tokensBefore": 5000,
            "details": {"readFiles": [m("read")], "modifiedFiles": [m("modified")]},
        }
    ],
    "branch_summary": lambda m: [
        {
            "type": "branch_summary",
            "fromId": "e0",
            "summary": m("head"),
            "details": {"readFiles": [m("read")]},
        }
    ],
    "custom": lambda m: [
        {"type": "custom", "customType": m("head"), "data": {"state": [m("data")]}}
    ],
    "custom_message": lambda m: [
        {
            "type": "custom_message",
            "customType": "ext",
            "content": [{"type": "text", "text": m("head")}],
            "display": True,
            "details": {"kept": m("details")},
        }
    ],
    "model_change": lambda m: [
        {"type": "model_change", "provider": m("provider"), "modelId": m("head")}
    ],
    "thinking_level_change": lambda m: [
        {"type": "thinking_level_change", "thinkingLevel": m("head")}
    ],
    "label": lambda m: [{"type": "label", "targetId": "e0", "label": m("head")}],
    "session_info": lambda m: [{"type": "session_info", "name": m("head")}],
    "context_edit": lambda m: [
        {
            "type": "context_edit",
            "targetId": "e0",
            "replacement": {"content": [{"type": "text", "text": m("replacement")}]},
        }
    ],
    "usage": lambda m: [
        {
            "type": "usage",
            "kind": m("head"),
            "provider": "p",
            "model": m("model"),
            "usage": {"input": 10, "output": 2, "cost": {"total": 0.01}},
            "note": m("note"),
        }
    ],
    # entries no kind knows: everything shows everywhere
    "unknown": lambda m: [
        {"type": m("head"), "said": m("top"), "nested": {"deeper": [{"words": m("nested")}]}}
    ],
    "unknown_role": lambda m: [
        _msg(m("head"), content=m("content"), nested={"deeper": [m("nested")]})
    ],
    "no_message": lambda m: [{"type": "message", "message": [m("head"), {"x": m("nested")}]}],
}
