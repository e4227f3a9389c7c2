"""A static site over a sessions folder: one page per session, an index per project, one over all.

Gather first, then write (mkdocs): discover the files, decide from the manifest which pages
are stale, render those in worker processes, then write the indexes and the manifest. A
broken session is listed with its error and never stops the rest.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from ..errors import InputError, PiexportError
from ..output import sweep_stale, write_atomic
from ..read.model import JSON, Session
from ..read.tree import timestamp_ms
from ..report.stats import file_figures
from ..report.usage import session_usage
from ..search.index import CACHE as INDEX_CACHE
from ..search.index import session_key
from ..search.records import FIELDS

MANIFEST = ".piexport-manifest.json"
MANIFEST_VERSION = 1


def default_sessions_root() -> Path:
    """Where pi keeps sessions, honouring the environment overrides FORMAT.md lists."""
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


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, limit: int = 60) -> str:
    """A file-name-safe, readable slug; never empty, never ``.`` or ``..``."""
    s = _UNSAFE.sub("-", text).strip("-.")[-limit:].strip("-.")
    return s or "x"


def project_key(cwd: str | None, folder: str) -> str:
    """Folder name for a project: readable, plus a hash so two cwds that encode alike differ."""
    ident = cwd if cwd else f"folder:{folder}"
    digest = hashlib.sha1(ident.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    readable = slug(cwd.replace("\\", "/")) if cwd else slug(folder or "unknown")
    return f"{readable}-{digest}"


def page_name(source: Path) -> str:
    return slug(source.stem, 120) + ".html"


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
        }


@dataclass(slots=True)
class SiteReport:
    """The outcome of one ``build_site`` run."""

    out: Path
    rendered: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Problems in the sessions rendered by this run."""
    projects: int = 0
    sessions: int = 0
    redacted: Counter[str] = field(default_factory=Counter)
    """Secrets replaced per rule on the pages this run rendered (with a redactor)."""
    pending: list[str] = field(default_factory=list)
    """Sessions whose unterminated last line is still being written (``growing_seconds``)."""

    def summary_line(self) -> str:
        return (
            f"{self.sessions} sessions in {self.projects} projects: {self.rendered} rendered, "
            f"{self.unchanged} unchanged, {self.removed} removed, {len(self.failed)} failed, "
            f"{len(self.warnings)} warnings → {self.out}"
        )


def session_summary(session: Session, source: Path) -> JSON:
    """The facts an index row shows about a session (all of them from the whole file)."""
    fig = file_figures(session)
    header = session.header
    started = timestamp_ms(header.timestamp) if header else None
    first = started if started is not None else fig.first_ms
    last = fig.last_ms if fig.last_ms is not None else first
    title = session.title or "(no messages)"
    return {
        "id": session.id,
        "name": session.name,
        "title": session.derive.line(title, 300, ""),
        "cwd": session.cwd,
        "file": source.name,
        "parentSession": header.parent_session if header else None,
        "started": first,
        "last": last,
        "durationSeconds": (last - first) / 1000
        if first is not None and last is not None
        else None,
        "messages": fig.message_count,
        "entries": len(session.entries),
        "leaves": len(session.tree.leaves),
        "branchPoints": len(session.tree.branch_points),
        "compactions": fig.compactions,
        "labels": len(session.labels),
        "models": fig.models,
        "tokens": fig.tokens["total"],
        "tokensDetail": dict(fig.tokens),
        "cost": round(fig.cost, 6),
        "toolCalls": sum(fig.tool_calls.values()),
        "errors": fig.errors,
        "diagnostics": len(session.diagnostics),
        "usage": session_usage(session),
    }


SUMMARY_KEYS = (
    "id",
    "name",
    "title",
    "cwd",
    "file",
    "parentSession",
    "started",
    "last",
    "durationSeconds",
    "messages",
    "entries",
    "leaves",
    "branchPoints",
    "compactions",
    "labels",
    "models",
    "tokens",
    "tokensDetail",
    "cost",
    "toolCalls",
    "errors",
    "diagnostics",
    "usage",
)


@dataclass(frozen=True, slots=True)
class _Job:
    source: Path
    page: Path
    parent_href: str | None
    forks: tuple[tuple[str, str], ...]
    """(title, href) of every session forked from this one."""
    options: Any
    redactor: Any = None
    """A ``redact.Redactor`` (or None): pickled into each worker; tokens agree across pages."""
    selection: Any = None
    seconds: float | None = None
    """How long the page may take before it is written as plain text (None: by its size)."""
    name: str = ""
    """The file name as indexes show it (redacted with the pages)."""
    index_root: Path | None = None
    """The site folder, when the session goes into the search index (None: no search)."""
    index_page: str = ""
    search_fields: frozenset[str] | None = None
    pending_tail: bool = False
    """The file is being written: its unterminated last line waits."""


