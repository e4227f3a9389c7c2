"""The shapes of pi's built-in tools' output: an edit's diff, a read's trailing notice, a
command's exit line, grep's ``path:line:`` matches. Pages lay these out; reports read them."""

from __future__ import annotations

import re

__all__ = ["MAX_GREP_LINES", "diff_rows", "grep_groups", "split_exit", "split_notice"]


def diff_rows(diff: str) -> list[tuple[str, str, str]]:
    """pi's edit diff (``+12 text``, ``-12 text``, `` 12 text``, `` … ...``) → (kind, n, text)."""
    rows = []
    for line in diff.split("\n"):
        sign, rest = line[:1], line[1:]
        kind = {"+": "add", "-": "del"}.get(sign, "ctx")
        m = re.match(r"\s*(\d+) ?(.*)$", rest, re.DOTALL)
        if m:
            rows.append((kind, m.group(1), m.group(2)))
        elif rest.strip() == "...":
            rows.append(("skip", "", "…"))
        else:
            rows.append((kind, "", rest))
    return rows


_NOTICE = re.compile(r"\n*(\[(?:\d+ more lines in file|Showing lines)[^\]\n]*\])\s*$")
_EXIT = re.compile(r"\n*Command exited with code (-?\d+)\s*$")


_TAIL = 1024
"""Trailers sit at the end: only this much of a (possibly huge) output is searched."""


def _trailer(pattern: re.Pattern[str], text: str) -> tuple[str, re.Match[str] | None]:
    cut = max(0, len(text) - _TAIL)
    m = pattern.search(text, cut)
    return (text, None) if m is None else (text[: m.start()], m)


def split_notice(text: str) -> tuple[str, str | None]:
    """Separate pi's trailing ``[N more lines in file…]`` notice from a tool's output."""
    body, m = _trailer(_NOTICE, text)
    return body, m.group(1) if m else None


def split_exit(text: str) -> tuple[str, int | None]:
    """Separate pi's ``Command exited with code N`` line from bash output."""
    body, m = _trailer(_EXIT, text)
    return body, int(m.group(1)) if m else None


MAX_GREP_LINES = 2000
"""Longer grep output is shown as plain text (grouping it would cost more than it helps)."""
_GREP_MATCH = re.compile(r"^(.+?):(\d+):(?: (.*))?$", re.DOTALL)
_GREP_CONTEXT = re.compile(r"^(.+?)-(\d+)-(?: (.*))?$", re.DOTALL)


def grep_groups(text: str) -> list[tuple[str, list[tuple[str, str, str]]]] | None:
    """pi's grep output (``path:12: text``, context ``path-12- text``) grouped by file as
    (path, [(kind, line, text)]), or None when it is not in that shape."""
    lines = [ln for ln in text.rstrip("\n").split("\n") if ln != "--"]
    if len(lines) > MAX_GREP_LINES:
        return None
    matches = [_GREP_MATCH.match(ln) for ln in lines]
    known = {m.group(1) for m in matches if m}
    groups: list[tuple[str, list[tuple[str, str, str]]]] = []
    for line, m in zip(lines, matches, strict=True):
        if m:
            path, kind, number, rest = m.group(1), "match", m.group(2), m.group(3)
        else:
            # a context line: prefer a path already seen in a match (paths may hold "-2-")
            path = max((k for k in known if line.startswith(k + "-")), key=len, default="")
            c = re.match(r"(\d+)-(?: (.*))?$", line[len(path) + 1 :], re.DOTALL) if path else None
            c_any = None if c else _GREP_CONTEXT.match(line)
            if c:
                number, rest = c.group(1), c.group(2)
            elif c_any:
                path, number, rest = c_any.group(1), c_any.group(2), c_any.group(3)
            else:
                return None
            kind = "context"
        if not groups or groups[-1][0] != path:
            groups.append((path, []))
        groups[-1][1].append((kind, number, rest or ""))
    return groups or None
