"""Deterministic synthetic pi sessions with a realistic mix, for the benchmark.

User and assistant turns (the model's prose with inline code, its answers in markdown with
lists and code blocks), thinking with long signatures, every built-in tool with realistic
output sizes (read 5-50 KB, bash up to 50 KB with ANSI colour, edit diffs), branches,
compactions, labels and an occasional image. Same seed, same bytes.
"""

from __future__ import annotations

import base64
import random
import struct
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson

GENERATOR = 2
"""Bumped whenever the output changes, so bench/.cache is made again."""

WORDS = [
    "the",
    "cart",
    "total",
    "coupon",
    "checkout",
    "function",
    "test",
    "module",
    "import",
    "value",
    "error",
    "request",
    "handler",
    "service",
    "model",
    "update",
    "config",
    "build",
    "release",
    "parser",
    "token",
    "cache",
    "session",
]


def _png(seed: int) -> str:
    w = h = 32
    raw = b"".join(b"\x00" + bytes([seed % 256, 80, 160]) * w for _ in range(h))

    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    data = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(data).decode()


class Writer:
    def __init__(self, rng: random.Random, start: datetime) -> None:
        self.rng, self.t, self.n = rng, start, 0
        self.lines: list[bytes] = []
        self.ids: list[str] = []

    def words(self, n: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def add(self, parent: str | None, etype: str, **fields: object) -> str:
        self.n += 1
        self.t += timedelta(seconds=self.rng.randint(1, 20))
        eid = f"{self.n:08x}"
        stamp = self.t.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        self.lines.append(
            orjson.dumps(
                {"type": etype, "id": eid, "parentId": parent, "timestamp": stamp, **fields}
            )
        )
        self.ids.append(eid)
        return eid

    def tool_result(
        self, parent: str, cid: str, tool: str, out: str, error_rate: float, details: object
    ) -> str:
        """A tool's result entry: failed with ``error_rate``, with ``details`` when any."""
        result: dict[str, object] = {
            "role": "toolResult",
            "toolCallId": cid,
            "toolName": tool,
            "content": [{"type": "text", "text": out}],
            "isError": self.rng.random() < error_rate,
            "timestamp": self.ms(),
        }
        if details:
            result["details"] = details
        return self.add(parent, "message", message=result)

    def assistant(
        self, parent: str | None, blocks: list[dict[str, object]], usage: object, stop: str
    ) -> str:
        """An assistant message entry, as Anthropic's API answers in pi."""
        message = {
            "role": "assistant",
            "content": blocks,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": usage,
            "stopReason": stop,
            "timestamp": self.ms(),
        }
        return self.add(parent, "message", message=message)

    def prose(self, n: int) -> str:
        """Model prose: sentences, now and then a file name or call in backticks."""
        out = []
        while n > 0:
            k = min(n, self.rng.randint(6, 18))
            words = self.words(k).split()
            if self.rng.random() < 0.3:
                words[self.rng.randrange(len(words))] = f"`{self.rng.choice(WORDS)}.py`"
            out.append(" ".join(words).capitalize() + ".")
            n -= k
        return " ".join(out)

    def answer(self, n: int) -> str:
        """A closing answer in markdown: prose, a list with emphasis, sometimes code."""
        parts = [self.prose(n)]
        if self.rng.random() < 0.6:
            parts.append(
                "\n".join(
                    f"- **{self.rng.choice(WORDS)}**: {self.prose(self.rng.randint(5, 14))}"
                    for _ in range(self.rng.randint(2, 5))
                )
            )
        if self.rng.random() < 0.25:
            parts.append("```python\n" + _code(self.rng, self.rng.randint(80, 600)) + "\n```")
        return "\n\n".join(parts)

    def ms(self) -> int:
        return int(self.t.timestamp() * 1000)


def _code(rng: random.Random, size: int) -> str:
    lines, total = [], 0
    while total < size:
        line = f"    def {rng.choice(WORDS)}_{rng.randint(0, 999)}(self, value): return value * {rng.randint(1, 9)}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def _bash(rng: random.Random, size: int) -> str:
    lines, total, i = [], 0, 0
    while total < size:
        i += 1
        color = rng.choice(["\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[2m", ""])
        line = f"{color}[{i:05d}]\x1b[0m compiling {rng.choice(WORDS)}_{rng.randint(0, 99)} v0.{rng.randint(0, 9)}.0"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def make_session(entries: int, seed: int = 1, cwd: str = "/home/bench/project") -> bytes:
    """About ``entries`` entries: turns of user → assistant (tools) → results, with forks."""
    rng = random.Random(seed)
    start = datetime(2025, 6, 1, 9, 0, tzinfo=timezone.utc)
    w = Writer(rng, start)
    header = {
        "type": "session",
        "version": 3,
        "id": f"0197{seed:04x}-0000-7000-8000-{seed:012x}",
        "timestamp": start.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "cwd": cwd,
    }
    leaf: str | None = w.add(
        None, "model_change", provider="anthropic", modelId="claude-sonnet-4-5"
    )
    turn = 0
    while w.n < entries:
        turn += 1
        if turn % 40 == 0 and len(w.ids) > 30:  # fork from an earlier point
            leaf = w.ids[-rng.randint(5, 25)]
            leaf = w.add(leaf, "branch_summary", fromId=w.ids[-1], summary=w.words(40))
        if turn % 150 == 0:
            leaf = w.add(
                leaf,
                "compaction",
                summary="## Goal\n" + w.words(120),
                firstKeptEntryId=w.ids[-10],
                tokensBefore=rng.randint(80_000, 180_000),
                details={
                    "readFiles": [f"src/{x}.py" for x in WORDS[:5]],
                    "modifiedFiles": ["src/cart.py"],
                },
            )
        if turn % 60 == 0:
            w.add(leaf, "label", targetId=leaf, label=f"checkpoint-{turn}")
        content: object = w.words(rng.randint(8, 60))
        if turn % 97 == 0:
            content = [
                {"type": "text", "text": w.words(10)},
                {"type": "image", "mimeType": "image/png", "data": _png(turn)},
            ]
        leaf = w.add(
            leaf, "message", message={"role": "user", "content": content, "timestamp": w.ms()}
        )
        for _step in range(rng.randint(1, 4)):
            tool = rng.choice(
                ["read", "read", "bash", "bash", "edit", "write", "grep", "find", "ls"]
            )
            cid = f"toolu_{w.n:010d}"
            args: dict[str, object] = {"path": f"/home/bench/project/src/{rng.choice(WORDS)}.py"}
            if tool == "bash":
                args = {"command": f"python -m pytest -q tests/test_{rng.choice(WORDS)}.py"}
            elif tool == "edit":
                args["edits"] = [{"oldText": w.words(6), "newText": w.words(7)}]
            elif tool == "write":
                args["content"] = _code(rng, rng.randint(500, 4000))
            blocks = [
                {
                    "type": "thinking",
                    "thinking": w.words(rng.randint(20, 120)),
                    "thinkingSignature": base64.b64encode(rng.randbytes(600)).decode(),
                },
                {"type": "text", "text": w.prose(rng.randint(10, 80))},
                {"type": "toolCall", "id": cid, "name": tool, "arguments": args},
            ]
            usage = {
                "input": rng.randint(2000, 90000),
                "output": rng.randint(50, 2000),
                "cacheRead": rng.randint(0, 80000),
                "cacheWrite": 0,
                "totalTokens": 0,
                "cost": {"total": round(rng.random() / 10, 6)},
            }
            leaf = w.assistant(leaf, blocks, usage, "toolUse")
            details: dict[str, object] | None = None
            if tool == "read":
                out = _code(rng, rng.randint(5_000, 50_000))
            elif tool == "bash":
                out = _bash(rng, rng.choice([300, 2_000, 10_000, 50_000]))
            elif tool == "edit":
                n = rng.randint(10, 400)
                out = f"Successfully replaced 1 block(s) in {args['path']}."
                details = {
                    "diff": f" {n - 1} {w.words(5)}\n-{n} {w.words(6)}\n+{n} {w.words(7)}\n {n + 1} {w.words(4)}",
                    "firstChangedLine": n,
                }
            elif tool == "grep":
                out = "\n".join(
                    f"src/{rng.choice(WORDS)}.py:{rng.randint(1, 500)}: {w.words(8)}"
                    for _ in range(rng.randint(0, 40))
                )
            else:
                out = "\n".join(
                    f"src/{rng.choice(WORDS)}_{i}.py" for i in range(rng.randint(3, 60))
                )
            leaf = w.tool_result(leaf, cid, tool, out, 0.05, details)
        leaf = w.add(
            leaf,
            "message",
            message={
                "role": "assistant",
                "content": [{"type": "text", "text": w.answer(rng.randint(20, 200))}],
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "stopReason": "stop",
                "usage": {
                    "input": 1000,
                    "output": 100,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 1100,
                    "cost": {"total": 0.01},
                },
                "timestamp": w.ms(),
            },
        )
    return orjson.dumps(header) + b"\n" + b"\n".join(w.lines) + b"\n"


def make_archive(root: Path, sessions: int = 500, projects: int = 20) -> None:
    """pi's layout: ``--<cwd>--/<timestamp>_<uuid>.jsonl``, small sessions, many projects."""
    for i in range(sessions):
        cwd = f"/home/bench/project-{i % projects:02d}"
        folder = root / ("--" + cwd.lstrip("/").replace("/", "-") + "--")
        folder.mkdir(parents=True, exist_ok=True)
        name = f"2025-06-{1 + i % 28:02d}T09-00-00-000Z_0197{i:04x}-0000-7000-8000-{i:012x}.jsonl"
        # mostly short sessions, a few long ones, as a real archive has
        entries = 400 if i % 50 == 0 else 20 + (i * 37) % 100
        (folder / name).write_bytes(make_session(entries, seed=1000 + i, cwd=cwd))


REAL_GENERATOR = 1
"""Version of :func:`make_real_session`'s output (its own, so caches of the other shapes stay
valid when it changes)."""

_PY_NAMES = ["cart", "order", "coupon", "price", "tax", "user", "item", "stock", "ship", "refund"]


def _python_file(rng: random.Random, lines: int) -> str:
    """A source file as agents read them: imports, classes, docstrings, comments, strings,
    numbers and control flow, about ``lines`` long."""
    out = [
        '"""' + " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + '."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "from dataclasses import dataclass, field",
        f"from .{rng.choice(_PY_NAMES)} import {rng.choice(_PY_NAMES).title()}Error",
        "",
        "log = logging.getLogger(__name__)",
        f"LIMIT = {rng.randint(10, 10_000)}",
        "",
    ]
    while len(out) < lines:
        name = rng.choice(_PY_NAMES)
        out += ["", "", "@dataclass", f"class {name.title()}{rng.randint(0, 99)}:"]
        out.append(f'    """{" ".join(rng.choice(WORDS) for _ in range(10)).capitalize()}."""')
        out.append("")
        for _ in range(rng.randint(2, 5)):
            out.append(f"    {rng.choice(WORDS)}: int = {rng.randint(0, 500)}")
        out.append("    tags: list[str] = field(default_factory=list)")
        for _ in range(rng.randint(2, 6)):
            fn = f"{rng.choice(WORDS)}_{rng.choice(_PY_NAMES)}"
            out += ["", f"    def {fn}(self, value: float, *, strict: bool = False) -> float:"]
            out.append(
                f'        """{" ".join(rng.choice(WORDS) for _ in range(8)).capitalize()}."""'
            )
            for _ in range(rng.randint(3, 12)):
                kind = rng.random()
                if kind < 0.2:
                    out.append(f"        # {' '.join(rng.choice(WORDS) for _ in range(7))}")
                elif kind < 0.4:
                    out.append(f"        if value > {rng.randint(0, 99)} and not strict:")
                    out.append(f'            log.warning("{rng.choice(WORDS)} %s over", value)')
                elif kind < 0.6:
                    out.append(
                        f"        value = value * {rng.random():.3f} + self.{rng.choice(WORDS)}"
                    )
                elif kind < 0.8:
                    out.append(f"        for i, t in enumerate(self.tags[:{rng.randint(1, 9)}]):")
                    out.append(f"            value += len(t) * i  # {rng.choice(WORDS)}")
                else:
                    out.append(
                        f'        raise {rng.choice(_PY_NAMES).title()}Error(f"{{value!r}} {rng.choice(WORDS)}")'
                    )
            out.append("        return value")
    return "\n".join(out[:lines])


def _log(rng: random.Random, lines: int) -> str:
    """A long terminal log: a test run or a build, some ANSI colour, warnings, a traceback."""
    out = []
    for i in range(lines):
        r = rng.random()
        mod = f"tests/test_{rng.choice(_PY_NAMES)}.py"
        if r < 0.55:
            out.append(
                f"{mod}::test_{rng.choice(WORDS)}_{i} \x1b[32mPASSED\x1b[0m [{100 * i // lines:3d}%]"
            )
        elif r < 0.6:
            out.append(
                f"{mod}::test_{rng.choice(WORDS)}_{i} \x1b[31mFAILED\x1b[0m [{100 * i // lines:3d}%]"
            )
        elif r < 0.7:
            out.append(
                f'  File "/home/bench/project/src/{rng.choice(_PY_NAMES)}.py", line {rng.randint(1, 900)}, in {rng.choice(WORDS)}'
            )
        elif r < 0.8:
            out.append(
                f"\x1b[33mwarning\x1b[0m: unused variable `{rng.choice(WORDS)}` at src/{rng.choice(_PY_NAMES)}.rs:{rng.randint(1, 400)}:{rng.randint(1, 80)}"
            )
        else:
            out.append(
                f"   Compiling {rng.choice(WORDS)}-{rng.choice(_PY_NAMES)} v0.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
            )
    return "\n".join(out)


def make_real_session(seed: int, target_bytes: int = 3_500_000) -> bytes:
    """A real-shaped session of about ``target_bytes`` (3-4 MB): many small turns, long reads
    of source files (the same files read again, some after an edit), long bash logs."""
    rng = random.Random(seed)
    start = datetime(2025, 7, 1, 9, 0, tzinfo=timezone.utc)
    w = Writer(rng, start)
    cwd = "/home/bench/shop"
    header = {
        "type": "session",
        "version": 3,
        "id": f"0198{seed:04x}-0000-7000-8000-{seed:012x}",
        "timestamp": start.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "cwd": cwd,
    }
    files = {
        f"src/shop/{name}.py": _python_file(rng, rng.randint(100, 900))
        for name in rng.sample(_PY_NAMES, 10)
    }
    paths = sorted(files)
    leaf: str | None = w.add(
        None, "model_change", provider="anthropic", modelId="claude-sonnet-4-5"
    )
    size = 0

    def assistant(blocks: list[dict[str, object]], stop: str) -> str:
        usage = {
            "input": rng.randint(2000, 150_000),
            "output": rng.randint(20, 1500),
            "cacheRead": rng.randint(0, 120_000),
            "cacheWrite": rng.randint(0, 5000),
            "totalTokens": 0,
            "cost": {"total": round(rng.random() / 20, 6)},
        }
        return w.assistant(leaf, blocks, usage, stop)

    while size < target_bytes:
        leaf = w.add(
            leaf,
            "message",
            message={"role": "user", "content": w.prose(rng.randint(4, 30)), "timestamp": w.ms()},
        )
        for _step in range(rng.randint(1, 6)):
            tool = rng.choice(["read"] * 3 + ["bash"] * 3 + ["edit"] * 4 + ["grep"] * 2 + ["ls"])
            cid = f"toolu_{w.n:010d}"
            path = rng.choice(paths)
            args: dict[str, object] = {"path": f"{cwd}/{path}"}
            details: dict[str, object] | None = None
            if tool == "read":
                out = files[path]
            elif tool == "bash":
                args = {"command": rng.choice(["pytest -q", "cargo build", "make check"])}
                out = _log(rng, rng.choice([3, 10, 30, 60, 400, 1200]))
            elif tool == "edit":
                lines = files[path].split("\n")
                n = rng.randrange(len(lines))
                old, new = lines[n], lines[n] + f"  # {rng.choice(WORDS)}"
                args["edits"] = [{"oldText": old, "newText": new}]
                lines[n] = new
                files[path] = "\n".join(lines)
                out = f"Successfully replaced 1 block(s) in {args['path']}."
                details = {"diff": f"-{n + 1} {old}\n+{n + 1} {new}", "firstChangedLine": n + 1}
            elif tool == "grep":
                args = {"pattern": rng.choice(WORDS), "path": "src"}
                out = "\n".join(
                    f"{rng.choice(paths)}:{rng.randint(1, 900)}: {w.words(6)}"
                    for _ in range(rng.randint(0, 25))
                )
            else:
                out = "\n".join(p.rsplit("/", 1)[-1] for p in paths)
            thinking = {
                "type": "thinking",
                "thinking": w.words(rng.randint(5, 60)),
                "thinkingSignature": base64.b64encode(rng.randbytes(300)).decode(),
            }
            say = {"type": "text", "text": w.prose(rng.randint(3, 25))}
            call = {"type": "toolCall", "id": cid, "name": tool, "arguments": args}
            leaf = assistant([thinking, say, call], "toolUse")
            leaf = w.tool_result(leaf, cid, tool, out, 0.03, details)
        leaf = assistant([{"type": "text", "text": w.answer(rng.randint(10, 80))}], "stop")
        size = sum(len(line) + 1 for line in w.lines)
    return orjson.dumps(header) + b"\n" + b"\n".join(w.lines) + b"\n"
