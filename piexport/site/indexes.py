"""Index: the project indexes, the root index, ``sessions.html`` and the search page, drawn
from the manifest's records (so a session deleted or renamed leaves them at once). What one
session holds never stops them: a row that cannot be drawn is listed as failed, and charts
that cannot be drawn are left out."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RedactionError
from ..read.figures import utc_text
from ..read.model import JSON
from ..search.records import FIELDS
from .gated import shown, text_gate, write_checked, write_refused
from .links import basename, relative
from .manifest import SessionRecord
from .records import BuildSettings, Fork, SiteMap, SiteReport, SiteSession
from .summary import SUMMARY_KEYS

if TYPE_CHECKING:
    from ..page.render import RenderOptions, SiteNav
    from ..redact.engine import Redactor

__all__ = ["ALL_SESSIONS", "group_projects", "remove_old_folders", "tell_apart", "write_indexes"]

ALL_SESSIONS = "sessions.html"
"""Every session of the site in one table (the root index shows the most recent)."""


def write_indexes(
    settings: BuildSettings,
    records: dict[str, SessionRecord],
    sessions: list[SiteSession],
    site: SiteMap,
    report: SiteReport,
) -> dict[str, JSON]:
    """Every index of the site, and the search page when the site has one and a page
    changed; returns the projects (folder → its index's variables)."""
    out, redactor = settings.out, settings.redactor
    projects = group_projects(records.values(), sessions, site.forks, site.labels)
    _project_indexes(settings, projects, records, report)
    _root_indexes(settings, projects, records, report)
    if settings.search and (
        report.rendered
        or report.removed
        or report.failed
        or not (out / "search" / "meta.js").is_file()
        or not (out / "search.html").is_file()
    ):
        _write_search(out, records, settings.fields, redactor, report)
    return projects


def remove_old_folders(out: Path, old: dict[str, SessionRecord], projects: dict[str, JSON]) -> None:
    """Once their pages are removed: the folders of projects no longer in the site lose
    their index, and go when nothing else is in them."""
    for old_folder in {Path(prev.page).parent for prev in old.values()}:
        _remove_if_only_index(out / old_folder, set(projects))


def _project_indexes(
    settings: BuildSettings,
    projects: dict[str, JSON],
    records: dict[str, SessionRecord],
    report: SiteReport,
) -> None:
    """Each project's index; its rows become the ones it could draw."""
    from ..page.render import SiteNav

    search_href = settings.search_href
    for key, proj in projects.items():
        nav = SiteNav(
            (("pi sessions", "../index.html", None), (proj["label"], None, proj["cwd"])),
            search_href and "../" + search_href,
        )
        project_page = partial(_project_page, proj, settings.options, nav)
        text, proj["sessions"] = _drawn(
            project_page, proj["sessions"], records, report, settings.redactor
        )
        write_checked(settings.out / key / "index.html", text, settings.redactor, report)


def _project_page(proj: JSON, options: RenderOptions, nav: SiteNav, rows: list[JSON]) -> str:
    from ..page.render import render_project_index

    return render_project_index({**proj, "sessions": rows}, options, nav=nav)


def _root_indexes(
    settings: BuildSettings,
    projects: dict[str, JSON],
    records: dict[str, SessionRecord],
    report: SiteReport,
) -> None:
    """The root index, and ``sessions.html`` when the root index cannot list every session."""
    from ..page.render import RECENT_SESSIONS

    out, redactor = settings.out, settings.redactor
    every = [r for p in projects.values() for r in p["sessions"]]
    root_page = partial(_root_page, projects, settings)
    text, every = _drawn(root_page, every, records, report, redactor)
    write_checked(out / "index.html", text, redactor, report)
    if len(every) <= RECENT_SESSIONS:
        with contextlib.suppress(FileNotFoundError):  # the root index lists every session
            (out / ALL_SESSIONS).unlink()
    else:
        all_page = partial(_all_page, projects, settings)
        write_checked(
            out / ALL_SESSIONS,
            _drawn(all_page, every, records, report, redactor)[0],
            redactor,
            report,
        )


def _listing(projects: dict[str, JSON], rows: list[JSON]) -> list[JSON]:
    """The projects with these rows (as ``_drawn`` left them) for their sessions."""
    by_source = {r.get("source"): r for r in rows}
    return [
        {
            **p,
            "sessions": [by_source[r["source"]] for r in p["sessions"] if r["source"] in by_source],
        }
        for p in projects.values()
    ]


def _root_page(projects: dict[str, JSON], settings: BuildSettings, rows: list[JSON]) -> str:
    from ..page.render import SiteNav, render_root_index

    nav = SiteNav((("pi sessions", None, None),), settings.search_href)
    return render_root_index(
        _listing(projects, rows), settings.options, nav=nav, all_href=ALL_SESSIONS
    )


def _all_page(projects: dict[str, JSON], settings: BuildSettings, rows: list[JSON]) -> str:
    from ..page.render import SiteNav, render_all_sessions

    trail = (("pi sessions", "index.html", None), ("All sessions", None, None))
    nav = SiteNav(trail, settings.search_href)
    return render_all_sessions(_listing(projects, rows), settings.options, nav=nav)


def _drawn(
    render: Callable[[list[JSON]], str],
    rows: list[JSON],
    records: dict[str, SessionRecord],
    report: SiteReport,
    redactor: Redactor | None,
) -> tuple[str, list[JSON]]:
    """An index page over ``rows`` (``group_projects``'s), and the rows it lists.

    Should the page fail to draw (nothing a session holds should make it, but rows may come
    from a manifest someone else wrote), each row is tried alone: one that fails is listed
    as a failed session and named in the report, and the rest are drawn; should they still
    fail together, the page is drawn without its charts over time."""
    try:
        return render(rows), rows
    except Exception as exc:  # one session must never stop the site
        first = exc
    kept: list[JSON] = []
    for row in rows:
        try:
            render([row])
        except Exception as exc:
            rel = str(row.get("source"))
            error = shown(f"{rel}: cannot be listed in the index: {exc!r}", redactor)
            report.failed.append((rel, error))
            failed: JSON = {**dict.fromkeys(SUMMARY_KEYS), "title": Path(rel).name, "models": []}
            failed["file"] = failed["title"]
            if rel in records:
                records[rel].error, records[rel].summary = error, dict(failed)
            row = {**row, **failed, "error": error, "warnings": 0, "forks": []}
        kept.append(row)
    try:
        return render(kept), kept
    except Exception:
        report.warnings.append(shown(f"the index charts could not be drawn ({first!r})", redactor))
        bare = [{**r, "usage": None} for r in kept]
        return render(bare), bare


def _write_search(
    out: Path,
    records: dict[str, SessionRecord],
    fields: frozenset[str],
    redactor: Redactor | None,
    report: SiteReport,
) -> None:
    """Merge the sessions' parts into the index the search page loads, and write the page.
    A session whose part cannot be merged is left out of the index and named."""
    from ..page.render import SiteNav, render_search_page
    from ..search.index import IndexedSession, build_index
    from ..search.script import script_constants

    indexed = [f for f in FIELDS if f in fields]
    sessions = [
        IndexedSession(
            r.page,
            r.summary.get("title") or "",
            r.summary.get("cwd") or "",
            r.summary.get("started"),
        )
        for r in sorted(records.values(), key=lambda r: r.page)
        if r.error is None
    ]
    problems: dict[str, str] = {}
    try:
        build_index(out, sessions, indexed, text_gate(redactor), problems)
    except RedactionError as exc:  # the merged index refused: no search, the rest is written
        report.refused.append(str(exc))
        write_refused(out / "search.html", str(exc), redactor, out)
        return
    by_page = {r.page: rel for rel, r in records.items()}
    for page, why in problems.items():
        rel = by_page.get(page, page)
        report.failed.append((rel, f"{rel}: left out of the search index: {why}"))
    nav = SiteNav((("pi sessions", "index.html", None), ("Search", None, None)))
    page = render_search_page(indexed, script_constants(), nav)
    write_checked(out / "search.html", page, redactor, report)


def group_projects(
    records: Iterable[SessionRecord],
    sessions: list[SiteSession],
    forks: dict[str, list[Fork]],
    labels: dict[str, str] | None = None,
) -> dict[str, JSON]:
    """Project index variables: sessions of each project, newest activity first."""
    pages_by_file = {Path(s.rel).name: s.page for s in sessions}
    records = list(records)
    titles = {rec.page: rec.summary.get("title") for rec in records}
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
                "label": (labels or {}).get(key, key),
                "costEstimated": None,
                "errors": 0,
                "toolErrors": 0,
            },
        )
        if summary.get("cwd") and not proj["cwd"]:
            proj["cwd"] = summary["cwd"]
        parent = summary.get("parentSession")
        parent_page = pages_by_file.get(basename(parent)) if isinstance(parent, str) else None
        row = {
            **summary,
            "source": rec.source,
            "href": rec.page.split("/", 1)[1],
            "error": rec.error,
            "warnings": len(rec.diagnostics),
            "parentHref": relative(rec.page, parent_page) if parent_page else None,
            "forks": [
                {
                    "file": fork.name,
                    "title": titles.get(fork.page) or fork.name,
                    "href": relative(rec.page, fork.page),
                }
                for fork in forks.get(rec.page, [])
            ],
        }
        proj["sessions"].append(row)
        proj["errors"] += int(summary.get("errors") or 0)
        proj["toolErrors"] += int(summary.get("toolErrors") or 0)
        proj["tokens"] += int(summary.get("tokens") or 0)
        proj["cost"] += float(summary.get("cost") or 0)
        est = summary.get("costEstimated")
        if isinstance(est, (int, float)):
            proj["costEstimated"] = (proj["costEstimated"] or 0.0) + est
        for k, pick in (("first", min), ("last", max)):
            v = summary.get("started" if k == "first" else "last")
            if isinstance(v, (int, float)):
                proj[k] = v if proj[k] is None else pick(proj[k], v)
    for proj in projects.values():
        proj["sessions"].sort(key=lambda r: (r.get("last") or 0, r.get("file") or ""), reverse=True)
        proj["cost"] = round(proj["cost"], 6)
        if proj["costEstimated"] is not None:
            proj["costEstimated"] = round(proj["costEstimated"], 6)
        if not proj["cwd"]:
            proj["cwd"] = proj["key"]
        tell_apart(proj["sessions"])
    return dict(sorted(projects.items(), key=lambda kv: -(kv[1]["last"] or 0)))


