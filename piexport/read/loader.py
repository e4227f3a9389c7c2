"""Read a session file into the model: bytes → lines → orjson → migrate → tree.

Each line is parsed on its own, so one bad line costs only itself. Every non-blank line
ends up as the header, an entry, or a diagnostic that names it (``path:line: reason``);
nothing disappears without a word. The loader never writes to its input.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from ..errors import InputError
from ..text.cut import shorten
from .figures import time_problem, usage_problems, usage_source
from .jsonutil import MAX_DEPTH, OddNumber, cap_depth, dumps, finite_number, may_nest_deeply
from .migrate import CURRENT_VERSION, migrate
from .model import JSON, KNOWN_ENTRY_TYPES, Diagnostic, Entry, Session, SessionHeader
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
    part: int = 1
    """1 for the first record on its line; 2, 3… for records glued after it."""


def load_session(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    pending_tail: bool = False,
) -> Session:
    """Load one session file (a path, or a binary stream such as stdin).

    Raises :class:`InputError` only when the file cannot be read or holds no session data
    at all; every smaller problem becomes a :class:`Diagnostic` on the session.

    ``pending_tail``: a last line with no newline is being written (``site --watch``): it is
    left for the next load instead of being reported as cut off. A finished file is read
    the same either way.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or str(path)
        try:
            with path.open("rb") as stream, gc_paused():
                return _load(stream, label, max_line_bytes, pending_tail)
        except OSError as exc:
            raise InputError(_cannot_read(label, exc)) from exc
    with gc_paused():
        return _load(source, name or "<stdin>", max_line_bytes, pending_tail)


def _cannot_read(label: str, exc: OSError) -> str:
    if isinstance(exc, IsADirectoryError):
        return f"{label}: is a folder, not a session file"
    return f"{label}: cannot read: {exc.strerror or exc}"


_PI_TYPES = KNOWN_ENTRY_TYPES | {"session"}


def _pi_record(obj: JSON) -> bool:
    """A session header or an entry of a type pi writes: a file with none is not a pi
    session (a log, another tool's JSONL), where one with any is shown whole."""
    kind = obj.get("type")
    return isinstance(kind, str) and kind in _PI_TYPES


def check_session_file(path: Path) -> None:
    """Raise :class:`InputError`, as :func:`load_session` would, when ``path`` cannot be
    read or holds no pi session; cheap for a session (its first line is its header)."""
    try:
        with path.open("rb") as stream:
            for number, raw, _oversize, _ended in _read_lines(stream, MAX_LINE_BYTES):
                if number == 1 and raw.startswith(_BOM):
                    raw = raw[len(_BOM) :]
                if not raw.strip():
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and _pi_record(obj):
                    return
    except OSError as exc:
        raise InputError(_cannot_read(str(path), exc)) from exc
    load_session(path)  # nothing found on the quick look: the loader says why


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


def _load(stream: IO[bytes], label: str, max_line_bytes: int, pending_tail: bool) -> Session:
    diags: list[Diagnostic] = []
    parsed: list[_Parsed] = []
    nonblank = 0
    for number, raw, oversize, terminated in _read_lines(stream, max_line_bytes):
        if pending_tail and not terminated:
            break  # still being written: read when its newline comes (or the file settles)
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
        deep = may_nest_deeply(raw)
        for part, obj in enumerate(_parse_line(raw, number, label, diags, terminated), 1):
            if deep and cap_depth(obj):
                diags.append(
                    Diagnostic(
                        label,
                        number,
                        f"nested more than {MAX_DEPTH} levels deep: the deeper part is "
                        "shown as JSON text",
                    )
                )
            parsed.append(_Parsed(number, obj, part))

    if not parsed:
        if nonblank:
            msg = (
                f"{label}: no session entries found: 0 of {nonblank} lines parsed "
                f"(not a pi session file?)"
            )
        else:
            msg = f"{label}: no session entries found: the file is empty"
        raise InputError(msg)

    if not any(_pi_record(p.obj) for p in parsed):
        msg = (
            f"{label}: not a pi session file: no session header and no pi entry in its "
            f"{len(parsed)} record(s)"
        )
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
        if may_hold_wide_int(raw):
            value = _reparse_exact(raw, value, number, label, diags)
        return [value]
    diags.append(Diagnostic(label, number, f"expected a JSON object, got {_kind(value)}; skipped"))
    return []