_Outcome = tuple[JSON | None, list[str], str | None, dict[str, int]]


def _render_one(job: _Job) -> _Outcome:
    """Worker: load, render and write one page.
    Returns (summary, diagnostics, error, secrets redacted per rule)."""
    from ..page.export import export_session  # imported in the worker process

    try:
        result = export_session(
            job.source,
            job.page,
            options=job.options,
            parent_href=job.parent_href,
            forks=list(job.forks),
            redactor=job.redactor,
            selection=job.selection,
            seconds=job.seconds,
            pending_tail=job.pending_tail,
        )
        if job.index_root is not None:
            _index_one(job, result.session)
    except PiexportError as exc:
        return None, [], _shown(str(exc), job.redactor), {}
    except Exception as exc:  # one broken session must never stop the site
        error = f"{job.source}: internal error while rendering: {exc!r}"
        return None, [], _shown(error, job.redactor), {}
    summary = session_summary(result.session, job.source)
    summary["file"] = job.name or job.source.name
    return (
        summary,
        [str(d) for d in result.session.diagnostics],
        None,
        result.redacted,
    )


def _index_one(job: _Job, session: Session) -> None:
    """The session's part of the search index, from the session as its page shows it."""
    from ..search.index import write_session_index

    assert job.index_root is not None
    write_session_index(
        session, job.index_root, job.index_page, job.search_fields, _gate(job.redactor)
    )


def _gate(redactor: Any) -> Callable[[str, Path], None] | None:
    """The output gate as ``gate(text, path)`` when redacting, else None."""
    if redactor is None:
        return None
    from ..page.export import check_output

    # the index's values, each on its line: read as they are (search shows them as text)
    return lambda text, path: check_output(text, redactor, path, kind="text")


def _shown(text: str, redactor: Any) -> str:
    """A name or message as the site writes it: redacted when redacting."""
    return text if redactor is None else str(redactor.redact_text(text, count=False))


def _fingerprint(
    options: Any, redactor: Any = None, selection: Any = None, search: Any = None
) -> str:
    """Pages depend on piexport itself (code, templates, CSS, JS), the options, the redaction
    rules and the selection; their parts of the search index on what it indexes."""
    from ..page.assets import asset_fingerprint

    shared = "" if redactor is None and selection is None else f":{selection!r}"
    if search is not None:
        shared += f":search={sorted(search)!r}"
    if redactor is not None:
        shared += f":redact={redactor.fingerprint()}"
    return f"{__version__}:{asset_fingerprint()}:{options!r}{shared}"


def _read_header(path: Path) -> JSON:
    """The first line only: enough to group and filter without loading the session."""
    try:
        with path.open("rb") as f:
            line = f.readline(1 << 20)
        obj = orjson.loads(line.lstrip(b"\xef\xbb\xbf").strip())
        return obj if isinstance(obj, dict) and obj.get("type") == "session" else {}
    except (OSError, orjson.JSONDecodeError):
        return {}


def _parse_date(text: str | None, end: bool = False) -> int | None:
    if not text:
        return None
    ms = timestamp_ms(text if "T" in text or len(text) != 10 else text + "T00:00:00Z")
    if ms is None:
        msg = f"not a date: {text!r} (use YYYY-MM-DD or an ISO timestamp)"
        raise InputError(msg)
    return ms + (86_400_000 - 1 if end and len(text) == 10 else 0)


