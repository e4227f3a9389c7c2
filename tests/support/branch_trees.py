"""Hand-made session trees for the branch tests: every figure in them is known by hand."""

from __future__ import annotations

from typing import Any

from tests.support.sessions import msg, records


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


def fork_tree() -> list[dict[str, Any]]:
    """tests/data/branches/fork-tree.jsonl: a shared start that reads f.py in full, then
    three branches from a2:

    - Y (``y-end``): "Use approach two", edits f.py, then "and add docs", writes docs.md,
      aborted; a compaction inside Y only.
    - Z: a branch summary of Y (written when the user left it), then "Use approach one",
      a failing tool call.
    - X (current, last in the file): "Use approach one", edits f.py another way.
    """
    return records("branches/fork-tree")


def many_leaves(n: int = 25) -> list[dict[str, Any]]:
    """One request, one answer, then ``n`` retries from that answer, each answered."""
    records = [msg("q", None, "user", "Start", 1), asst("ans", "q", 2, "Ready.")]
    for k in range(n):
        records.append(msg(f"try{k}", "ans", "user", f"Attempt number {k}", 3 + 2 * k))
        records.append(
            asst(f"leaf{k}", f"try{k}", 4 + 2 * k, f"Result {k}", tokens=(k + 1, 1), cost=0.001)
        )
    return records
