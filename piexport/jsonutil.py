"""JSON output that never fails on what the loader accepted (big integers included)."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any, *, indent: bool = True) -> str:
    """Serialise with orjson; integers past 64 bits (kept exact by the loader) fall back."""
    try:
        opts = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(value, option=opts).decode()
    except TypeError:
        return json.dumps(value, indent=2 if indent else None, ensure_ascii=False)
