"""How tool calls are named in one line (``[bash: cmd]``, ``[read: path:1-20]``), as pi's
tree labels them, and the calls a tool made to other tools as lines: shared by the
assistant's and the tool result's kinds, ``piexport tree`` and the page."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..read.jsonutil import dumps
from ..text.cut import Derive, shorten


def _short_path(p: str) -> str:
    home = os.environ.get("HOME", "")
    return "~" + p[len(home) :] if home and p.startswith(home + "/") else p


def tool_call_summary(name: Any, args: Any, derive: Derive) -> str:
    """``[bash: cmd]``, ``[read: path:1-20]``… as pi labels tool calls in its tree, made
    with the session's ``derive``."""
    return derive(call_summary(name, args))


def tool_call_target(name: Any, args: Any, derive: Derive) -> str:
    """What a tool call's header names: ``path:1-20`` for read, the path for write and edit,
    ``/pattern/ in path`` for grep…: its summary without ``[name: `` and ``]``."""
    return derive(call_summary(name, args)[1:-1].split(": ", 1)[-1])


def call_summary(name: Any, args: Any) -> str:
    """A tool call's one line, before redaction."""
    a: Mapping[str, Any] = args if isinstance(args, Mapping) else {}

    def path_arg(default: str = "") -> str:
        return _short_path(str(a.get("path") or a.get("file_path") or default))

    if name == "read":
        shown = path_arg()
        offset, limit = a.get("offset"), a.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"-{start + limit - 1}" if isinstance(limit, int) else ""
            shown += f":{start}{end}"
        return f"[read: {shown}]"
    if name in ("write", "edit"):
        return f"[{name}: {path_arg()}]"
    if name == "bash":
        cmd = str(a.get("command") or "")
        flat = " ".join(cmd.split())
        return f"[bash: {shorten(flat, 53, '...') if len(cmd) > 50 else flat}]"
    if name == "grep":
        return f"[grep: /{a.get('pattern') or ''}/ in {path_arg('.')}]"
    if name == "find":
        return f"[find: {a.get('pattern') or ''} in {path_arg('.')}]"
    if name == "ls":
        return f"[ls: {path_arg('.')}]"
    dumped = dumps(args, indent=False) if args is not None else ""
    return f"[{name}: {_short_json(dumped) if len(dumped) > 40 else dumped}]"


_QUOTE = re.compile(r'(?<!\\)(?:\\\\)*"')
"""A quote that is not escaped (it follows an even number of backslashes)."""


def _short_json(dumped: str) -> str:
    """The first 40 characters of JSON and ``...``; a string cut open ends before its opening
    quote, so it is not read on into the words after it (``"password":"...] [http: {``
    would read as a password)."""
    head = shorten(dumped, 40, "")
    quotes = [m.end() - 1 for m in _QUOTE.finditer(head)]
    if len(quotes) % 2:
        head = head[: quotes[-1]]
    return head + "..."


_STATUS = {"ok": "ok", "error": "error", "unfinished": "unfinished"}


def nested_text(nested: Any) -> str:
    """Calls a tool made to other tools, one a line: status, name, time, arguments, error."""
    calls = nested.get("calls") if isinstance(nested, dict) else None
    if not isinstance(calls, list):
        return ""
    lines = []
    for c in calls:
        if not isinstance(c, dict):
            continue
        args = c.get("arguments")
        shown = (
            dumps(args, indent=False)  # one line, as pi's export shows it
            if isinstance(args, dict)
            else f"[arguments omitted, {c.get('argumentsBytes')} bytes]"
        )
        took = f" {c['durationMs']} ms" if isinstance(c.get("durationMs"), int | float) else ""
        lines.append(f"{_STATUS.get(str(c.get('status')), '?')} {c.get('name')} {shown}{took}")
        if c.get("error"):
            lines.append("    " + str(c["error"]).replace("\n", "\n    "))
    if nested.get("complete") is False:
        lines.append("(incomplete record)")
    return "\n".join(lines)
