"""A command the user ran with ``!`` (``!!``: kept from the model), and its output."""

from __future__ import annotations

from collections.abc import Iterator

from ..read.model import Entry
from ..text.ansi import strip_ansi
from ..text.cut import Derive
from ..text.mdsafe import code_fence
from .base import Calls, MarkdownContext, Part, RowWords, details, one_line, s
from .message import MessageKind


class BashExecution(MessageKind):
    name = "bash_execution"
    role = "bashExecution"
    macro = "bash_execution"
    message_fields = frozenset(
        {"role", "command", "output", "exitCode", "cancelled", "truncated", "fullOutputPath"}
        | {"excludeFromContext", "timestamp"}
    )

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        return "[bash]: " + one_line(str((entry.message or {}).get("command") or ""))

    def row(self, entry: Entry, calls: Calls, leading: bool, words: RowWords) -> str:
        return "[bash]: " + one_line(words.command(str((entry.message or {}).get("command") or "")))

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        msg = entry.message or {}
        body = f"$ {msg.get('command', '')}\n{msg.get('output', '')}"
        return details(f"User ran: {msg.get('command', '')}", code_fence(body, "console"))

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        msg = entry.message or {}
        code = msg.get("exitCode")
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        yield "tool", "bash", s(msg.get("command")), False
        yield "output", "bash", strip_ansi(s(msg.get("output"))), failed


KIND = BashExecution()
