"""A session with failed entries on several branches (issue 38, item 3): every place that
counts its errors must say the same number."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.sessions import HEADER, msg, to_lines


def _assistant(eid: str, parent: str, second: int, stop: str, call: str | None = None) -> Any:
    content: list[dict[str, Any]] = [{"type": "text", "text": f"turn {eid}"}]
    if call:
        content.append(
            {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": "make"}}
        )
    usage = {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110}
    extra: dict[str, Any] = {"stopReason": stop, "usage": usage, "model": "claude-sonnet-4-5"}
    extra["provider"] = "anthropic"
    if stop == "error":
        extra["errorMessage"] = "overloaded"
    return msg(eid, parent, "assistant", content, second, **extra)


def _result(eid: str, parent: str, second: int, call: str, error: bool) -> Any:
    content = [{"type": "text", "text": "make: *** [all] Error 2" if error else "ok"}]
    return msg(
        eid, parent, "toolResult", content, second, toolCallId=call, toolName="bash", isError=error
    )


FILE_ERRORS = 5
PATH_ERRORS = 4
OTHER_BRANCH_ERRORS = 1


def errors_session(folder: Path) -> Path:
    """Five failed entries: two on the shared trunk, one on a side branch, two on the current
    branch (which is the last in the file)."""
    records = [
        msg("u1", None, "user", "build it", 1),
        _assistant("a1", "u1", 2, "toolUse", "c1"),
        _result("t1", "a1", 3, "c1", True),  # failed tool call (trunk)
        _assistant("a2", "t1", 4, "error"),  # turn ended in an error (trunk)
        # side branch from a2
        msg("u2", "a2", "user", "try the other way", 5),
        _assistant("a3", "u2", 6, "toolUse", "c3"),
        _result("t3", "a3", 7, "c3", True),  # failed tool call (side branch)
        _assistant("a4", "t3", 8, "stop"),
        # current branch from a2
        msg("u3", "a2", "user", "again", 9),
        _assistant("a5", "u3", 10, "toolUse", "c5"),
        _result("t5", "a5", 11, "c5", True),  # failed tool call (current)
        _assistant("a6", "t5", 12, "toolUse", "c6"),
        _result("t6", "a6", 13, "c6", False),
        _assistant("a7", "t6", 14, "aborted"),  # stopped (current)
    ]
    path = folder / "2025-01-01T10-00-00-000Z_errors.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(to_lines([HEADER, *records]))
    return path
