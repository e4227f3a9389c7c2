"""``--redact-config``: a TOML file of the user's own patterns, allowed strings and key."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .rules import RedactionError

__all__ = ["load_redact_config"]


def load_redact_config(path: Path) -> tuple[list[tuple[str, str]], list[str], str]:
    """Read a TOML file: ``key = "…"``, ``allow = ["…"]`` and ``[[patterns]]`` tables with
    ``name`` and ``regex``. Returns (patterns, allow, key)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        msg = f"{path}: cannot read redaction config: {exc}"
        raise RedactionError(msg) from exc
    patterns: list[tuple[str, str]] = []
    for i, item in enumerate(data.get("patterns", [])):
        if not isinstance(item, dict) or not isinstance(item.get("regex"), str):
            msg = f"{path}: patterns[{i}] needs a regex string"
            raise RedactionError(msg)
        name = item.get("name", "custom")
        patterns.append((name if isinstance(name, str) else "custom", item["regex"]))
    allow = data.get("allow", [])
    key = data.get("key", "")
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        msg = f"{path}: allow must be a list of strings"
        raise RedactionError(msg)
    if not isinstance(key, str):
        msg = f"{path}: key must be a string"
        raise RedactionError(msg)
    return patterns, allow, key