def build_site(
    root: Path,
    out: Path,
    *,
    options: Any = None,
    jobs: int | None = None,
    force: bool = False,
    project: str | None = None,
    since: str | None = None,
    until: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    redactor: Any = None,
    selection: Any = None,
    page_seconds: float | None = None,
    search_fields: Iterable[str] | None = None,
    search: bool = True,
    growing_seconds: float | None = None,
) -> SiteReport:
    """Render every session under ``root`` into ``out`` and write the indexes.

    With a ``redactor`` (``redact.Redactor``), every page, index and the manifest is
    redacted and checked by the output gate; a page that fails the gate is a failed session.
    ``selection`` (``selection.Selection``) applies to every page; a leaf id cannot be part
    of it. A page that takes longer than ``page_seconds`` (default: by its size) is written
    as plain text with a diagnostic, and the build goes on. With ``search`` (the default)
    the site gets ``search.html`` and an index of ``search_fields`` (default: everything,
    see ``search.records.FIELDS``), re-merged only when a page was rendered or removed.

    ``growing_seconds`` (``--watch``): a file whose last line has no newline yet and that was
    written less than this many seconds ago is being written; that line waits, with no
    warning, and the page is made again once the line ends or the file stops growing."""
    from ..page.export import RenderOptions
    from ..page.render import render_project_index, render_root_index

    options = options if options is not None else RenderOptions()
    root = root.expanduser()
    if not root.exists():
        msg = f"{root}: no such folder (pass the sessions folder, e.g. ~/.pi/agent/sessions)"
        raise InputError(msg)
    out.mkdir(parents=True, exist_ok=True)
    # temporary files of a run that was killed mid-write (pages written since are not)
    for place in [out, *(p for p in out.iterdir() if p.is_dir())]:
        sweep_stale(place)
    since_ms, until_ms = _parse_date(since), _parse_date(until, end=True)
    fields = frozenset(search_fields if search_fields is not None else FIELDS)
    fingerprint = _fingerprint(options, redactor, selection, fields if search else None)
    root_id = _shown(str(root.resolve()), redactor)
    old = _load_manifest(out, root_id, fingerprint, force)
    report = SiteReport(out=out)

    # 1. gather: which files, which project, which page
    planned: list[tuple[Path, str, str, JSON]] = []  # source, rel, page, header
    for source in discover(root):
        header = _read_header(source)
        cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
        if cwd is not None and redactor is not None:  # the folder name is made from it
            cwd = redactor.redact_text(cwd, count=False)
        if (
            project
            and not fnmatch.fnmatch(cwd or source.parent.name, project)
            and not fnmatch.fnmatch(source.parent.name, project)
        ):
            continue
        stat = source.stat()
        start = timestamp_ms(header.get("timestamp"))
        if until_ms is not None and start is not None and start > until_ms:
            continue
        if since_ms is not None and stat.st_mtime_ns // 1_000_000 < since_ms:
            continue
        # file and folder names can hold secrets too: every name the site writes is redacted
        rel = _shown(
            source.relative_to(root).as_posix() if source != root else source.name, redactor
        )
        folder = _shown(source.parent.name, redactor)
        page = f"{project_key(cwd, folder)}/{page_name(Path(_shown(source.name, redactor)))}"
        planned.append((source, rel, page, header))
    _dedupe_pages(planned)

    # forks: pi records the parent's absolute path on the user's machine; match on file name
    by_name = {source.name: page for source, _, page, _ in planned}
    forks: dict[str, list[tuple[str, str]]] = {}
    for source, _, page, header in planned:
        parent = header.get("parentSession") or header.get("branchedFrom")
        if isinstance(parent, str) and _basename(parent) in by_name:
            shown = _shown(source.name, redactor)
            forks.setdefault(by_name[_basename(parent)], []).append((shown, page))

    # 2. decide what is stale
    records: dict[str, SessionRecord] = {}
    jobs_todo: list[tuple[str, _Job]] = []
    for source, rel, page, header in planned:
        stat = source.stat()
        pending = growing_seconds is not None and _growing(source, stat, growing_seconds)
        parent = header.get("parentSession") or header.get("branchedFrom")
        parent_page = by_name.get(_basename(parent)) if isinstance(parent, str) else None
        my_forks = tuple((name, _relative(page, p)) for name, p in forks.get(page, []))
        fork_key = [f"{n}:{h}" for n, h in my_forks]
        prev = old.get(rel)
        if (
            prev is not None
            and prev.size == stat.st_size
            and prev.mtime_ns == stat.st_mtime_ns
            and prev.page == page
            and prev.forks_rendered == fork_key
            and prev.error is None
            and prev.pending == pending
            and (out / page).is_file()
            and (not search or (out / INDEX_CACHE / f"{session_key(page)}.json").is_file())
        ):
            if pending:
                report.pending.append(rel)
            records[rel] = prev
            report.unchanged += 1
            continue
        records[rel] = SessionRecord(
            rel, stat.st_size, stat.st_mtime_ns, page, {}, None, [], fork_key, pending
        )
        if pending:
            report.pending.append(rel)
        jobs_todo.append(
            (
                rel,
                _Job(
                    source,
                    out / page,
                    _relative(page, parent_page) if parent_page else None,
                    my_forks,
                    options,
                    redactor,
                    selection,
                    page_seconds,
                    _shown(source.name, redactor),
                    out if search else None,
                    page,
                    fields,
                    pending,
                ),
            )
        )

    # 3. render what is stale, in parallel
    done = 0
    total = len(jobs_todo)
    for (rel, _job), (summary, diags, error, redacted) in zip(
        jobs_todo, _run(jobs_todo, jobs), strict=True
    ):
        rec = records[rel]
        report.redacted.update(redacted)
        done += 1
        if progress:
            progress(done, total)
        if error is not None:
            rec.error = error
            rec.summary = dict.fromkeys(SUMMARY_KEYS)
            rec.summary.update(title=Path(rel).name, file=Path(rel).name, models=[])
            report.failed.append((rel, error))
            continue
        assert summary is not None
        rec.summary, rec.diagnostics = summary, diags
        report.warnings.extend(diags)  # unchanged pages were reported when they were built
        report.rendered += 1

    # 4. remove pages of sessions that are gone, and old pages of sessions whose page moved
    # (e.g. --redact renamed the project folder: the old page may hold what was redacted);
    # only pages we wrote ourselves
    current_pages = {r.page for r in records.values()}
    for rel, prev in old.items():
        if prev.page not in current_pages:
            target = (out / prev.page).resolve()
            if target.is_relative_to(out.resolve()) and target.is_file():
                target.unlink()
                if rel not in records:
                    report.removed += 1

    # 5. indexes, then the manifest
    projects = _group(records.values(), planned, forks)
    search_href = "search.html" if search else None
    for key, proj in projects.items():
        _write_checked(
            out / key / "index.html",
            render_project_index(proj, options, search_href=search_href and "../" + search_href),
            redactor,
        )
    _write_checked(
        out / "index.html",
        render_root_index(list(projects.values()), options, search_href=search_href),
        redactor,
    )
    if search and (
        report.rendered
        or report.removed
        or report.failed
        or not (out / "search" / "meta.js").is_file()
        or not (out / "search.html").is_file()
    ):
        _write_search(out, records.values(), fields, redactor)
    for old_folder in {Path(prev.page).parent for prev in old.values()}:
        _remove_if_only_index(out / old_folder, set(projects))
    if redactor is not None:  # the names of everything written, gated like the pages
        from ..page.export import check_output

        names = sorted({r.page for r in records.values()} | set(projects))
        check_output("\n".join(names), redactor, f"{out}: page and folder names", kind="text")
    _save_manifest(out, root_id, fingerprint, records, redactor)
    report.projects = len(projects)
    report.sessions = len(records)
    return report


