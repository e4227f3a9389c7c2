"""Redacting a session: every string of its header, entries, labels, name and
diagnostics, leaving its structure (ids, parents, types, timestamps, tool pairing, image data)
as it is."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..read.model import JSON, Diagnostic, Entry, Session, SessionHeader
from ..text.cut import Derive
from .engine import Redactor
from .views import as_shown, fast_normal, normalise

__all__ = ["redact_session", "unrewritable"]


# Fields that hold structure, not content: never rewritten, so ids, deep links, tool
# pairing and the tree survive. (If one of them held a secret, the output gate says so.)
_ENTRY_STRUCTURE = frozenset(
    {"id", "parentId", "type", "timestamp", "targetId", "fromId", "firstKeptEntryId"}
)
_HEADER_STRUCTURE = frozenset({"id", "type", "version", "timestamp"})


def _keep(value: JSON, skip: frozenset[str]) -> frozenset[str]:
    """Keys of one object of the session's own structure (an entry, its message, a content
    block) that hold ids, pairing or image pixels, not content."""
    keep = skip
    kind = value.get("type")
    if kind == "image" and _BASE64.fullmatch(str(value.get("data", ""))):
        keep = keep | {"data"}  # base64 pixels: no secret reads in them; the mime is scanned
    elif kind == "toolCall":
        keep = keep | {"id"}
    if "toolCallId" in value:
        keep = keep | {"toolCallId"}
    return keep


_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_NOTHING: frozenset[str] = frozenset()


def _redact_value(root: JSON, r: Redactor, skip: frozenset[str]) -> JSON:
    """A copy of a JSON object with every string (values and keys) redacted; a string under a
    key that names a secret is redacted as the pair the page shows. Only the session's own
    structure (the entry, its ``message``, the blocks of its ``content``) keeps ids and image
    pixels: the same shapes inside custom data or tool arguments are content. Iterative: the
    loader accepts nesting deeper than Python's recursion limit."""

    def copy(value: Any, structural: bool = False) -> Any:
        if isinstance(value, str):
            return r.redact_text(value)
        if isinstance(value, dict):
            new: JSON = {}
            stack.append(
                (value, new, _keep(value, _NOTHING) if structural else _NOTHING, structural)
            )
            return new
        if isinstance(value, list):
            items: list[Any] = []
            stack.append((value, items, _NOTHING, structural))
            return items
        return value

    out: JSON = {}
    stack: list[tuple[Any, Any, frozenset[str], bool]] = [(root, out, _keep(root, skip), True)]
    while stack:
        src, dst, keep, structural = stack.pop()
        if isinstance(src, dict):
            name = _named(src)
            for k, v in src.items():
                if k in keep:
                    dst[k] = v
                elif isinstance(k, str) and isinstance(v, str):
                    # {"name": "DB_PASSWORD", "value": "…"} shows as the pair it is
                    pair = name if name is not None and k in _VALUE_KEYS else k
                    dst[r.redact_text(k)] = r.redact_pair(pair, v)
                else:
                    nested = structural and k in ("message", "content")
                    dst[r.redact_text(k) if isinstance(k, str) else k] = copy(v, nested)
        else:  # the blocks of a structural content list are structure; lists in them are not
            dst.extend(copy(v, structural) for v in src)
    return out


_NAME_KEYS = ("name", "Name", "key", "Key", "ParameterKey", "ParameterName")
_VALUE_KEYS = frozenset({"value", "Value", "ParameterValue"})


def _named(obj: dict[Any, Any]) -> str | None:
    """The name an object gives its value (``{"name": "DB_PASSWORD", "value": "…"}``, as
    Kubernetes, ECS and CloudFormation write environment variables), if it has both."""
    if not any(k in obj for k in _VALUE_KEYS):
        return None
    for k in _NAME_KEYS:
        if isinstance(obj.get(k), str):
            return str(obj[k])
    return None


