"""The system prompt and tools: pi 1.5 keeps them as ``system`` messages in the transcript.

The first system message of a branch declares the prompt (``content``, named ``sections``) and
the tools (``toolsAdded``); each later one patches that state: its ``content`` adds
instructions, ``sections`` replace a section by name (``null`` removes it), and ``toolsRemoved``
then ``toolsAdded`` change the tool set (a changed tool is removed and added again). A
compaction stores the whole state at its boundary (``systemMessage``), which leads the
compacted context. Replaying the system messages of a context in order gives the state in force
there, exactly as pi's ``getCurrentSystemMessage`` does (``current_system``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import JSON, Entry, Session


def content_text(content: Any, sep: str = "\n") -> str:
    """pi-ai's ``contentText``: a string as is, else the text blocks joined by ``sep``."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return sep.join(
        b["text"] if isinstance(b.get("text"), str) else ""
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "text"
    )


def sections_of(message: Mapping[str, Any]) -> dict[str, Any]:
    sections = message.get("sections")
    return dict(sections) if isinstance(sections, Mapping) else {}


def _tools(message: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    tools = message.get(key)
    if not isinstance(tools, list):
        return []
    return [t for t in tools if isinstance(t, Mapping) and isinstance(t.get("name"), str)]


@dataclass(slots=True)
class SystemState:
    """The prompt and tools after replaying system messages in order."""

    content: list[str] = field(default_factory=list)
    """Instruction texts, in order: the base prompt, then what later messages added."""
    sections: dict[str, Any] = field(default_factory=dict)
    """Section name → text (a file may hold other JSON there; it is kept as written)."""
    tools: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    timestamp: Any = None
    seen: bool = False
    """Whether any system message was replayed."""

    def apply(self, message: Mapping[str, Any]) -> None:
        self.seen = True
        if self.timestamp is None:
            self.timestamp = message.get("timestamp")
        text = content_text(message.get("content"))
        if text:
            self.content.append(text)
        for name, value in sections_of(message).items():
            if value is None:
                self.sections.pop(name, None)
            else:
                self.sections[name] = value
        for tool in _tools(message, "toolsRemoved"):
            self.tools.pop(tool["name"], None)
        for tool in _tools(message, "toolsAdded"):
            self.tools[tool["name"]] = tool

    @property
    def prompt(self) -> str:
        """The whole prompt: instructions, then each section (pi's ``getSystemMessageText``)."""
        parts = ["\n\n".join(self.content), *self.sections.values()]
        return "\n\n".join(p for p in parts if isinstance(p, str) and p)

    def as_message(self) -> JSON | None:
        """The state as one system message, as pi's ``getCurrentSystemMessage`` returns it."""
        if self.timestamp is None and not self.tools:
            return None
        out: JSON = {"role": "system", "content": "\n\n".join(self.content)}
        if self.sections:
            out["sections"] = dict(self.sections)
        if self.tools:
            out["toolsAdded"] = list(self.tools.values())
        out["timestamp"] = self.timestamp if self.timestamp is not None else 0
        return out


def current_system(messages: Iterable[Any]) -> SystemState:
    """Replay every system message of a context (``build_session_context``'s messages)."""
    state = SystemState()
    for m in messages:
        if isinstance(m, Mapping) and m.get("role") == "system":
            state.apply(m)
    return state


def describe_update(message: Mapping[str, Any]) -> list[str]:
    """What a later system message changes, in words: ``instructions added``, ``section skills
    changed``, ``section rules removed``, ``tools \u2212bash +grep`` (a minus sign)."""
    parts: list[str] = []
    if content_text(message.get("content")):
        parts.append("instructions added")
    for name, value in sections_of(message).items():
        parts.append(f"section {name} {'removed' if value is None else 'changed'}")
    tools = [f"\u2212{t['name']}" for t in _tools(message, "toolsRemoved")]
    tools += [f"+{t['name']}" for t in _tools(message, "toolsAdded")]
    if tools:
        parts.append("tools " + " ".join(tools))
    return parts


def carries_system_state(entry: Entry) -> bool:
    """A system message, or a compaction holding the whole prompt at its boundary."""
    if entry.role == "system":
        return True
    return entry.type == "compaction" and isinstance(entry.raw.get("systemMessage"), Mapping)


def leading_system_ids(session: Session) -> set[str]:
    """System messages that start the prompt on their branch: nothing above them in the tree
    carries system state (pi's export calls them the system prompt, later ones updates)."""
    tree = session.tree
    carried: dict[str, bool] = {}
    leading: set[str] = set()
    for node, _depth in tree.walk():  # parents come before their children
        parent = tree.parent.get(node)
        above = carried.get(parent, False) if parent is not None else False
        entry = session.by_id[node]
        if entry.role == "system" and not above:
            leading.add(node)
        carried[node] = above or carries_system_state(entry)
    return leading
