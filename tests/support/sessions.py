"""Sessions for tests: the header, entry builders, JSONL files, the sample sessions."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from piexport.read.model import Session

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
SAMPLES = REPO / "sample_sessions"
DATA = TESTS / "data"

HEADER = {
    "type": "session",
    "version": 3,
    "id": "0195a000-0000-7000-8000-000000000001",
    "timestamp": "2025-01-01T10:00:00.000Z",
    "cwd": "/home/alice/src/demo",
}

MakeSession = Callable[..., Path]


def ts(second: int) -> str:
    """An ISO timestamp ``second`` seconds after the header's."""
    minutes, secs = divmod(second, 60)
    return f"2025-01-01T10:{minutes:02d}:{secs:02d}.000Z"


def msg(
    eid: str, parent: str | None, role: str, content: Any, second: int, **extra: Any
) -> dict[str, Any]:
    message = {"role": role, "content": content, **extra}
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts(second),
        "message": message,
    }


def tool_result(
    eid: str, parent: str, text: str, second: int, call_id: str, tool: str
) -> dict[str, Any]:
    """A successful toolResult entry with one text block."""
    content = [{"type": "text", "text": text}]
    return msg(
        eid, parent, "toolResult", content, second, toolCallId=call_id, toolName=tool, isError=False
    )


def to_lines(records: Iterable[Any]) -> bytes:
    out = bytearray()
    for r in records:
        out += r if isinstance(r, bytes) else orjson.dumps(r)
        out += b"\n"
    return bytes(out)


def records(name: str) -> list[dict[str, Any]]:
    """The entries of the session file ``tests/data/<name>.jsonl``, its header left out:
    new dicts at each call, for a test to change or write out with its own header."""
    lines = (DATA / f"{name}.jsonl").read_bytes().splitlines()
    return [r for r in map(orjson.loads, filter(bytes.strip, lines)) if r["type"] != "session"]


def sample_files() -> list[Path]:
    return sorted(SAMPLES.rglob("*.jsonl"))


def accounted(session: Session) -> int:
    """Lines the loader can show for: header + entries + line diagnostics (one each)."""
    diag_lines = {d.line for d in session.diagnostics if d.line}
    entry_lines = {e.line for e in session.entries}
    header = {session.header.line} if session.header else set()
    return len(diag_lines | entry_lines | header)


def numbered_lines(project: Path, sessions: int = 3) -> None:
    """Sessions of bash-like output whose ``[000nn]`` line numbers share a prefix, as in
    bench/make_sessions.py: the group of terms that made one oversized shard. Even entries
    number lines 1-299; odd ones ten lines of their own (00105-00114, 00305-…), so a prefix
    finds them only in the shards under it that hold their numbers. The two newest have
    "cart" and "compiling" but not as a phrase: they rank after the ten that have it."""
    project.mkdir(parents=True)
    for n in range(sessions):
        records = []
        for i in range(10):
            numbers = range(1, 300) if i % 2 == 0 else range(100 * i + 5 * n, 100 * i + 5 * n + 10)
            text = "\n".join(f"[{k:05d}] compiling cart_{k % 7}" for k in numbers)
            records.append(msg(f"u{i}", f"u{i - 1}" if i else None, "user", text, 60 * i + 1))
        for i in (10, 11):  # newest, and with both words but not as "compiling cart"
            text = "the cart is fine, compiling again"
            records.append(msg(f"u{i}", f"u{i - 1}", "user", text, 60 * i + 1))
        (project / f"2025-06-0{n + 1}T00-00-00-000Z_n{n}.jsonl").write_bytes(
            to_lines([HEADER, *records])
        )


def bench_session(entries: int) -> bytes:
    """A real-shaped session from the benchmark's generator (bench/make_sessions.py)."""
    spec = importlib.util.spec_from_file_location("make_sessions", REPO / "bench/make_sessions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data: bytes = module.make_session(entries, seed=11, cwd="/home/bench/shop")
    return data