def tell_apart(rows: list[JSON]) -> None:
    """Sessions of one project with one title are told apart by when they started (to the
    minute, or the second when that is not enough), else by their id: ``dupTitle`` holds
    what the index shows after the title, None for a title of its own."""
    groups: dict[Any, list[JSON]] = {}
    for r in rows:
        r["dupTitle"] = None
        groups.setdefault(r.get("title"), []).append(r)
    for same in groups.values():
        if len(same) < 2:
            continue
        for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", None):
            texts = [_started_as(r, fmt) for r in same]
            if fmt is None or len(set(texts)) == len(texts):
                break
        for r, text in zip(same, texts, strict=True):
            r["dupTitle"] = text


def _started_as(row: JSON, fmt: str | None) -> str:
    when = utc_text(row.get("started"), fmt or "%Y-%m-%d %H:%M:%S") or "no date"
    return when if fmt is not None else f"{when} · {str(row.get('id') or row.get('file'))[:13]}"


def _remove_if_only_index(folder: Path, live: set[str]) -> None:
    """A project folder whose sessions are all gone loses its index too."""
    if folder.name in live or not folder.is_dir():
        return
    index = folder / "index.html"
    if index.is_file():
        index.unlink()
    with contextlib.suppress(OSError):  # not empty: something we did not write lives there
        folder.rmdir()