def _blocks_joined(raw: JSON, redactor: Redactor) -> JSON:
    """The entry with a secret split across text blocks of one content list replaced: the
    blocks show as one text (Markdown and titles join them, a page shows them one under the
    other), so a key cut in two by a block boundary is one key. The token goes where the
    secret starts, and the rest of it is left out of the blocks it ran into."""
    message = raw.get("message")
    holder = message if isinstance(message, dict) else raw
    content = holder.get("content")
    if not isinstance(content, list):
        return raw
    texts = [
        (i, b["text"])
        for i, b in enumerate(content)
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    if len(texts) < 2:
        return raw
    joined = "".join(t for _, t in texts)
    starts = list(itertools.accumulate((len(t) for _, t in texts[:-1]), initial=0))
    if not redactor.spans(fast_normal(joined)):
        return raw
    normal, where = normalise(joined)
    crossing = []
    for start, end, name in redactor.spans(normal):
        o_start, o_end = (start, end) if where is None else (where[start], where[end - 1] + 1)
        first = bisect.bisect_right(starts, o_start) - 1
        if o_end > starts[first] + len(texts[first][1]):  # runs into the next block
            crossing.append((o_start, o_end, redactor.token(name, as_shown(normal[start:end]))))
            redactor.counts[name] += 1
    if not crossing:
        return raw
    new = list(content)
    for k, (i, text) in enumerate(texts):
        lo, hi = starts[k], starts[k] + len(text)
        kept, pos = [], lo
        for o_start, o_end, token in crossing:
            if o_end <= lo or o_start >= hi:
                continue
            kept.append(joined[pos : max(pos, o_start)])
            if o_start >= lo:
                kept.append(token)
            pos = max(pos, min(o_end, hi))
        kept.append(joined[pos:hi])
        new[i] = {**content[i], "text": "".join(kept)}
    return (
        {**raw, "message": {**holder, "content": new}}
        if holder is message
        else {
            **raw,
            "content": new,
        }
    )


def unrewritable(session: Session, redactor: Redactor) -> list[str]:
    """Where a secret sits that redaction leaves alone because links, the tree and tool
    pairing depend on it: ``line 4 (id)``, for the gate's message (never the secret)."""
    found: list[str] = []

    def check(obj: Any, line: int, fields: Iterable[str]) -> None:
        if not isinstance(obj, dict):
            return
        for name in fields:
            value = obj.get(name)
            if isinstance(value, str) and redactor.spans(fast_normal(value)):
                found.append(f"line {line} ({name})")

    header = session.header
    if header is not None:
        check(header.raw, 1, _HEADER_STRUCTURE)
    for e in session.entries:
        check(e.raw, e.line, _ENTRY_STRUCTURE)
        message = e.message
        if message is not None:
            check(message, e.line, ("toolCallId",))
            blocks = message.get("content")
            for block in blocks if isinstance(blocks, list) else ():
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    check(block, e.line, ("id",))
    return found


def redact_session(session: Session, redactor: Redactor) -> Session:
    """A new Session whose header, entries, labels, name and diagnostics hold no secret the
    rules find; ids, parents, types, timestamps, tool pairing and image data are unchanged."""
    header = session.header
    if header is not None:
        raw = _redact_value(header.raw, redactor, _HEADER_STRUCTURE)
        parent = raw.get("parentSession", raw.get("branchedFrom"))
        header = replace(
            header,
            raw=raw,
            cwd=raw["cwd"] if isinstance(raw.get("cwd"), str) else None,
            parent_session=parent if isinstance(parent, str) else None,
        )
    entries: list[Entry] = [
        replace(e, raw=_redact_value(_blocks_joined(e.raw, redactor), redactor, _ENTRY_STRUCTURE))
        for e in session.entries
    ]
    return _rebuilt(
        session,
        header,
        entries,
        labels={k: redactor.redact_text(v, count=False) for k, v in session.labels.items()},
        name=None if session.name is None else redactor.redact_text(session.name, count=False),
        diagnostics=[
            Diagnostic(
                redactor.redact_text(d.path, count=False),
                d.line,
                redactor.redact_text(d.message, count=False),
                d.level,
            )
            for d in session.diagnostics
        ],
        path=redactor.redact_text(session.path, count=False),
        redactor=redactor,
    )


def _rebuilt(
    session: Session,
    header: SessionHeader | None,
    entries: list[Entry],
    *,
    labels: dict[str, str],
    name: str | None,
    diagnostics: list[Diagnostic],
    path: str,
    redactor: Redactor,
) -> Session:
    return Session(
        path=path,
        header=header,
        entries=entries,
        by_id={e.id: e for e in entries},
        tree=session.tree,
        labels=labels,
        name=name,
        diagnostics=diagnostics,
        lines_read=session.lines_read,
        derive=Derive(redactor),
    )
