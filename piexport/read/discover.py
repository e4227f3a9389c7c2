"""Where pi keeps session files and which files in a folder are sessions."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "MAX_DEPTH",
    "MAX_FOLDERS",
    "SITE_MARKER",
    "Discovery",
    "default_sessions_root",
    "discover",
    "find_sessions",
]

SITE_MARKER = ".piexport-manifest.json"
"""The file every site piexport writes holds (its manifest): a folder with one is a site,
never looked into for sessions (``site ROOT -o ROOT/site`` would find its own output)."""
MAX_DEPTH = 8
"""Folders below ROOT looked into: ``~`` → ``.pi/agent/sessions/--cwd--`` is 4."""
MAX_FOLDERS = 20_000
"""Folders looked into at most: the walk is bounded by counting, never by a clock."""
SKIPPED = frozenset({"node_modules", "__pycache__", "site-packages", "venv"})
"""Folders of tools, never of sessions (hidden folders, ``.pi`` aside, are skipped too)."""
SHALLOW = 1
"""Files this many folders below ROOT or fewer are sessions whatever they hold (pi's
``--<cwd>--/*.jsonl`` layout, or a flat folder); deeper ones only when their first line is
a session header, so a folder of other JSONL files is not archived."""


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


@dataclass(slots=True)
class Discovery:
    """The session files under a root, and how far the walk went to find them."""

    root: Path
    files: list[Path] = field(default_factory=list)
    folders: int = 0
    """Folders looked into."""
    deepest: int = 0
    """Levels below the root reached."""
    cut: bool = False
    """The walk stopped at ``MAX_FOLDERS`` (or did not go past ``MAX_DEPTH``)."""

    def nothing_found(self) -> str:
        """The one line a command says when the walk found no session file."""
        bound = f"; stopped after {MAX_FOLDERS:,} folders" if self.cut else ""
        return (
            f"{self.root}: no session files found (looked for *.jsonl in {self.folders} "
            f"folder(s), down to {MAX_DEPTH} levels, skipping hidden folders, "
            f"node_modules and sites{bound})"
        )


def discover(root: Path, skip: Iterable[Path] = ()) -> list[Path]:
    """Session files under root, sorted: see :func:`find_sessions`."""
    return find_sessions(root, skip).files


def find_sessions(root: Path, skip: Iterable[Path] = ()) -> Discovery:
    """Session files under ``root`` at any depth: pi's ``~/.pi/agent/sessions/--<cwd>--/``
    layout from any folder above it, or any folder of session files. Hidden folders (but
    ``.pi``), ``node_modules``-like folders, sites (a folder holding ``SITE_MARKER``) and
    the folders in ``skip`` are not looked into; a folder reached twice (a symlink loop) is
    looked into once. Bounded by ``MAX_DEPTH`` levels and ``MAX_FOLDERS`` folders."""
    found = Discovery(root)
    if root.is_file():
        found.files = [root]
        return found
    skipped = {ident for p in skip if (ident := _identity(p)) is not None}
    seen: set[tuple[int, int]] = set()
    files: list[Path] = []
    todo: list[tuple[Path, int]] = [(root, 0)]
    while todo:
        folder, depth = todo.pop()
        ident = _identity(folder)
        if ident is None or ident in seen or ident in skipped:
            continue
        if found.folders >= MAX_FOLDERS:
            found.cut = True
            break
        seen.add(ident)
        found.folders += 1
        found.deepest = max(found.deepest, depth)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        if depth > 0 and any(e.name == SITE_MARKER for e in entries):
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.name.endswith(".jsonl"):
                if _is_file(entry) and (depth <= SHALLOW or _has_header(path)):
                    files.append(path)
            elif _is_dir(entry) and _looked_into(entry.name):
                if depth + 1 > MAX_DEPTH:
                    found.cut = True
                    continue
                todo.append((path, depth + 1))
    found.files = sorted(files)
    return found


def _looked_into(name: str) -> bool:
    return (not name.startswith(".") or name == ".pi") and name not in SKIPPED


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


_HEADER_BYTES = 1 << 16


def _has_header(path: Path) -> bool:
    """Whether the first line is a pi session header (``{"type":"session",…``)."""
    try:
        with path.open("rb") as f:
            line = f.readline(_HEADER_BYTES).lstrip(b"\xef\xbb\xbf").strip()
    except OSError:
        return False
    if not line.startswith(b"{"):
        return False
    import orjson

    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        # a header longer than what was read: its type still shows in the first bytes
        return b'"type":"session"' in line.replace(b" ", b"")
    return isinstance(obj, dict) and obj.get("type") == "session"
