"""Where pi keeps session files and which files in a folder are sessions."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_sessions_root", "discover"]


def default_sessions_root() -> Path:
    """Where pi keeps sessions, with the overrides docs/format.md#where-session-files-live lists."""
    flat = os.environ.get("PI_CODING_AGENT_SESSION_DIR")
    if flat:
        return Path(flat).expanduser()
    root = os.environ.get("PI_SESSIONS_DIR")
    if root:
        return Path(root).expanduser()
    agent = os.environ.get("PI_CODING_AGENT_DIR")
    if agent:
        return Path(agent).expanduser() / "sessions"
    return Path("~/.pi/agent/sessions").expanduser()


def discover(root: Path) -> list[Path]:
    """Session files under root: pi's ``--<cwd>--/*.jsonl`` layout, or a flat folder."""
    if root.is_file():
        return [root]
    found = [p for p in root.glob("*.jsonl") if p.is_file()]
    found += [p for p in root.glob("*/*.jsonl") if p.is_file()]
    return sorted(found)
