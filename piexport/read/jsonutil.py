"""JSON in and out that never fails on what the loader accepted.

Session files hold numbers JSON allows but a double cannot (``1e999``), literals JSON does
not allow at all (``NaN``, ``Infinity``: Python writers emit them), integers past 64 bits,
and nesting deeper than orjson's 255 levels. The loader keeps such a number as an
:class:`OddNumber`, which shows as written; every figure treats it as unknown
(:func:`finite_number`), and JSON output writes it as a string, so it stays valid JSON.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson


class OddNumber(float):
    """A number from the file that no double holds (``1e999``, ``-1e999``, ``NaN``): a float
    (infinite or NaN) that prints as the file wrote it."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> OddNumber:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        obj = super().__new__(cls, value)
        obj.text = text
        return obj

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return self.text

    def __reduce__(self) -> tuple[Any, ...]:  # pickled to worker processes
        return (OddNumber, (self.text,))


class DeepJSON(str):
    """A part of a record nested deeper than ``MAX_DEPTH``, kept as its JSON text: shown as
    that text, written back into JSON output as the structure it was. Past that depth,
    Python's own ``repr`` and recursion limits would crash whatever touches the value."""

    __slots__ = ()


MAX_DEPTH = 100
"""Levels of nesting kept as objects and arrays; deeper parts become :class:`DeepJSON`."""


def cap_depth(root: dict[str, Any]) -> bool:
    """Replace, in place, every non-empty object or array ``MAX_DEPTH`` levels down with its
    JSON text; True when anything was replaced. Iterative, so any depth is safe."""
    changed = False
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items):
            if isinstance(value, (dict, list)) and value:
                if depth + 1 >= MAX_DEPTH:
                    node[key] = DeepJSON(dumps(value, indent=False))
                    changed = True
                else:
                    stack.append((value, depth + 1))
    return changed


def may_nest_deeply(raw: bytes) -> bool:
    """Cheap necessary condition for a line to nest ``MAX_DEPTH`` levels: enough brackets."""
    return raw.count(b"[") + raw.count(b"{") >= MAX_DEPTH


INT64 = 2**63
"""Counts at or past this are out of range: no tool writes them, and sums must stay exact."""


def finite_number(value: Any) -> float | int | None:
    """The value when it is a usable number (not a bool, finite, within 64 bits), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if not -INT64 < value < INT64:
        return None
    return value


def _default(value: Any) -> Any:
    if isinstance(value, OddNumber):
        return value.text
    if isinstance(value, DeepJSON):
        return orjson.Fragment(str.__str__(value))
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError


_HIDDEN = re.compile(
    "[\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
"""What JSON writers leave raw and a reader of the JSON does not see, or sees changed: C1
controls (U+009B starts a terminal escape), bidi controls, characters that draw as nothing
(zero-width, fillers, variation selectors, tags), line and paragraph separators."""


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def dumps(value: Any, *, indent: bool = True) -> str:
    """Serialise as strict JSON (what ``orjson.loads`` accepts): orjson when it can; past
    64-bit integers or 255 levels of nesting, a plain writer with no depth limit."""
    try:
        opts = orjson.OPT_INDENT_2 if indent else 0
        opts |= orjson.OPT_PASSTHROUGH_SUBCLASS
        return orjson.dumps(value, default=_default, option=opts).decode()
    except TypeError:
        return _dumps_any(value, indent)


SHOWN_LEVELS = 4
"""JSON a page or a Markdown file shows is indented this many levels deep; what is deeper
stays on one line. Indenting every level makes a value's text grow with its size times its
depth (400 levels of 8 KB arguments: 15 times the file); this way it is at most a small
multiple of the value's compact JSON, and the same as :func:`dumps` for shallow values."""


def dumps_shown(value: Any, levels: int = SHOWN_LEVELS) -> str:
    """JSON to read: :func:`dumps`'s indented form for the first ``levels`` levels, each
    deeper value compact on its line."""
    out: list[str] = []

    def emit(v: Any, depth: int) -> None:
        if depth >= levels or not isinstance(v, dict | list) or not v:
            out.append(dumps(v, indent=False))
            return
        pad = "\n" + "  " * (depth + 1)
        if isinstance(v, dict):
            out.append("{")
            for i, (k, x) in enumerate(v.items()):
                out.append(("," if i else "") + pad + dumps(str(k), indent=False) + ": ")
                emit(x, depth + 1)
            out.append("\n" + "  " * depth + "}")
        else:
            out.append("[")
            for i, x in enumerate(v):
                out.append(("," if i else "") + pad)
                emit(x, depth + 1)
            out.append("\n" + "  " * depth + "]")

    emit(value, 0)
    return "".join(out)


def output_json(value: Any, *, indent: bool = True) -> str:
    """:func:`dumps` for JSON that leaves piexport (printed, written to a file, read by
    another program): hidden characters (``_HIDDEN``) written as ``\\u`` escapes, the same
    JSON to a reader and nothing a terminal or an editor would act on or hide. (Pages show
    those characters as marks where they show text, and keep their JSON as it was.)"""
    text = dumps(value, indent=indent)
    return text if text.isascii() else _HIDDEN.sub(_escape, text)


def _scalar(value: Any) -> str:
    if isinstance(value, DeepJSON):
        return str.__str__(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, OddNumber):
        return json.dumps(value.text)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value) if math.isfinite(value) else "null"
    return json.dumps(str(value), ensure_ascii=False)


def _dumps_any(value: Any, indent: bool) -> str:
    """Iterative JSON writer (any depth, any integer), laid out like orjson's."""
    out: list[str] = []
    nl = "\n" if indent else ""
    sep = ": " if indent else ":"
    # stack of (iterator over items, is_dict, depth, first)
    stack: list[list[Any]] = []

    def open_value(v: Any, depth: int) -> None:
        if isinstance(v, dict):
            if not v:
                out.append("{}")
                return
            out.append("{")
            stack.append([iter(v.items()), True, depth + 1, True])
        elif isinstance(v, (list, tuple)):
            if not v:
                out.append("[]")
                return
            out.append("[")
            stack.append([iter(v), False, depth + 1, True])
        else:
            out.append(_scalar(v))

    open_value(value, 0)
    while stack:
        frame = stack[-1]
        it, is_dict, depth, first = frame
        pad = "  " * depth if indent else ""
        try:
            item = next(it)
        except StopIteration:
            stack.pop()
            out.append(nl + ("  " * (depth - 1) if indent else "") + ("}" if is_dict else "]"))
            continue
        out.append(("" if first else ",") + nl + pad)
        frame[3] = False
        if is_dict:
            key, v = item
            out.append(_scalar(key if isinstance(key, str) else str(key)) + sep)
            open_value(v, depth)
        else:
            open_value(item, depth)
    return "".join(out)
