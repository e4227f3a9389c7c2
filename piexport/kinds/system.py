"""A system message (pi 1.5): the prompt and tools that start a branch, or a change to them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..read.model import JSON, Entry, content_text
from ..read.system import current_system, describe_update
from ..text.cut import Derive
from ..text.mdsafe import code_fence
from .base import Calls, MarkdownContext, Part, details, one_line, s
from .message import MessageKind


class System(MessageKind):
    name = "system"
    role = "system"
    macro = "system_message"
    message_fields = frozenset(
        {"role", "content", "sections", "toolsAdded", "toolsRemoved", "timestamp"}
    )

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        if leading:
            return "[system prompt]"
        changes = ", ".join(describe_update(entry.message or {}))
        return f"[system update: {one_line(changes, 80)}]" if changes else "[system update]"

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        return system_markdown(entry.message or {}, entry.id in ctx.leading)

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        yield "system", "", system_text(entry.message or {}, derive), False


def system_markdown(msg: JSON, leading: bool) -> list[str]:
    """A system message: the prompt that starts a branch, or what an update changes."""
    state = current_system([msg])
    parts = ["\n\n".join(state.content)] if state.content else []
    parts += [f"[section {name}]\n{body}" for name, body in state.sections.items()]
    removed = (
        [str(n) for n, v in (msg.get("sections") or {}).items() if v is None]
        if isinstance(msg.get("sections"), dict)
        else []
    )
    parts += [f"[section {name} removed]" for name in removed]
    if state.tools:
        parts.append("[tools] " + ", ".join(state.tools))
    for name, tool in state.tools.items():
        said = tool.get("description") if isinstance(tool, Mapping) else None
        if isinstance(said, str) and said:
            parts.append(f"[tool {name}]\n{said}")
    removed_tools = msg.get("toolsRemoved")
    gone = [
        t.get("name") if isinstance(t, Mapping) else t
        for t in (removed_tools if isinstance(removed_tools, list) else ())
    ]
    if gone:
        parts.append("[tools removed] " + ", ".join(map(str, gone)))
    if leading:
        summary = "System prompt"
    else:
        summary = "System prompt update: " + (", ".join(describe_update(msg)) or "no change")
    return details(summary, code_fence("\n\n".join(parts)))


def system_text(msg: Mapping[str, Any], derive: Derive) -> str:
    """A system message's words: its instructions, each section, each tool's name and
    description (the parameters are the tool's, not the user's), joined with ``derive``."""
    parts = [content_text(msg.get("content"), "\n\n", derive)]
    sections = msg.get("sections")
    if isinstance(sections, Mapping):
        parts += [f"{name}\n{s(v)}" for name, v in sections.items()]
    tools = msg.get("toolsAdded")
    for t in tools if isinstance(tools, list) else ():
        if isinstance(t, Mapping):
            parts.append(f"{s(t.get('name'))}: {s(t.get('description'))}")
    return derive.join((p for p in parts if p), "\n\n")


KIND = System()
