"""Paths as a reader of a session wants them: relative to the session's folder when they lie
inside it, POSIX and Windows paths alike (a Windows path compares without case)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath

__all__ = ["is_windows_path", "shown_path"]

_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def is_windows_path(path: str) -> bool:
    return _WINDOWS.match(path) is not None


def shown_path(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies inside it, else as written."""
    if not cwd:
        return path
    if is_windows_path(cwd):
        if not is_windows_path(path):
            return path
        base, p = PureWindowsPath(cwd), PureWindowsPath(path)
        # Windows paths compare without case; the file's own spelling is kept
        if p.parts[: len(base.parts)] and [x.lower() for x in p.parts[: len(base.parts)]] == [
            x.lower() for x in base.parts
        ]:
            rest = p.parts[len(base.parts) :]
            return "\\".join(rest) if rest else "."
        return path
    if not path.startswith("/"):
        return path
    try:
        rel = PurePosixPath(path).relative_to(PurePosixPath(cwd))
    except ValueError:
        return path
    return str(rel)
