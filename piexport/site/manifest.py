"""The manifest: what the last build rendered, so the next one renders only what changed.

It is a file in the site's folder, which may come from someone else (a CI artifact): a
record shaped otherwise than this piexport writes it is rendered again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import RedactionError
from ..export.gate import Gate
from ..output import write_atomic
from ..read.discover import SITE_MARKER
from ..read.figures import chartable
from ..read.jsonutil import finite_number, output_json
from ..read.loader import loads_exact, may_hold_wide_int
from ..read.model import JSON
from ..version import __version__
from .summary import SUMMARY_KEYS

if TYPE_CHECKING:
    from ..page.render import SiteNav
    from ..redact.engine import Redactor

__all__ = ["MANIFEST", "SessionRecord", "load_manifest", "nav_key", "save_manifest"]

MANIFEST = SITE_MARKER
"""Its name: a folder holding it is a site, never looked into for sessions."""
MANIFEST_VERSION = 1


@dataclass(slots=True)
class SessionRecord:
    """What the manifest remembers about one session file."""

    source: str
    """Path relative to the sessions root."""
    size: int
    mtime_ns: int
    page: str
    """Page path relative to the output folder."""
    summary: JSON
    error: str | None = None
    diagnostics: list[str] = field(default_factory=list)
    forks_rendered: list[str] = field(default_factory=list)
    pending: bool = False
    """Rendered while its last line was still being written (``--watch``): rendered again
    once that line ends or the file stops growing."""
    nav: str = ""
    """The page's place in the site as rendered (trail, previous and next session), hashed."""

    def as_json(self) -> JSON:
        return {
            "source": self.source,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "page": self.page,
            "summary": self.summary,
            "error": self.error,
            "diagnostics": self.diagnostics,
            "forks_rendered": self.forks_rendered,
            "pending": self.pending,
            "nav": self.nav,
        }


def load_manifest(
    out: Path, root_id: str, fingerprint: str, force: bool
) -> dict[str, SessionRecord]:
    """Records from the last run; a different root, piexport or options invalidate pages."""
    path = out / MANIFEST
    try:
        raw = path.read_bytes()
        data = orjson.loads(raw)
        if may_hold_wide_int(raw):  # a sum past 64 bits, which orjson reads as a float
            data = loads_exact(raw)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        return {}
    records = {}
    sessions = data.get("sessions")
    for raw in sessions if isinstance(sessions, list) else ():
        try:
            rec = SessionRecord(**raw)
        except TypeError:
            continue
        if not isinstance(rec.source, str) or not isinstance(rec.page, str):
            continue  # nothing to render again nor to remove
        if (
            force
            or data.get("fingerprint") != fingerprint
            or data.get("root") != root_id
            or not _record_ok(rec)
        ):
            rec.size = -1  # keep it, so its page can be removed if the session is gone
            rec.summary, rec.diagnostics, rec.forks_rendered = {}, [], []
        records[rec.source] = rec
    return records


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and finite_number(value) is not None


def _record_ok(rec: SessionRecord) -> bool:
    """Whether a manifest record is shaped as this piexport writes it: a manifest is a file
    in the site folder, which may come from someone else (a CI artifact)."""
    s = rec.summary
    return (
        _is_int(rec.size)
        and _is_int(rec.mtime_ns)
        and (rec.error is None or isinstance(rec.error, str))
        and isinstance(rec.pending, bool)
        and isinstance(rec.diagnostics, list)
        and all(isinstance(d, str) for d in rec.diagnostics)
        and isinstance(rec.forks_rendered, list)
        and all(isinstance(f, str) for f in rec.forks_rendered)
        and isinstance(s, dict)
        and set(s) == set(SUMMARY_KEYS)
        and all(s[k] is None or isinstance(s[k], str) for k in _SUMMARY_TEXT)
        and all(s[k] is None or _is_int(s[k]) for k in _SUMMARY_COUNTS)
        and all(s[k] is None or chartable(s[k]) for k in ("started", "last", "headerTime"))
        and all(s[k] is None or _is_number(s[k]) for k in _SUMMARY_NUMBERS)
        and (s["models"] is None or _all(s["models"], str))
        and (s["tokensDetail"] is None or _tokens_ok(s["tokensDetail"]))
        and (s["usage"] is None or _usage_ok(s["usage"]))
    )


