"""Hand-made session trees for the branch tests: every figure here is known by hand."""

from __future__ import annotations

from typing import Any

from tests.support.sessions import msg, tool_result


def asst(
    eid: str,
    parent: str,
    second: int,
    text: str = "",
    calls: list[dict[str, Any]] | None = None,
    tokens: tuple[int, int] = (100, 10),
    cost: float = 0.01,
    stop: str = "stop",
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += calls or []
    usage = {
        "input": tokens[0],
        "output": tokens[1],
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": tokens[0] + tokens[1],
        "cost": {"total": cost},
    }
    return msg(
        eid,
        parent,
        "assistant",
        content,
        second,
        provider="p",
        model="m",
        usage=usage,
        stopReason=stop,
    )


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": cid, "name": name, "arguments": args}


def fork_tree() -> list[dict[str, Any]]:
    """A shared start that reads f.py in full, then three branches from a2:

    - Y (``y-end``): "Use approach two", edits f.py, then "and add docs", writes docs.md,
      aborted; a compaction inside Y only.
    - Z: a branch summary of Y (written when the user left it), then "Use approach one",
      a failing tool call.
    - X (current, last in the file): "Use approach one", edits f.py another way.
    """
    return [
        msg("u1", None, "user", "Fix the bug in f.py", 1),
        asst("a1", "u1", 2, "Reading it.", [call("t1", "read", path="f.py")], (100, 10), 0.01),
        tool_result("r1", "a1", "line1\nline2\n", 3, "t1", "read"),
        asst("a2", "r1", 4, "Two ways to fix it.", tokens=(150, 15), cost=0.02),
        # Y
        msg("u3", "a2", "user", "Use approach two", 5),
        asst(
            "a5",
            "u3",
            6,
            "",
            [call("t5", "edit", path="f.py", oldText="line1", newText="TWO")],
            (300, 30),
            0.03,
        ),
        tool_result("r5", "a5", "ok", 7, "t5", "edit"),
        asst("a6", "r5", 8, "Done with two.", tokens=(310, 31), cost=0.031),
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "a6",
            "timestamp": "2025-01-01T10:00:09.000Z",
            "summary": "Y so far",
            "firstKeptEntryId": "a6",
            "tokensBefore": 900,
        },
        msg("u4", "c1", "user", "  AND add   docs ", 10),
        asst(
            "a7",
            "u4",
            11,
            "",
            [call("t7", "write", path="docs.md", content="# Docs\n")],
            (400, 40),
            0.04,
            stop="aborted",
        ),
        tool_result("y-end", "a7", "written", 12, "t7", "write"),
        # Z: left Y and summarised it, went back to a2
        {
            "type": "branch_summary",
            "id": "s1",
            "parentId": "a2",
            "timestamp": "2025-01-01T10:00:13.000Z",
            "fromId": "a2",
            "summary": "Tried approach two; docs half done.",
        },
        msg("u5", "s1", "user", "use approach ONE", 14),
        asst("a8", "u5", 15, "", [call("t8", "bash", command="false")], (500, 50), 0.05),
        {
            **tool_result("z-end", "a8", "exit 1", 16, "t8", "bash"),
            "message": {
                "role": "toolResult",
                "toolCallId": "t8",
                "toolName": "bash",
                "content": [{"type": "text", "text": "exit 1"}],
                "isError": True,
            },
        },
        # X, the current branch
        msg("u2", "a2", "user", "Use approach one", 17),
        asst(
            "a3",
            "u2",
            18,
            "",
            [call("t3", "edit", path="f.py", edits=[{"oldText": "line1", "newText": "ONE"}])],
            (200, 20),
            0.02,
        ),
        tool_result("r3", "a3", "ok", 19, "t3", "edit"),
        asst("x-end", "r3", 20, "Done with one.", tokens=(210, 21), cost=0.021),
    ]


def many_leaves(n: int = 25) -> list[dict[str, Any]]:
    """One request, one answer, then ``n`` retries from that answer, each answered."""
    records = [msg("q", None, "user", "Start", 1), asst("ans", "q", 2, "Ready.")]
    for k in range(n):
        records.append(msg(f"try{k}", "ans", "user", f"Attempt number {k}", 3 + 2 * k))
        records.append(
            asst(f"leaf{k}", f"try{k}", 4 + 2 * k, f"Result {k}", tokens=(k + 1, 1), cost=0.001)
        )
    return records