def _write_search(
    out: Path, records: Iterable[SessionRecord], fields: frozenset[str], redactor: Any
) -> None:
    """Merge the sessions' parts into the index the search page loads, and write the page."""
    from ..page.render import render_search_page
    from ..search.index import IndexedSession, build_index

    shown = [f for f in FIELDS if f in fields]
    sessions = [
        IndexedSession(
            r.page,
            r.summary.get("title") or "",
            r.summary.get("cwd") or "",
            r.summary.get("started"),
        )
        for r in sorted(records, key=lambda r: r.page)
        if r.error is None
    ]
    build_index(out, sessions, shown, _gate(redactor))
    _write_checked(out / "search.html", render_search_page(shown), redactor)


def _growing(source: Path, stat: os.stat_result, seconds: float) -> bool:
    """Whether the file's last line is still being written: no newline at its end yet,
    and written in the last ``seconds``. Looked at after the stat the manifest records."""
    if stat.st_size == 0 or time.time() - stat.st_mtime >= seconds:
        return False
    try:
        with source.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except OSError:
        return False


def _basename(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _relative(from_page: str, to_page: str) -> str:
    """A link from one page of the site to another, relative so the site can move."""
    return os.path.relpath(to_page, os.path.dirname(from_page) or ".").replace(os.sep, "/")


def _dedupe_pages(planned: list[tuple[Path, str, str, JSON]]) -> None:
    """Two files that slug alike in one project get distinct pages."""
    seen: set[str] = set()
    for i, (source, rel, page, header) in enumerate(planned):
        if page in seen:
            digest = hashlib.sha1(rel.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            page = page[: -len(".html")] + f"-{digest}.html"
            planned[i] = (source, rel, page, header)
        seen.add(page)


def _write_checked(path: Path, text: str, redactor: Any) -> None:
    """Write an index page, through the output gate when redacting."""
    if redactor is not None:
        from ..page.export import check_output

        check_output(text, redactor, path)
    write_atomic(path, text)


def _run(todo: list[tuple[str, _Job]], jobs: int | None) -> Iterable[_Outcome]:
    workers = jobs or os.cpu_count() or 1
    if workers <= 1 or len(todo) <= 1:
        return (_render_one(job) for _, job in todo)
    pool = ProcessPoolExecutor(max_workers=min(workers, len(todo)))
    # pages are already rendered side by side: one process each
    one_each = [replace(job, options=replace(job.options, workers=1)) for _, job in todo]

    def results() -> Iterable[_Outcome]:
        with pool:
            yield from pool.map(_render_one, one_each, chunksize=1)

    return results()


def _group(
    records: Iterable[SessionRecord],
    planned: list[tuple[Path, str, str, JSON]],
    forks: dict[str, list[tuple[str, str]]],
) -> dict[str, JSON]:
    """Project index variables: sessions of each project, newest activity first."""
    pages_by_file = {Path(rel).name: page for _, rel, page, _ in planned}
    projects: dict[str, JSON] = {}
    for rec in records:
        key = rec.page.split("/", 1)[0]
        summary = dict(rec.summary)
        proj = projects.setdefault(
            key,
            {
                "key": key,
                "cwd": None,
                "sessions": [],
                "tokens": 0,
                "cost": 0.0,
                "first": None,
                "last": None,
            },
        )
        if summary.get("cwd") and not proj["cwd"]:
            proj["cwd"] = summary["cwd"]
        parent = summary.get("parentSession")
        parent_page = pages_by_file.get(_basename(parent)) if isinstance(parent, str) else None
        row = {
            **summary,
            "href": rec.page.split("/", 1)[1],
            "error": rec.error,
            "warnings": len(rec.diagnostics),
            "parentHref": _relative(rec.page, parent_page) if parent_page else None,
            "forks": [
                {"file": name, "href": _relative(rec.page, page)}
                for name, page in forks.get(rec.page, [])
            ],
        }
        proj["sessions"].append(row)
        proj["tokens"] += int(summary.get("tokens") or 0)
        proj["cost"] += float(summary.get("cost") or 0)
        for k, pick in (("first", min), ("last", max)):
            v = summary.get("started" if k == "first" else "last")
            if isinstance(v, (int, float)):
                proj[k] = v if proj[k] is None else pick(proj[k], v)
    for proj in projects.values():
        proj["sessions"].sort(key=lambda r: (r.get("last") or 0, r.get("file") or ""), reverse=True)
        proj["cost"] = round(proj["cost"], 6)
        if not proj["cwd"]:
            proj["cwd"] = proj["key"]
    return dict(sorted(projects.items(), key=lambda kv: -(kv[1]["last"] or 0)))


def _remove_if_only_index(folder: Path, live: set[str]) -> None:
    """A project folder whose sessions are all gone loses its index too."""
    if folder.name in live or not folder.is_dir():
        return
    index = folder / "index.html"
    if index.is_file():
        index.unlink()
    with contextlib.suppress(OSError):  # not empty: something we did not write lives there
        folder.rmdir()


def _load_manifest(
    out: Path, root_id: str, fingerprint: str, force: bool
) -> dict[str, SessionRecord]:
    """Records from the last run; a different root, piexport or options invalidate pages."""
    path = out / MANIFEST
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        return {}
    records = {}
    for raw in data.get("sessions", []):
        try:
            rec = SessionRecord(**raw)
        except TypeError:
            continue
        if force or data.get("fingerprint") != fingerprint or data.get("root") != root_id:
            rec.size = -1  # keep it, so its page can be removed if the session is gone
        records[rec.source] = rec
    return records


def _save_manifest(
    out: Path, root_id: str, fingerprint: str, records: dict[str, SessionRecord], redactor: Any
) -> None:
    """The manifest (redacted like every other file: the root, file names, titles and
    errors in it are gated too)."""
    data = {
        "version": MANIFEST_VERSION,
        "generator": f"piexport {__version__}",
        "root": root_id,
        "fingerprint": fingerprint,
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sessions": [r.as_json() for r in sorted(records.values(), key=lambda r: r.source)],
    }
    text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
    if redactor is not None:
        from ..page.export import check_output

        check_output(text, redactor, out / MANIFEST, kind="text")
    write_atomic(out / MANIFEST, text)
