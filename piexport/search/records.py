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

from ..read.jsonutil import finite_number
from ..read.model import Entry, Session, content_text
from ..read.tree import timestamp_ms
from ..text.ansi import strip_ansi
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


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _arg_text(value: Any, out: list[str], depth: int = 0) -> None:
    """The values of a tool call's arguments, in order (keys are the tool's, not the user's)."""
    if depth > 50:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            _arg_text(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _arg_text(v, out, depth + 1)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        n = finite_number(value)
        if n is not None:
            out.append(str(value))


Part = tuple[str, str, str, bool]
"""(role, tool, text, error) of one searchable part of an entry."""


def _parts(entry: Entry, derive: Derive) -> Iterator[Part]:
    """(role, tool, text, error) of each searchable part of one entry; text joined from
    several parts is made with the session's ``derive``."""
    raw = entry.raw
    kind = entry.type
    if kind == "message":
        msg = raw.get("message")
        yield from _message_parts(msg if isinstance(msg, Mapping) else {}, derive)
    elif kind == "compaction" and isinstance(raw.get("systemMessage"), Mapping):
        yield "summary", "", _s(raw.get("summary")), False
        yield "system", "", _system_text(raw["systemMessage"], derive), False
    elif kind in ("compaction", "branch_summary"):
        yield "summary", "", _s(raw.get("summary")), False
    elif kind == "custom_message":
        text = content_text(raw.get("content"), "\n\n", derive)
        yield (
            "custom",
            "",
            derive.join(filter(None, [_s(raw.get("customType")), text]), "\n"),
            False,
        )
    elif kind == "label":
        yield "label", "", _s(raw.get("label")), False
    elif kind == "context_edit":  # what the model saw instead of an earlier entry
        rep = raw.get("replacement")
        text = content_text(rep.get("content"), "\n\n", derive) if isinstance(rep, Mapping) else ""
        yield "custom", "", text, False
    elif kind == "usage":
        what = [
            _s(raw.get("kind")),
            derive.join(filter(None, [_s(raw.get("provider")), _s(raw.get("model"))]), "/"),
        ]
        yield "other", "", derive.join(filter(None, [*what, _s(raw.get("note"))]), "\n"), False
    elif kind == "session_info":
        yield "name", "", _s(raw.get("name")), False
    elif kind not in ("model_change", "thinking_level_change", "custom"):
        values: list[str] = []
        _arg_text({k: v for k, v in raw.items() if k not in ("id", "parentId", "type")}, values)
        yield "other", "", derive.join(values, "\n"), False


def _message_parts(msg: Mapping[str, Any], derive: Derive) -> Iterator[Part]:
    role = msg.get("role")
    content = msg.get("content")
    if role == "user":
        yield "user", "", content_text(content, "\n\n", derive), False
    elif role == "assistant":
        yield from _assistant_parts(msg, derive)
    elif role == "toolResult":
        yield from _result_parts(msg, derive)
    elif role == "system":  # the prompt and tools (pi 1.5)
        yield "system", "", _system_text(msg, derive), False
    elif role == "bashExecution":
        code = msg.get("exitCode")
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        yield "tool", "bash", _s(msg.get("command")), False
        yield "output", "bash", strip_ansi(_s(msg.get("output"))), failed
    elif role in ("branchSummary", "compactionSummary"):
        yield "summary", "", _s(msg.get("summary")), False
    else:  # custom and unknown roles
        yield "custom", "", content_text(content, "\n\n", derive), False


def _assistant_parts(msg: Mapping[str, Any], derive: Derive) -> Iterator[Part]:
    """What it said (with its error), its thinking, and its tool calls."""
    content = msg.get("content")
    failed = msg.get("stopReason") in ("error", "aborted")
    texts, thinking, calls = [], [], []
    tools: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        t = block.get("type")
        if t == "text":
            texts.append(_s(block.get("text")))
        elif t == "thinking":
            thinking.append(_s(block.get("thinking")))
        elif t == "toolCall":
            name = _s(block.get("name"))
            tools.append(name)
            parts = [name]
            _arg_text(block.get("arguments"), parts)
            calls.append(derive.join(parts, "\n"))
    if isinstance(content, str):
        texts.append(content)
    error = _s(msg.get("errorMessage"))
    if texts or error or failed:
        said = derive.join([*texts, error] if error else texts, "\n\n").strip("\n")
        yield "assistant", "", said, failed
    if thinking:
        yield "thinking", "", derive.join(thinking, "\n\n"), False
    if calls:
        tool_names = derive.join(dict.fromkeys(tools), " ")
        yield "tool", tool_names, derive.join(calls, "\n\n"), False


def _result_parts(msg: Mapping[str, Any], derive: Derive) -> Iterator[Part]:
    """A tool's output, and the calls it made to other tools while it ran (pi 1.5)."""
    yield (
        "output",
        _s(msg.get("toolName")),
        strip_ansi(content_text(msg.get("content"), "\n\n", derive)),
        msg.get("isError") is True,
    )
    nested = msg.get("nestedCalls")
    done = nested.get("calls") if isinstance(nested, Mapping) else None
    if isinstance(done, list) and done:  # calls the tool made to other tools
        names, texts = [], []
        for c in done:
            if isinstance(c, Mapping):
                names.append(_s(c.get("name")))
                parts = [_s(c.get("name"))]
                _arg_text(c.get("arguments"), parts)
                parts.append(_s(c.get("error")))
                texts.append(derive.join(filter(None, parts), "\n"))
        names_seen = derive.join(dict.fromkeys(filter(None, names)), " ")
        failed = any(isinstance(c, Mapping) and c.get("status") == "error" for c in done)
        yield "tool", names_seen, derive.join(texts, "\n\n"), failed


def _system_text(msg: Mapping[str, Any], derive: Derive) -> str:
    """A system message's words: its instructions, each section, each tool's name and
    description (the parameters are the tool's, not the user's), joined with ``derive``."""
    parts = [content_text(msg.get("content"), "\n\n", derive)]
    sections = msg.get("sections")
    if isinstance(sections, Mapping):
        parts += [f"{name}\n{_s(v)}" for name, v in sections.items()]
    tools = msg.get("toolsAdded")
    for t in tools if isinstance(tools, list) else ():
        if isinstance(t, Mapping):
            parts.append(f"{_s(t.get('name'))}: {_s(t.get('description'))}")
    return derive.join((p for p in parts if p), "\n\n")


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