def _salvage(
    raw: bytes, number: int, label: str, diags: list[Diagnostic], why: str, terminated: bool
) -> list[JSON]:
    """Recover what orjson refused: bad UTF-8, lone surrogates, numbers no double holds,
    records glued on one line (to each other, or after a cut-off stub)."""
    try:
        text = raw.decode("utf-8")
        bad_utf8 = False
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        bad_utf8 = True
    odd: list[str] = []
    too_deep = False
    try:
        value: Any = loads_exact(text, odd)
    except RecursionError:
        value, too_deep = None, True
    except ValueError:
        value = None
    if value is not None and not isinstance(value, dict):
        diags.append(
            Diagnostic(label, number, f"expected a JSON object, got {_kind(value)}; skipped")
        )
        return []
    records: list[JSON] = []
    notes: list[str] = []
    if isinstance(value, dict):
        records = [value]
    else:
        del odd[:]
        records, notes = _split_records(text, odd)
    if not records:
        if too_deep:
            diags.append(Diagnostic(label, number, "JSON nested too deeply to read; skipped"))
        elif not terminated and not text.rstrip().endswith("}"):
            diags.append(
                Diagnostic(
                    label, number, "truncated at end of file (an interrupted write?); skipped"
                )
            )
        else:
            diags.append(Diagnostic(label, number, f"not valid JSON ({why}); skipped"))
        return []
    fixed = False
    for record in records:
        fixed = _repair_surrogates(record) or fixed
    if notes:
        diags.append(Diagnostic(label, number, "; ".join(notes)))
    if bad_utf8:
        diags.append(Diagnostic(label, number, "invalid UTF-8 replaced with U+FFFD"))
    if fixed:
        diags.append(Diagnostic(label, number, "lone surrogate escapes replaced with U+FFFD"))
    if odd:
        diags.append(Diagnostic(label, number, _odd_note(odd)))
    elif not bad_utf8 and not fixed and not notes:
        diags.append(Diagnostic(label, number, f"parsed only by the fallback reader ({why})"))
    return records


_SPACE = re.compile(r"[ \t\r\n]*")


def _split_records(text: str, odd: list[str]) -> tuple[list[JSON], list[str]]:
    """Every complete record on one line, in order, and what was skipped between them.

    Real files hold two records on a line (a finished message directly followed by the next
    one), or a record cut off by a crashed writer and then a complete one. A record that
    starts where the previous one ended is top-level, so it is kept as it parses. After a
    cut-off stub, the next record is the first ``{"`` from which an object parses that is
    followed by the end of the line or another ``{``: that passes over objects nested in
    the stub, which are followed by ``,``, ``]`` or ``}``. Each record is read once from
    where it starts, and failed tries are capped, so the cost is linear in the line.
    """
    decoder = _decoder(odd)
    records: list[JSON] = []
    cut: list[int] = []
    tail: str | None = None
    size = len(text)
    # reading that ends in failure is bounded by a multiple of the line, however it is cut
    pos, budget = 0, 4 * size + _CHUNK
    while True:
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= size:
            break
        found, end = _object_at(decoder, text, pos)
        if found is not None:
            records.append(found)
            pos = end
            continue
        budget -= end - pos
        # a cut-off record starts here: find where the next complete one starts
        stub, nxt = pos, None
        for _ in range(_MAX_SALVAGE_TRIES):
            at = text.find('{"', pos + 1)
            if at < 0 or budget < 0:
                break
            pos = at
            found, end = _object_at(decoder, text, at)
            if found is None:
                budget -= end - at
                continue
            after = _SPACE.match(text, end).end()  # type: ignore[union-attr]
            if after >= size or text[after] == "{":
                nxt = (found, end)
                break
            budget -= end - at
        if nxt is None:
            tail = f"cut-off record from column {stub + 1} to the end of the line skipped"
            break
        cut.append(pos + 1)
        records.append(nxt[0])
        pos = nxt[1]
    notes: list[str] = []
    if len(records) > 1:
        notes.append(
            f"{len(records)} records on one line; {'both' if len(records) == 2 else 'all'} kept"
        )
    kept = "; the complete record after it was kept" if len(records) == 1 else ""
    if len(cut) <= 3:
        notes += [f"cut-off record before column {column} skipped{kept}" for column in cut]
    else:
        shown = ", ".join(map(str, cut[:3]))
        notes.append(f"{len(cut)} cut-off records skipped (before columns {shown}, …)")
    if tail is not None:
        notes.append(tail)
    return records, notes


def _object_at(decoder: json.JSONDecoder, text: str, pos: int) -> tuple[JSON | None, int]:
    """The JSON object that starts at ``pos`` and where it ends; or None and where reading
    it failed."""
    if not text.startswith("{", pos):
        return None, pos
    try:
        value, end = decoder.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        return None, exc.pos
    except (ValueError, RecursionError):
        return None, len(text)
    return (value, end) if isinstance(value, dict) else (None, end)


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


_MAX_INT_DIGITS = 4000
_VALUE_DIGITS = bytes.maketrans(b"0123456789,[", b"0000000000::")
_WIDE = b":" + b"0" * 19
_WIDE_NEGATIVE = b":-" + b"0" * 19


