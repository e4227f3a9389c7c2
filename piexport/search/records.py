"""What search indexes: one record per searchable part of an entry, on every branch.

An assistant message gives up to three records (its text, its thinking, its tool calls), a
tool result one (``output``), a ``!`` command two (the command as ``tool``, its output as
``output``). Summaries, custom messages, labels and session names are records too. Image
data, thinking signatures and ids are never text; words longer than ``tokens.MAX_WORD``
(base64, hashes) are left out when the text is split into terms.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..kinds import Part, kind_of
from ..read.model import Entry, Session
from ..read.tree import timestamp_ms
from ..text.cut import Derive

ROLES = (
    "user",
    "assistant",
    "thinking",
    "tool",
    "output",
    "summary",
    "custom",
    "label",
    "name",
    "other",
    "system",
)
"""Every ``role:`` a record can have (the first six are the issue's; the rest are kinds)."""

FIELDS = (
    "user",
    "assistant",
    "thinking",
    "tool",
    "output",
    "summary",
    "custom",
    "label",
    "name",
    "system",
)
"""What ``--search-fields`` chooses from; ``other`` (unknown entry kinds) goes with custom."""

MAX_RECORD_CHARS = 2_000_000
"""Text past this in one record is not indexed (the page still shows all of it)."""


@dataclass(frozen=True, slots=True)
class Record:
    entry_id: str
    dom: str
    """The entry's DOM id on its page: the result links to ``page#dom``."""
    role: str
    tool: str
    model: str
    """``provider/model`` in use at this entry (the assistant's own, else the last seen)."""
    time: int | None
    """Milliseconds since the epoch."""
    error: bool
    label: str
    text: str


def _parts(entry: Entry, derive: Derive) -> Iterator[Part]:
    """(role, tool, text, error) of each searchable part of one entry, by its kind; text
    joined from several parts is made with the session's ``derive``."""
    return kind_of(entry).parts(entry, derive)


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def session_records(session: Session, fields: frozenset[str] | None = None) -> list[Record]:
    """Every searchable part of every entry, in file order (all branches)."""
    from ..page.view import dom_ids  # here: the CLI reads FIELDS without loading the view

    doms = dom_ids(session)
    derive = session.derive
    out: list[Record] = []
    model = ""
    for e in session.entries:
        raw = e.raw
        if e.type == "model_change":
            model = derive.join(
                filter(None, [_s(raw.get("provider")), _s(raw.get("modelId"))]), "/"
            )
        msg = raw.get("message") if e.type == "message" else None
        own = model
        if isinstance(msg, Mapping) and msg.get("role") == "assistant":
            own = derive.join(filter(None, [_s(msg.get("provider")), _s(msg.get("model"))]), "/")
            own = own or model
            model = own
        when = timestamp_ms(e.timestamp)
        label = session.labels.get(e.id, "")
        for role, tool, text, error in _parts(e, derive):
            wanted = role if role != "other" else "custom"
            if fields is not None and wanted not in fields:
                continue
            if not text.strip() and not error and not label:
                continue
            out.append(
                Record(
                    e.id,
                    doms[e.id],
                    role,
                    tool,
                    own,
                    when,
                    error,
                    label,
                    derive.block(text, MAX_RECORD_CHARS),  # a cut: a new end
                )
            )
    return out
