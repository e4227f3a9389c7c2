"""Read a session file into the model: bytes → lines → orjson → migrate → tree.

Each line is parsed on its own, so one bad line costs only itself. Every non-blank line
ends up as the header, an entry, or a diagnostic that names it (``path:line: reason``);
nothing disappears without a word. The loader never writes to its input.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from .errors import InputError
from .migrate import CURRENT_VERSION, migrate
from .model import JSON, Diagnostic, Entry, Session, SessionHeader
from .redact import shorten
from .tree import build_tree, resolve_labels, resolve_name, timestamp_ms

MAX_LINE_BYTES = 256 * 1024 * 1024
"""Lines longer than this are skipped with a warning instead of being held in memory."""
_CHUNK = 1024 * 1024
_MAX_SALVAGE_TRIES = 64
_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class _Parsed:
    line: int
    obj: JSON


def load_session(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Session:
    """Load one session file (a path, or a binary stream such as stdin).

    Raises :class:`InputError` only when the file cannot be read or holds no session data
    at all; every smaller problem becomes a :class:`Diagnostic` on the session.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or str(path)
        try:
            with path.open("rb") as stream, gc_paused():
                return _load(stream, label, max_line_bytes)
        except OSError as exc:
            msg = f"{label}: cannot read: {exc.strerror or exc}"
            raise InputError(msg) from exc
    with gc_paused():
        return _load(source, name or "<stdin>", max_line_bytes)


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cycle collection while a big object graph is built: everything made survives, so
    each collection would walk the growing graph for nothing (a third of the load time of
    a 20,000-entry session). The graph holds no cycles to collect."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load(stream: IO[bytes], label: str, max_line_bytes: int) -> Session:
    diags: list[Diagnostic] = []
    parsed: list[_Parsed] = []
    nonblank = 0
    for number, raw, oversize, terminated in _read_lines(stream, max_line_bytes):
        if oversize:
            nonblank += 1
            diags.append(
                Diagnostic(
                    label,
                    number,
                    f"line is {oversize} bytes, over the {max_line_bytes}-byte limit; skipped",
                )
            )
            continue
        if number == 1 and raw.startswith(_BOM):
            raw = raw[len(_BOM) :]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip():
            continue
        nonblank += 1
        for obj in _parse_line(raw, number, label, diags, terminated):
            parsed.append(_Parsed(number, obj))

    if not parsed:
        if nonblank:
            msg = (
                f"{label}: no session entries found: 0 of {nonblank} lines parsed "
                f"(not a pi session file?)"
            )
        else:
            msg = f"{label}: no session entries found: the file is empty"
        raise InputError(msg)

    header, version, objects = _split_header(parsed, label, diags)
    migrate([p.obj for p in objects], [p.line for p in objects], version)
    entries = _make_entries(objects, label, diags)
    by_id = {e.id: e for e in entries}
    tree = build_tree(entries, by_id, label, diags)
    diags.sort(key=lambda d: d.line)  # stable: problems of one line keep their order
    return Session(
        path=label,
        header=header,
        entries=entries,
        by_id=by_id,
        tree=tree,
        labels=resolve_labels(entries),
        name=resolve_name(entries),
        diagnostics=diags,
        lines_read=nonblank,
    )


def _read_lines(stream: IO[bytes], limit: int) -> Iterator[tuple[int, bytes, int, bool]]:
    """Yield (line number, bytes, size if over the limit else 0, ended by a newline).

    Splits on ``\\n`` only, never on U+2028 or U+0085 (which JSON writers leave raw).

    A line over ``limit`` is drained in chunks and reported by its size, so a 300 MB
    line never sits in memory whole.
    """
    number = 0
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            size = len(raw)
            while True:
                chunk = stream.readline(_CHUNK)
                size += len(chunk)
                if not chunk or chunk.endswith(b"\n"):
                    break
            yield number, b"", size, True
            continue
        if raw.endswith(b"\n"):
            yield number, raw[:-1], 0, True
        else:
            yield number, raw, 0, False
            return


