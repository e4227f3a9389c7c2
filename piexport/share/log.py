"""The share log: every page ``piexport share`` uploaded, and which were taken back.

One JSON object a line in ``shares.jsonl`` in the user's state folder (``$XDG_STATE_HOME`` or
``~/.local/state/piexport`` on Linux, ``~/Library/Application Support/piexport`` on macOS,
``%LOCALAPPDATA%\\piexport`` on Windows; ``$PIEXPORT_STATE_DIR`` overrides it). The file is only
ever appended to: a share is a ``"share"`` line, a revocation a ``"revoke"`` line naming the
gist, so an interrupted run never loses what was recorded before. Each line goes out in one
``write`` on a descriptor opened with ``O_APPEND`` while holding an exclusive lock, so two runs
never interleave. The file is private (0600): a secret gist's URL is all it takes to read it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import platformdirs

from ..errors import OutputError
from ..read.jsonutil import output_json
from ..text.textsafe import terminal_safe

__all__ = [
    "STATE_ENV",
    "ShareLog",
    "ShareRecord",
    "default_log_path",
    "now_iso",
    "session_key",
    "shares_table",
    "state_dir",
]

STATE_ENV = "PIEXPORT_STATE_DIR"
LOG_NAME = "shares.jsonl"


def state_dir() -> Path:
    """Where piexport keeps its state: ``$PIEXPORT_STATE_DIR``, else the platform's user state
    folder (platformdirs knows each platform's rule, Windows' known-folder lookup included)."""
    override = os.environ.get(STATE_ENV)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_state_path("piexport", appauthor=False)


def default_log_path() -> Path:
    return state_dir() / LOG_NAME


def now_iso() -> str:
    """The time now, ISO 8601 in UTC to the second (as the summary JSON writes times)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class ShareRecord:
    """One uploaded page: what was shared, how, and where it went."""

    shared_at: str
    session: str
    """The session file, as an absolute path (redacted when the page was: a folder or file
    name can hold a token, and the log outlives the share)."""
    session_id: str | None
    leaf: str | None
    """The entry the shown branch ends at."""
    gist_id: str
    url: str
    description: str
    redacted: bool
    secrets: dict[str, int] = field(default_factory=dict)
    """Secrets replaced per rule (empty when none were found or redaction was off)."""
    selection: dict[str, Any] = field(default_factory=dict)
    viewer_url: str | None = None
    revoked_at: str | None = None
    version: str = ""
    """The piexport that shared it."""
    session_key: str | None = None
    """:func:`session_key` of the session file's absolute path, so ``--revoke-session``
    finds a share whose path was redacted."""

    def as_json(self) -> dict[str, Any]:
        return {
            "sharedAt": self.shared_at,
            "session": self.session,
            "sessionId": self.session_id,
            "leaf": self.leaf,
            "gistId": self.gist_id,
            "url": self.url,
            "viewerUrl": self.viewer_url,
            "description": self.description,
            "redaction": {"on": self.redacted, "secrets": dict(self.secrets)},
            "selection": dict(self.selection),
            "revokedAt": self.revoked_at,
            "piexport": self.version,
            "sessionKey": self.session_key,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ShareRecord:
        """Raises ``TypeError``/``ValueError`` for a line that is not a record."""
        redaction = obj.get("redaction") or {}
        if not isinstance(redaction, Mapping):
            raise TypeError("redaction")
        secrets = redaction.get("secrets") or {}
        selection = obj.get("selection") or {}
        if not isinstance(secrets, Mapping) or not isinstance(selection, Mapping):
            raise TypeError("secrets")
        gist_id, url = obj.get("gistId"), obj.get("url")
        if not isinstance(gist_id, str) or not gist_id or not isinstance(url, str):
            raise ValueError("needs gistId and url")
        return cls(
            shared_at=str(obj.get("sharedAt") or ""),
            session=str(obj.get("session") or ""),
            session_id=_opt_str(obj.get("sessionId")),
            leaf=_opt_str(obj.get("leaf")),
            gist_id=gist_id,
            url=url,
            description=str(obj.get("description") or ""),
            redacted=bool(redaction.get("on")),
            secrets={str(k): int(v) for k, v in secrets.items()},
            selection=dict(selection),
            viewer_url=_opt_str(obj.get("viewerUrl")),
            revoked_at=_opt_str(obj.get("revokedAt")),
            version=str(obj.get("piexport") or ""),
            session_key=_opt_str(obj.get("sessionKey")),
        )

    def is_of(self, path: str) -> bool:
        """Whether this share is of the session file at ``path`` (absolute)."""
        return self.session == path or self.session_key == session_key(path)


def session_key(path: str) -> str:
    """A session file's absolute path as the log can keep it: a SHA-256, which names the
    file without holding what its path holds."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(slots=True)
class ShareLog:
    """The log file; :meth:`records` folds its lines into one record per share."""

    path: Path
    problems: list[str] = field(default_factory=list)
    """``path:line: message`` for each line :meth:`records` could not read."""

    @classmethod
    def default(cls) -> ShareLog:
        return cls(default_log_path())

    def check_writable(self) -> None:
        """Raise ``OutputError`` now if a share could not be recorded (before uploading)."""
        with self._locked():
            pass

    def add(self, record: ShareRecord) -> None:
        self._append({"event": "share", **record.as_json()})

    def revoke(self, gist_id: str, at: str | None = None) -> None:
        self._append({"event": "revoke", "gistId": gist_id, "revokedAt": at or now_iso()})

    def records(self) -> list[ShareRecord]:
        """Every share, oldest first, each marked with its revocation if there was one."""
        self.problems = []
        shares: list[ShareRecord] = []
        revoked: dict[str, str] = {}
        for line_no, obj in self._lines():
            event = obj.get("event")
            try:
                if event == "share":
                    shares.append(ShareRecord.from_json(obj))
                elif event == "revoke":
                    gist_id = obj.get("gistId")
                    if not isinstance(gist_id, str):
                        raise ValueError("needs gistId")
                    revoked.setdefault(gist_id, str(obj.get("revokedAt") or ""))
                # other events: written by a newer piexport, not ours to judge
            except (TypeError, ValueError) as exc:
                self.problems.append(f"{self.path}:{line_no}: not a share record ({exc})")
        return [
            replace(r, revoked_at=revoked[r.gist_id]) if r.gist_id in revoked else r for r in shares
        ]

    def _lines(self) -> Iterator[tuple[int, dict[str, Any]]]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot read: {exc.strerror or exc}") from exc
        lines = data.split(b"\n")
        # a last line without its newline is a write still under way (or cut off): skip it
        for i, raw in enumerate(lines[:-1], 1):
            if not raw.strip():
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                self.problems.append(f"{self.path}:{i}: not JSON")
                continue
            if isinstance(obj, dict):
                yield i, obj
            else:
                self.problems.append(f"{self.path}:{i}: not a JSON object")

    def _append(self, obj: dict[str, Any]) -> None:
        line = (output_json(obj, indent=False) + "\n").encode("utf-8", "surrogateescape")
        with self._locked() as fd:
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError as exc:
                raise OutputError(f"{self.path}: cannot write: {exc.strerror or exc}") from exc

    @contextlib.contextmanager
    def _locked(self) -> Iterator[int]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot write: {exc.strerror or exc}") from exc
        try:
            _lock(fd)
            yield fd
        finally:
            os.close(fd)  # closing releases the lock


def shares_table(records: list[ShareRecord]) -> list[str]:
    """The shares as ``piexport shares`` lists them: a header, then a row per share, its
    columns aligned (the URL last, unpadded), safe for a terminal."""
    rows: list[tuple[str, ...]] = [("SHARED", "GIST", "STATUS", "SECRETS", "SESSION", "URL")]
    for r in records:
        status = f"revoked {r.revoked_at}" if r.revoked_at else "live"
        secrets = str(sum(r.secrets.values())) if r.redacted else "off"
        cells = (r.shared_at, r.gist_id, status, secrets, Path(r.session).name, r.url)
        rows.append(tuple(terminal_safe(cell) for cell in cells))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        padded = [cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*padded, row[-1]]))
    return lines


if sys.platform == "win32":

    def _lock(fd: int) -> None:
        """Windows: ``O_APPEND`` writes of one line do not interleave; no lock is taken."""

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)