def may_hold_wide_int(raw: bytes) -> bool:
    """Whether a value of 19 or more digits starts somewhere (after ``:``, ``,`` or ``[``):
    an integer past 64 bits needs them, and orjson reads those as floats. Digits inside
    strings rarely follow those; a false alarm only costs reading the line again. Done
    with bytes.translate and substring search: a regex costs a third of the load time."""
    values = raw.translate(_VALUE_DIGITS, b" \t\r\n")
    return _WIDE in values or _WIDE_NEGATIVE in values


def loads_exact(text: str | bytes, odd: list[str] | None = None) -> Any:
    """The stdlib reader, keeping every number as written: integers exact at any width,
    ``1e999`` and ``NaN``/``Infinity`` as :class:`OddNumber` (never a bare inf or nan).
    Those numbers are appended to ``odd`` as written."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return _decoder(odd if odd is not None else []).decode(text)


def _decoder(odd: list[str]) -> json.JSONDecoder:
    """A decoder with ``loads_exact``'s number rules, for reading records one at a time."""

    def odd_number(text: str) -> OddNumber:
        odd.append(text)
        return OddNumber(text)

    def number(text: str) -> float:
        value = float(text)
        return value if math.isfinite(value) else odd_number(text)

    def integer(text: str) -> int | float:
        # Python refuses to convert (and to print) integers past 4,300 digits
        return int(text) if len(text) <= _MAX_INT_DIGITS else odd_number(text)

    return json.JSONDecoder(parse_float=number, parse_int=integer, parse_constant=odd_number)


def _odd_note(odd: list[str]) -> str:
    shown = ", ".join(dict.fromkeys(t if len(t) <= 20 else t[:19] + "…" for t in odd[:5]))
    return (
        f"number{'s' if len(odd) > 1 else ''} out of range ({shown}): shown as written, "
        "not counted in figures"
    )


def _reparse_exact(
    raw: bytes, fallback: JSON, number: int, label: str, diags: list[Diagnostic]
) -> JSON:
    """orjson turns integers past 64 bits into floats (two such ids would collide, and a
    number would not show as written): read such a line again, exactly."""
    try:
        exact = loads_exact(raw)
    except RecursionError:
        diags.append(
            Diagnostic(
                label, number, "integers past 64 bits shown rounded (the line nests too deeply)"
            )
        )
        return fallback
    except ValueError:
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
    if finite_number(raw_version) is None:
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
    if not _looks_recent(obj.get("timestamp")):
        _check_time(obj.get("timestamp"), "header timestamp", label, p.line, diags)
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
            eid = f"line:{p.line}" if p.part == 1 else f"line:{p.line}.{p.part}"
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
        if not _looks_recent(stamp):
            _check_time(stamp, "timestamp", label, p.line, diags)
        _check_usages(obj, label, p.line, diags)
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


def _looks_recent(value: Any) -> bool:
    """A cheap check that keeps the timestamp regex off the common path: an ISO time well
    inside the years the site charts (see ``figures``)."""
    return (
        isinstance(value, str)
        and len(value) >= 20
        and value[4] == "-"
        and value[10] == "T"
        and "2000" < value[:4] < "2099"
    )


def _check_time(stamp: Any, what: str, label: str, line: int, diags: list[Diagnostic]) -> None:
    """A time that cannot be read (an entry's), or that the site cannot chart, named with
    its line."""
    ms = timestamp_ms(stamp)
    if ms is None:
        if what == "timestamp":
            diags.append(Diagnostic(label, line, f"{what} {_short(stamp)} is not readable"))
        return
    why = time_problem(ms)
    if why is not None:
        diags.append(Diagnostic(label, line, f"{what} {_short(stamp)} {why}"))


_WHERE = {
    "turns": "message usage",
    "tool work": "tool result usage",
    "compaction summaries": "compaction usage",
    "branch summaries": "branch summary usage",
}


def _check_usages(obj: JSON, label: str, line: int, diags: list[Diagnostic]) -> None:
    """Token counts and costs that cannot be true: named, and (``report.stats``) left out of
    every total with the rest of their usage object."""
    source = usage_source(obj)
    if source is not None:
        where = _WHERE.get(source.kind, "usage entry")
        problems = list(usage_problems(source.usage))
        if problems:
            shown = "; ".join(problems[:3]) + ("; …" if len(problems) > 3 else "")
            diags.append(
                Diagnostic(
                    label, line, f"{where}: {shown}: its figures are left out of every total"
                )
            )


def _short(value: Any) -> str:
    text = repr(value)
    return shorten(text, 40)


def _id_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return dumps(value, indent=False)
    return str(value)