_SUMMARY_NUMBERS = (
    "durationSeconds",
    "activeSeconds",
    "cost",
    "costEstimated",
    "costWithSubagents",
)
_SUMMARY_TEXT = ("id", "name", "title", "titleChip", "titleText", "cwd", "file", "parentSession")
_SUMMARY_COUNTS = (
    "started",
    "last",
    "headerTime",
    "copiedFrom",
    "toolErrors",
    "subagents",
    "messages",
    "entries",
    "leaves",
    "branchPoints",
    "compactions",
    "labels",
    "tokens",
    "toolCalls",
    "errors",
    "diagnostics",
)


def _all(values: Any, kind: type) -> bool:
    return isinstance(values, list) and all(isinstance(v, kind) for v in values)


def _tokens_ok(tokens: Any) -> bool:
    return isinstance(tokens, dict) and all(_is_int(v) for v in tokens.values())


def _usage_ok(usage: Any) -> bool:
    """``session_usage``'s shape: days as [day, model, tokens, cost or None, messages],
    tools as name: [calls, errors], and the whole cost."""
    if not isinstance(usage, dict) or set(usage) != {"days", "tools", "cost"}:
        return False
    days, tools, cost = usage["days"], usage["tools"], usage["cost"]
    return (
        (cost is None or _is_number(cost))
        and isinstance(days, list)
        and all(
            isinstance(row, list)
            and len(row) == 5
            and isinstance(row[0], str)
            and isinstance(row[1], str)
            and _is_int(row[2])
            and (row[3] is None or _is_number(row[3]))
            and _is_int(row[4])
            for row in days
        )
        and isinstance(tools, dict)
        and all(
            isinstance(v, list) and len(v) == 2 and all(_is_int(n) for n in v)
            for v in tools.values()
        )
    )


def nav_key(nav: SiteNav) -> str:
    """A page's way-finding (its trail and neighbours) as the manifest keeps it to see it
    changed: a hash, so the manifest holds none of the titles and names in it."""
    return hashlib.sha256(repr(nav).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def save_manifest(
    out: Path,
    root_id: str,
    fingerprint: str,
    records: dict[str, SessionRecord],
    redactor: Redactor | None,
    refused: list[str] | None = None,
) -> None:
    """The manifest (redacted like every other file: the root, file names, titles and
    errors in it are gated too). Should the gate refuse it, the records it refuses alone
    are written without their rows (their sessions are rendered again next time), then,
    if it still refuses, without the root (every page is then rendered again): a manifest
    is always written. What was left out is said in ``refused``."""
    text = _manifest_text(root_id, fingerprint, records.values())
    if redactor is None:
        write_atomic(out / MANIFEST, text)
        return
    path = out / MANIFEST
    try:
        Gate(redactor).check(text, path, kind="json")
    except RedactionError as exc:
        kept = [_gated_record(r, redactor, path) for r in records.values()]
        text = _manifest_text(root_id, fingerprint, kept)
        try:
            Gate(redactor).check(text, path, kind="json")
        except RedactionError:
            text = _manifest_text("", fingerprint, kept)
            Gate(redactor).check(text, path, kind="json")
        if refused is not None:
            refused.append(f"{exc}; written without what it refused (rendered again next time)")
    write_atomic(path, text)


def _manifest_text(root_id: str, fingerprint: str, records: Iterable[SessionRecord]) -> str:
    data = {
        "version": MANIFEST_VERSION,
        "generator": f"piexport {__version__}",
        "root": root_id,
        "fingerprint": fingerprint,
        "written": datetime.now(UTC).isoformat(timespec="seconds"),
        "sessions": [r.as_json() for r in sorted(records, key=lambda r: r.source)],
    }
    return output_json(data)  # any integer, however a session's figures add up


def _gated_record(rec: SessionRecord, redactor: Redactor, path: Path) -> SessionRecord:
    """The record as the manifest may hold it: as it is when the gate lets it alone
    through, else only what finds its page (to render it again, or remove it)."""
    try:
        Gate(redactor).check(output_json({"sessions": [rec.as_json()]}), path, kind="json")
    except RedactionError:
        return SessionRecord(rec.source, -1, 0, rec.page, {})
    return rec
