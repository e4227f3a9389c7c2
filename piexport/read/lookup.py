"""Finding a session without its path, the way pi does: by the start of its id (pi's
``--session <id prefix>``) or as the latest one (pi's ``--continue``), in pi's sessions
folder. Only each file's first line is read."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..errors import InputError
from .discover import find_sessions

__all__ = ["Listed", "by_id", "latest", "looks_like_path", "session_headers"]

_HEADER_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Listed:
    """A session file as its first line and the file system tell it."""

    path: Path
    id: str
    cwd: str | None
    mtime_ns: int


def looks_like_path(arg: str) -> bool:
    """What pi reads as a path rather than an id: a ``/`` or ``\\`` in it, or ``.jsonl``
    at its end (and ``-``, stdin, here)."""
    return arg == "-" or "/" in arg or "\\" in arg or arg.endswith(".jsonl")


def session_headers(root: Path) -> list[Listed]:
    """Every session file under ``root`` (``discover``'s walk) with its id and cwd; a file
    whose header has no id goes by the part of its name after the last ``_`` (pi names
    files ``<time>_<id>.jsonl``)."""
    out = []
    for path in find_sessions(root).files:
        header = _header(path)
        sid = header.get("id")
        if not isinstance(sid, str) or not sid:
            sid = path.stem.rsplit("_", 1)[-1]
        cwd = header.get("cwd")
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            continue
        out.append(Listed(path, sid, cwd if isinstance(cwd, str) else None, mtime))
    return out


def _header(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as f:
            line = f.readline(_HEADER_BYTES)
        obj = orjson.loads(line.lstrip(b"\xef\xbb\xbf").strip())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return obj if isinstance(obj, dict) and obj.get("type") == "session" else {}


def _here(listed: list[Listed], cwd: str | None) -> list[Listed]:
    """The sessions of the project in ``cwd`` (pi looks there first)."""
    if cwd is None:
        return []
    return [s for s in listed if s.cwd is not None and os.path.normpath(s.cwd) == cwd]


def by_id(root: Path, prefix: str, cwd: str | None = None) -> Path:
    """The session whose id is ``prefix`` or starts with it: an exact id first, then the
    sessions of the project in ``cwd``, then every one. None or several (then named, with
    their files) raise ``InputError``: pi takes the first, a script is better told."""
    listed = session_headers(root)
    exact = [s for s in listed if s.id == prefix]
    matches = exact or [s for s in listed if s.id.startswith(prefix)] if prefix else []
    here = _here(matches, os.path.normpath(cwd) if cwd else None)
    found = here if len(here) == 1 else matches
    if len(found) == 1:
        return found[0].path
    if not found:
        raise InputError(
            f"{prefix}: no such file, and no session id starts with it under {root}"
            " (piexport list shows the sessions)"
        )
    shown = sorted(found, key=lambda s: s.id)
    names = ", ".join(f"{s.id} ({s.path})" for s in shown[:10])
    more = f" and {len(shown) - 10} more" if len(shown) > 10 else ""
    raise InputError(
        f"{prefix}: {len(shown)} sessions' ids start with it: {names}{more}; give more of the id"
    )


def latest(root: Path, cwd: str | None = None) -> Path:
    """The session written to last (pi's ``--continue``): of the project in ``cwd`` when
    it has one, else of all; ties go to the later path. ``InputError`` when there is none."""
    listed = session_headers(root)
    pool = _here(listed, os.path.normpath(cwd) if cwd else None) or listed
    if not pool:
        raise InputError(f"{root}: no session files found (for --latest)")
    return max(pool, key=lambda s: (s.mtime_ns, str(s.path))).path