def _parse_line(
    raw: bytes, number: int, label: str, diags: list[Diagnostic], terminated: bool
) -> list[JSON]:
    """Parse one line; return the objects it yields (usually one, none when hopeless)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return _salvage(raw, number, label, diags, str(exc), terminated)
    if isinstance(value, dict):
        if _has_float_id(value):
            value = _reparse_exact(raw, value)
        return [value]
    diags.append(Diagnostic(label, number, f"expected a JSON object, got {_kind(value)}; skipped"))
    return []


def _salvage(
    raw: bytes, number: int, label: str, diags: list[Diagnostic], why: str, terminated: bool
) -> list[JSON]:
    """Recover what orjson refused: bad UTF-8, lone surrogates, a record glued to a stub."""
    try:
        text = raw.decode("utf-8")
        bad_utf8 = False
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        bad_utf8 = True
    try:
        value: Any = json.loads(text)
    except RecursionError:
        diags.append(Diagnostic(label, number, "JSON nested too deeply to read; skipped"))
        return []
    except ValueError:
        value = None
    if isinstance(value, dict):
        fixed = _repair_surrogates(value)
        if bad_utf8:
            diags.append(Diagnostic(label, number, "invalid UTF-8 replaced with U+FFFD"))
        if fixed:
            diags.append(Diagnostic(label, number, "lone surrogate escapes replaced with U+FFFD"))
        if not bad_utf8 and not fixed:
            diags.append(Diagnostic(label, number, f"parsed only by the fallback reader ({why})"))
        return [value]
    if value is not None:
        diags.append(
            Diagnostic(label, number, f"expected a JSON object, got {_kind(value)}; skipped")
        )
        return []
    # A cut-off record followed by a complete one on the same line (a crashed writer that
    # appended again): the last `{"` from which the rest of the line parses is kept.
    start = 1
    for _ in range(_MAX_SALVAGE_TRIES):
        pos = text.find('{"', start)
        if pos < 0:
            break
        try:
            tail = json.loads(text[pos:])
        except (ValueError, RecursionError):
            start = pos + 1
            continue
        if isinstance(tail, dict):
            _repair_surrogates(tail)
            diags.append(
                Diagnostic(
                    label,
                    number,
                    f"cut-off record before column {pos + 1} "
                    "skipped; the complete record after it was kept",
                )
            )
            return [tail]
        start = pos + 1
    if not terminated and not text.rstrip().endswith("}"):
        diags.append(
            Diagnostic(label, number, "truncated at end of file (an interrupted write?); skipped")
        )
    else:
        diags.append(Diagnostic(label, number, f"not valid JSON ({why}); skipped"))
    return []


def _repair_surrogates(root: JSON) -> bool:
    """Replace lone surrogates (which json accepts and UTF-8 cannot encode) in place."""
    changed = False
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, val in list(items):
            if isinstance(val, str):
                good = _fix_str(val)
                if good is not val:
                    node[key] = good
                    changed = True
            elif isinstance(val, (dict, list)):
                stack.append(val)
            if isinstance(node, dict) and isinstance(key, str) and _fix_str(key) is not key:
                node[_fix_str(key)] = node.pop(key)
                changed = True
    return changed


def _fix_str(s: str) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return s


def _has_float_id(obj: JSON) -> bool:
    return isinstance(obj.get("id"), float) or isinstance(obj.get("parentId"), float)


def _reparse_exact(raw: bytes, fallback: JSON) -> JSON:
    """orjson turns integers past 64 bits into floats; two such ids would collide."""
    try:
        exact = json.loads(raw)
    except (ValueError, RecursionError):
        return fallback
    return exact if isinstance(exact, dict) else fallback


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def _split_header(
    parsed: list[_Parsed], label: str, diags: list[Diagnostic]
) -> tuple[SessionHeader | None, int, list[_Parsed]]:
    """Pick the header (the first ``session`` object) and the version to migrate from."""
    header_at = next((i for i, p in enumerate(parsed) if p.obj.get("type") == "session"), None)
    header: SessionHeader | None = None
    if header_at is None:
        diags.append(Diagnostic(label, 0, "no session header; entries shown without one"))
        # A headerless file whose entries carry no ids at all is shaped like version 1.
        has_ids = any("id" in p.obj for p in parsed)
        version = CURRENT_VERSION if has_ids else 1
    else:
        p = parsed[header_at]
        if header_at != 0:
            diags.append(Diagnostic(label, p.line, "session header is not the first record"))
        header = _make_header(p, label, diags)
        version = header.version
    for i, p in enumerate(parsed):
        if i != header_at and p.obj.get("type") == "session":
            diags.append(Diagnostic(label, p.line, "another session header; ignored"))
    # Headers stay in the list while migrating: v1 compaction indexes count them.
    return header, version, parsed


def _make_header(p: _Parsed, label: str, diags: list[Diagnostic]) -> SessionHeader:
    obj = p.obj
    raw_version = obj.get("version", 1)
    if isinstance(raw_version, bool) or not isinstance(raw_version, (int, float)):
        diags.append(
            Diagnostic(
                label, p.line, f"header version {raw_version!r} is not a number; read as version 3"
            )
        )
        version = CURRENT_VERSION
    else:
        version = int(raw_version)
    sid = obj.get("id")
    if not isinstance(sid, str):
        diags.append(Diagnostic(label, p.line, "header has no string id"))
        sid = "" if sid is None else str(sid)
    parent = obj.get("parentSession")
    if parent is None:
        parent = obj.get("branchedFrom")
    return SessionHeader(
        id=sid,
        version=version,
        timestamp=_str_or_none(obj.get("timestamp")),
        cwd=_str_or_none(obj.get("cwd")),
        parent_session=_str_or_none(parent),
        line=p.line,
        raw=obj,
    )


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _make_entries(objects: list[_Parsed], label: str, diags: list[Diagnostic]) -> list[Entry]:
    """Lift id/parent/type out of each object; give every entry a unique string id."""
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for p in objects:
        obj = p.obj
        if obj.get("type") == "session":
            continue
        raw_id = obj.get("id")
        if isinstance(raw_id, str) and raw_id:
            eid = raw_id
        elif raw_id is None or raw_id == "":
            eid = f"line:{p.line}"
            diags.append(Diagnostic(label, p.line, f"entry has no id; called it {eid}"))
        else:
            eid = _id_text(raw_id)
            diags.append(Diagnostic(label, p.line, f"entry id {eid} is not a string"))
        if eid in seen:
            seen[eid] += 1
            new = f"{eid}~{seen[eid]}"
            while new in seen:
                seen[eid] += 1
                new = f"{eid}~{seen[eid]}"
            diags.append(Diagnostic(label, p.line, f"duplicate id {eid}; shown as {new}"))
            eid = new
        seen.setdefault(eid, 1)
        raw_parent = obj.get("parentId")
        if raw_parent is None or isinstance(raw_parent, str):
            parent = raw_parent
        elif isinstance(raw_parent, (int, float)) and not isinstance(raw_parent, bool):
            parent = _id_text(raw_parent)
        else:
            diags.append(
                Diagnostic(label, p.line, f"parentId is {_kind(raw_parent)}; treated as a root")
            )
            parent = None
        etype = obj.get("type")
        if not isinstance(etype, str):
            diags.append(Diagnostic(label, p.line, "entry has no type; shown raw"))
            etype = ""
        elif etype == "message" and not isinstance(obj.get("message"), dict):
            diags.append(Diagnostic(label, p.line, "message is not an object; shown raw"))
        stamp = obj.get("timestamp")
        if not _looks_iso(stamp) and timestamp_ms(stamp) is None:
            diags.append(Diagnostic(label, p.line, f"timestamp {_short(stamp)} is not readable"))
        entries.append(
            Entry(
                id=eid,
                parent_id=parent,
                type=etype,
                timestamp=_str_or_none(obj.get("timestamp")),
                line=p.line,
                index=len(entries),
                raw=obj,
            )
        )
    return entries


def _looks_iso(value: Any) -> bool:
    """A cheap check that keeps the timestamp regex off the common path."""
    return isinstance(value, str) and len(value) >= 20 and value[4] == "-" and value[10] == "T"


def _short(value: Any) -> str:
    text = repr(value)
    return shorten(text, 40)


def _id_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value)
