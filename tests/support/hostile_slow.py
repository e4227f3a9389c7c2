"""Session files of a few kilobytes that made a page take minutes or gigabytes: hostile
shapes for time and memory rather than for script. Each is a whole session file; tests
render each under a wall-clock guard, and ``bench/run.py --hostile`` reports the seconds
per MB of the slowest.

Most come from an outside attack on the landed pages: catastrophic backtracking in our own
regexes over markdown, superlinear Pygments lexers, markdown expansions (tables filled with
empty cells, one long link definition used thousands of times) and quadratic compaction
bookkeeping.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import orjson
from pygments.lexer import Lexer
from pygments.token import Text

HEADER = {
    "type": "session",
    "version": 3,
    "id": "slow",
    "timestamp": "2025-01-01T00:00:00.000Z",
    "cwd": "/c",
}
TS = "2025-01-01T00:00:01.000Z"


def _file(entries: list[dict[str, object]]) -> bytes:
    return b"\n".join(orjson.dumps(e) for e in [HEADER, *entries]) + b"\n"


def _chain(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i, m in enumerate(messages):
        out.append(
            {"type": "message", "id": f"m{i}", "parentId": f"m{i - 1}" if i else None}
            | {"timestamp": TS, "message": m}
        )
    return out


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


def assistant(*blocks: dict[str, object]) -> dict[str, object]:
    return {"role": "assistant", "content": list(blocks), "stopReason": "toolUse"}


def text(t: str) -> dict[str, object]:
    return {"type": "text", "text": t}


def read_of(path: str, body: str) -> list[dict[str, object]]:
    """A ``read`` tool call of ``path`` and its result."""
    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": path}}
    result = {
        "role": "toolResult",
        "toolCallId": "t1",
        "toolName": "read",
        "content": [{"type": "text", "text": body}],
        "isError": False,
    }
    return [user("read it"), assistant(call), result]


def compactions(n: int, off_path: bool = False) -> bytes:
    """``n`` compactions, each summarising everything before it (on the current path, or on
    a side branch while the current path is short)."""
    entries: list[dict[str, object]] = [
        {"type": "message", "id": "r", "parentId": None, "timestamp": TS, "message": user("hi")}
    ]
    prev = "r"
    for i in range(n):
        entries.append(
            {
                "type": "compaction",
                "id": f"c{i}",
                "parentId": prev,
                "timestamp": TS,
                "summary": f"summary {i}",
                "firstKeptEntryId": "r" if off_path else f"c{i}",
                "tokensBefore": 1000,
            }
        )
        prev = f"c{i}"
    if off_path:
        entries.append(
            {
                "type": "message",
                "id": "z",
                "parentId": "r",
                "timestamp": "2025-01-01T00:00:02.000Z",
                "message": user("the current branch"),
            }
        )
    return _file(entries)


@dataclass(frozen=True)
class Slow:
    name: str
    make: Callable[[], bytes]
    words: tuple[str, ...] = ()
    """Words that must be on the page (nothing the user wrote is dropped)."""


def _table(columns: int, rows: int) -> str:
    head = "|" + "|".join(f"h{i}" for i in range(columns)) + "|"
    return head + "\n|" + "|".join("-" for _ in range(columns)) + "|\n" + "|cell\n" * rows


def rewrite_twice() -> list[dict[str, object]]:
    """``write`` a 20,000-line file of 50 distinct lines, then write it again reordered."""
    first = "".join(f"row {i % 50}\n" for i in range(20_000))
    second = "".join(f"row {(i * 7) % 50}\n" for i in range(20_000))
    out: list[dict[str, object]] = [user("rewrites")]
    for n, content in enumerate((first, second)):
        call = {"type": "toolCall", "id": f"w{n}", "name": "write"}
        call["arguments"] = {"path": "data.csv", "content": content}
        out.append(assistant(call))
        out.append(
            {"role": "toolResult", "toolCallId": f"w{n}", "toolName": "write", "isError": False}
            | {"content": [text("Successfully wrote")]}
        )
    return out


def cases() -> list[Slow]:
    return [
        Slow(
            "quote-nesting",
            lambda: _file(_chain([user(">    " * 14 + "quoteword")])),
            ("quoteword",),
        ),
        Slow(
            "list-nesting", lambda: _file(_chain([user("-     " * 14 + "listword")])), ("listword",)
        ),
        Slow(
            "list-nesting-40", lambda: _file(_chain([user("- " * 40 + "deepword")])), ("deepword",)
        ),
        Slow("tildes", lambda: _file(_chain([user("~" * 100_000 + " tildeword")]))),
        # a file of repeated lines written twice: difflib took minutes on the net change
        Slow("rewritten-repeats", lambda: _file(_chain(rewrite_twice())), ("rewrites",)),
        # the title's patterns ran on the whole first line: minutes for 200 KB of this
        Slow("title-marks", lambda: _file(_chain([user("**a " * 50_000 + "titleword")]))),
        Slow("title-backticks", lambda: _file(_chain([user("`x " * 70_000)]))),
        Slow("backticks", lambda: _file(_chain([user("`" * 100_000 + " tickword")]))),
        Slow(
            "fence-info-run",
            lambda: _file(_chain([user("```" + " " * 50_000 + "x y\ncode\n```")])),
        ),
        Slow(
            "wide-tables",
            lambda: _file(_chain([user(_table(256, 7)) for _ in range(40)])),
            ("h255",),
        ),
        Slow(
            "reference-expansion",
            lambda: _file(
                _chain([user("[a]: https://example.com/" + "y" * 60_000 + "\n\n" + "[a] " * 4000)])
            ),
        ),
        Slow(
            "many-brackets",
            lambda: _file(_chain([user("[" * 60_000 + "bracketword")])),
            ("bracketword",),
        ),
        Slow(
            "systemd-spaces-read",
            lambda: _file(_chain(read_of("unit.service", "a" + " " * 4000 + "b\n"))),
        ),
        Slow(
            "systemd-fence",
            lambda: _file(
                _chain([assistant(text("```systemd\na" + " " * 4000 + "b\n```\nfenceword"))])
            ),
            ("fenceword",),
        ),
        Slow(
            "easytrieve-tabs",
            lambda: _file(_chain([user("```easytrieve\n" + "\t" * 6000 + "\n```")])),
        ),
        Slow(
            "cpp-blank-lines",
            lambda: _file(_chain(read_of("main.cpp", "\n" * 30_000 + "int x;\n"))),
        ),
        # found by bench/lexers.py: each takes past 2 s at 2,000 characters, and grows
        Slow("c-spaces-read", lambda: _file(_chain(read_of("main.c", "a" + " " * 8000 + "b\n")))),
        Slow(
            "cuda-spaces-fence", lambda: _file(_chain([user("```cuda\na" + " " * 8000 + "b\n```")]))
        ),
        Slow("autohotkey-blank-lines", lambda: _file(_chain(read_of("x.ahk", "\n" * 8000 + "x")))),
        Slow(
            "gherkin-space-lines", lambda: _file(_chain(read_of("x.feature", " \n" * 4000 + "x")))
        ),
        Slow("tnt-brackets", lambda: _file(_chain([user("```tnt\n" + "(" * 8000 + "\n```")]))),
        # quadratic bookkeeping: 10,000 took minutes as 40,000 did (the test of the walk
        # against the simple one is in test_bounds.py)
        Slow("compactions", lambda: compactions(10_000), ("summary",)),
        Slow("compactions-off-path", lambda: compactions(5_000, off_path=True), ("current",)),
        Slow(
            "trailer-newlines",
            lambda: _file(
                _chain(
                    [
                        user("run"),
                        assistant(
                            {
                                "type": "toolCall",
                                "id": "t1",
                                "name": "bash",
                                "arguments": {"command": "x"},
                            }
                        ),
                        {
                            "role": "toolResult",
                            "toolCallId": "t1",
                            "toolName": "bash",
                            "content": [{"type": "text", "text": "\n" * 200_000 + "done"}],
                            "isError": False,
                        },
                    ]
                )
            ),
        ),
    ]


SPIN = 10**9
"""Loop turns a spinning lexer takes: tens of seconds of CPU, far past any guard a test sets
(a guard that failed to stop it lets it finish, and the test then fails; it never hangs)."""


def spin_lexer() -> Lexer:
    """A lexer that works (CPU, as a backtracking regex does) for :data:`SPIN` turns, then
    gives one token: the shape of a superlinear lexer no counted cap knows of."""
    return SpinLexer()


class SpinLexer(Lexer):
    name = "Spin"

    def get_tokens_unprocessed(self, text: str):  # type: ignore[no-untyped-def,override]
        for _ in range(SPIN):
            pass
        yield 0, Text, text
