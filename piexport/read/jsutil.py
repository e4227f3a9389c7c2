"""JavaScript's view of JSON values, where piexport must read a file exactly as pi does.

pi is written in JavaScript: a missing key is ``undefined`` (and vanishes from
``JSON.stringify``), and ``{}``, ``[]`` and ``"0"`` are true while ``NaN`` is false. Python sees
each of these differently, so code that mirrors one of pi's conditions says which one it means.
"""

from __future__ import annotations

from typing import Any

from .model import JSON


class _Missing:
    """JavaScript's ``undefined``: what ``raw.get(key, MISSING)`` gives for a key not there."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def put(out: JSON, key: str, value: Any) -> None:
    """Set a key unless the value is missing (``undefined`` leaves no key behind)."""
    if value is not MISSING:
        out[key] = value


def js_truthy(value: Any) -> bool:
    """JavaScript's truthiness: ``undefined``, ``null``, ``false``, ``0``, ``NaN`` and ``""`` are
    false; every object and array, empty or not, is true."""
    if value is MISSING or value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True
