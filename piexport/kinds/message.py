"""What the kinds of ``message`` entries share: the message's fields and its blocks'."""

from __future__ import annotations

from typing import Any, ClassVar

from ..read.model import Entry
from .base import Kind

BLOCK_KEYS: dict[str, frozenset[str]] = {
    # signatures are opaque provider tokens (long base64), not something a reader can use
    "text": frozenset({"type", "text", "textSignature"}),
    "thinking": frozenset(
        {"type", "thinking", "thinkingSignature", "thoughtSignature", "redacted"}
    ),
    "toolCall": frozenset(
        {"type", "id", "name", "arguments", "thoughtSignature", "partialJson"}
        | {"namespace", "argumentsError"}
    ),
    "image": frozenset({"type", "data", "mimeType"}),
}
"""Fields of the content blocks any message may hold; a block of another type is shown raw."""


class MessageKind(Kind):
    """A ``message`` entry whose message has a known ``role``."""

    type = "message"
    fields = frozenset({"message"})
    whole = False
    in_context = True  # as stored
    message_fields: ClassVar[frozenset[str]] = frozenset({"role", "content", "timestamp"})
    """The message's fields this kind shows in its own way."""

    def other_fields(self, entry: Entry) -> dict[str, Any]:
        out = super().other_fields(entry)
        msg = entry.message
        if msg is None:
            return out
        for k, v in msg.items():
            if k not in self.message_fields:
                out[f"message.{k}"] = v
        content = msg.get("content")
        for i, block in enumerate(content if isinstance(content, list) else ()):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            block_keys = BLOCK_KEYS.get(kind) if isinstance(kind, str) else None
            if block_keys is None:
                continue  # shown raw already
            for k, v in block.items():
                if k not in block_keys:
                    out[f"message.content[{i}].{k}"] = v
        return out
