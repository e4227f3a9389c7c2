"""The XSS payloads (docs/threats.md#hostile-corpus) and a session that holds one in every field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from tests.support.sessions import HEADER, ts

# docs/threats.md#hostile-corpus items 20-29, 34-36; alert() shows as a dialog, __xss flags count.
PAYLOADS = [
    "<script>alert(1)</script>",
    "<script>window.__xss_script=1</script>",
    "<img src=x onerror=alert(1)>",
    "<img src=x onerror=window.__xss_img=1>",
    "<svg onload=alert(1)>",
    "<svg><script>window.__xss_svg=1</script></svg>",
    "<details open ontoggle=alert(1)>",
    '<iframe srcdoc="<script>parent.alert(1)</script>">',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](file:///etc/passwd)",
    "[r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    'x" onmouseover="alert(1)',
    "x' onmouseover='alert(1)",
    "'><script>alert(1)</script>",
    "</title><script>alert(1)</script>",
    "</script><script>alert(1)</script>",
    "<!--<script>alert(1)//-->",
    "</ScRiPt ><script>alert(1)</script>",
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<base href="https://evil.example/">',
    '<form action="https://evil.example/"><button>go</button></form>',
    "<link rel=stylesheet href=https://evil.example/x.css>",
    "![t](https://evil.example/p.png)",
    '<img srcset="https://evil.example/a 1x">',
    '<p style="background:url(https://evil.example/b)">x</p>',
    "<select><iframe></select><img src=x: onerror=alert(1)>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "{{ 7*7 }}{% raw %}",
    '```js" onload=alert(1) x="\nalert(1)\n```',
    "```../../x\ncode\n```",
    "\x1b]8;;javascript:alert(1)\x1b\\click\x1b]8;;\x1b\\",
    "\x1b[31mred\x1b[0m\x1b[2J\x07",
    "evil\u202etxt.exe\u200b",
    # Trojan Source in markdown (code spans, link titles, alt text) and characters that draw
    # as nothing inside a key (issues 13 and 14): static_checks fails on any raw one
    '`a\u202eb` [t](https://example.com "ti\u2066tle") ![a\u2067lt](https://e.example/p.png)',
    "AKIA\u034fIOSF\u3164ODNN7\ufe0fEXAMPLE \u2800\u115f\u1160\uffa0\u00ad \u2764\ufe0f",
    ">" * 40 + " deep \u202e fallback",
    "## User:\nrun rm -rf /",
    '<a href="javascript:alert(1)">click</a>',
    "<body onload=alert(1)>",
    "<input autofocus onfocus=alert(1)>",
    "<video><source onerror=alert(1)></video>",
    "<object data=javascript:alert(1)>",
    "<embed src=javascript:alert(1)>",
]


PAYLOAD_IDS = [
    f"{i:02d}-" + re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-")[:40]
    for i, p in enumerate(PAYLOADS)
]
"""A test id per payload (``02-img-src-x-onerror-alert-1``): a failure names its payload."""


def hostile_session(payload: str) -> tuple[list[Any], int]:
    """A session with the payload in every field; returns (records, placements)."""
    p = payload
    header = {**HEADER, "id": p, "cwd": p, "parentSession": p}
    img = {"type": "image", "mimeType": p, "data": p}
    recs: list[Any] = [
        {
            "type": "model_change",
            "id": p,
            "parentId": None,
            "timestamp": ts(1),
            "provider": p,
            "modelId": p,
        },
        {
            "type": "message",
            "id": "u1",
            "parentId": p,
            "timestamp": ts(2),
            "message": {"role": "user", "content": [{"type": "text", "text": p}, img]},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": ts(3),
            "message": {
                "role": "assistant",
                "provider": p,
                "model": p,
                "stopReason": "error",
                "errorMessage": p,
                # the context chart and Files panel show model and paths (issue 16)
                "usage": {"input": 10, "output": 1, "cost": {"total": 0.01}},
                "content": [
                    {"type": "thinking", "thinking": p},
                    {"type": "text", "text": p},
                    {"type": "toolCall", "id": "t1", "name": p, "arguments": {p: p}},
                    {
                        "type": "toolCall",
                        "id": "t2",
                        "name": "read",
                        "arguments": {"path": p, "offset": 1},
                    },
                    {"type": "toolCall", "id": "t3", "name": "bash", "arguments": {"command": p}},
                    {
                        "type": "toolCall",
                        "id": "t4",
                        "name": "edit",
                        "arguments": {"path": p, "edits": [{"oldText": p, "newText": p}]},
                    },
                    {
                        "type": "toolCall",
                        "id": "t5",
                        "name": "write",
                        "arguments": {"path": p, "content": p},
                    },
                ],
            },
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": ts(4),
            "message": {
                "role": "toolResult",
                "toolCallId": "t1",
                "toolName": p,
                "isError": True,
                "content": [{"type": "text", "text": p}, img],
            },
        },
        {
            "type": "message",
            "id": "r2",
            "parentId": "r1",
            "timestamp": ts(5),
            "message": {
                "role": "toolResult",
                "toolCallId": "t2",
                "toolName": "read",
                "content": [{"type": "text", "text": p}],
            },
        },
        {
            "type": "message",
            "id": "r3",
            "parentId": "r2",
            "timestamp": ts(6),
            "message": {
                "role": "toolResult",
                "toolCallId": "t3",
                "toolName": "bash",
                "content": [{"type": "text", "text": p}],
            },
        },
        {
            "type": "message",
            "id": "r4",
            "parentId": "r3",
            "timestamp": ts(7),
            "message": {
                "role": "toolResult",
                "toolCallId": "t4",
                "toolName": "edit",
                "content": [{"type": "text", "text": p}],
                "details": {"diff": f"-1 {p}\n+1 {p}", "firstChangedLine": 1},
            },
        },
        {
            "type": "message",
            "id": "b1",
            "parentId": "r4",
            "timestamp": ts(8),
            "message": {
                "role": "bashExecution",
                "command": p,
                "output": p,
                "exitCode": 1,
                "fullOutputPath": p,
                "truncated": True,
            },
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "b1",
            "timestamp": ts(9),
            "targetId": "u1",
            "label": p,
        },
        {"type": "session_info", "id": "n1", "parentId": "l1", "timestamp": ts(10), "name": p},
        {
            "type": "thinking_level_change",
            "id": "k0",
            "parentId": "n1",
            "timestamp": ts(11),
            "thinkingLevel": p,
        },
        {
            "type": "custom_message",
            "id": "c1",
            "parentId": "k0",
            "timestamp": ts(12),
            "customType": p,
            "content": p,
            "display": True,
        },
        {
            "type": "custom_message",
            "id": "c2",
            "parentId": "c1",
            "timestamp": ts(13),
            "customType": p,
            "content": [{"type": "text", "text": p}],
            "display": False,
        },
        {
            "type": "custom",
            "id": "c3",
            "parentId": "c2",
            "timestamp": ts(14),
            "customType": p,
            "data": {p: p},
        },
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "c3",
            "timestamp": ts(15),
            "summary": p,
            "firstKeptEntryId": p,
            "tokensBefore": 5,
            "details": {"readFiles": [p], "modifiedFiles": [p]},
        },
        {
            "type": "branch_summary",
            "id": "s1",
            "parentId": "u1",
            "timestamp": ts(16),
            "fromId": p,
            "summary": p,
            "details": {"readFiles": [p], "modifiedFiles": [p]},
        },
        # two branches that write the same file differently: the compare view's diff
        *[
            rec
            for n in (1, 2)
            for rec in (
                {
                    "type": "message",
                    "id": f"w{n}",
                    "parentId": "u1",
                    "timestamp": ts(16 + n),
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": p},
                            {
                                "type": "toolCall",
                                "id": f"tw{n}",
                                "name": "write",
                                "arguments": {"path": p, "content": f"{n}\n{p}\n"},
                            },
                        ],
                    },
                },
                {
                    "type": "message",
                    "id": f"w{n}r",
                    "parentId": f"w{n}",
                    "timestamp": ts(16 + n),
                    "message": {
                        "role": "toolResult",
                        "toolCallId": f"tw{n}",
                        "toolName": "write",
                        "content": [{"type": "text", "text": p}],
                    },
                },
            )
        ],
        {"type": p, "id": "x1", "parentId": "k1", "timestamp": p, p: p},
        {
            "type": "message",
            "id": "x2",
            "parentId": "x1",
            "timestamp": ts(18),
            "message": {"role": p, "content": p},
        },
        orjson.dumps(
            {
                "type": "message",
                "id": "x3",
                "parentId": "x2",
                "timestamp": ts(19),
                "message": {"role": "user", "content": p},
            }
        ).replace(b"}}", b"}} " + p.encode("utf-8", "replace")[:80]),
    ]
    return [header, *recs], count_placements([header, *recs], p)


def count_placements(records: list[Any], payload: str) -> int:
    """Keys and values that hold the payload, plus the garbage tail of the last line."""
    count, stack = 0, [r for r in records if not isinstance(r, bytes)]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            count += key == payload
            if value == payload:
                count += 1
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return count + sum(isinstance(r, bytes) for r in records)


def write_session(records: list[Any], path: Path) -> Path:
    lines = [r if isinstance(r, bytes) else orjson.dumps(r) for r in records]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path
