"""``site --watch`` and ``serve``: build a site, keep it current as pi writes, serve it,
until Ctrl+C.

The first Ctrl+C lets the build under way finish (so the site is whole) and stops; a second
one stops at once (``KeyboardInterrupt`` reaches the caller). The watch itself (when to
build) is :mod:`.watch`'s; the server is :mod:`.serve`'s. What a person is told goes
through ``say``: this module prints nothing itself.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..text.textsafe import terminal_safe
from .job import SiteJob

if TYPE_CHECKING:
    from .build import SiteReport
    from .serve import SiteServer

__all__ = ["LOCAL_HOSTS", "build_lines", "default_serve_folder", "serve", "watch"]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Addresses only this machine can reach: listening anywhere else is warned about."""


def default_serve_folder(root: Path) -> Path:
    """Where ``serve`` keeps its site when not told: a cache folder per sessions folder."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    resolved = str(root.expanduser().resolve())
    digest = hashlib.sha1(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return Path(cache) / "piexport" / "serve" / digest


def build_lines(report: SiteReport, *, quiet: bool = False, summary: bool = True) -> list[str]:
    """What a build tells a person: each session that failed and each index page the
    redaction gate refused (a plain page stands in its place); unless ``quiet``, each
    warning and (with ``summary``) the line of counts."""
    lines = [terminal_safe(f"failed: {error}") for _rel, error in report.failed]
    sessions = {error for _rel, error in report.failed}
    lines += [terminal_safe(f"refused: {why}") for why in report.refused if why not in sessions]
    if not quiet:
        lines += [terminal_safe(warning) for warning in report.warnings]
        if summary:
            lines.append(report.summary_line())
    return lines


def watch(
    job: SiteJob,
    *,
    say: Callable[[str], None],
    quiet: bool = False,
    poll: bool = False,
    server: SiteServer | None = None,
    open_browser: bool = False,
) -> None:
    """Build ``job``'s site, then build it again whenever a session changes, until Ctrl+C
    (SIGINT is handled here while the watch runs). ``server``: serving the site (shut down
    when the watch ends), its address said once the first build is written. Raises the
    first build's error (with no site there is nothing to keep current); a later build's
    error is said and the watch goes on."""
    from .watch import WatchState, watch_site

    stop = threading.Event()
    state = WatchState()

    def on_sigint(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        if state.building:
            say("stopping once this build is written (Ctrl+C again: at once)")

    def on_build(report: SiteReport) -> None:
        changed = report.rendered or report.removed or report.failed or state.builds == 1
        for line in build_lines(report, quiet=quiet, summary=bool(changed)):
            say(line)
        if state.builds != 1:
            return
        if server is not None:
            say(f"serving {job.out} at {server.url()} (Ctrl+C stops)")
            if open_browser:
                import webbrowser

                webbrowser.open(server.url())
        else:
            if open_browser:  # site --watch --open: the index, from the folder
                import webbrowser

                webbrowser.open((job.out / "index.html").resolve().as_uri())
            if not quiet:
                say(f"watching {job.root} (Ctrl+C stops)")

    def on_error(exc: Exception) -> None:  # a later build's: the watch goes on
        say(terminal_safe(f"build failed: {exc}"))

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        watch_site(
            job.root,
            job.out,
            stop=stop,
            on_build=on_build,
            on_error=on_error,
            state=state,
            force_polling=True if poll else None,
            **job.build_options(),
        )
    finally:
        signal.signal(signal.SIGINT, previous)
        if server is not None:
            server.shutdown()
            server.server_close()
    if not quiet:
        say("stopped; the site is complete")


def serve(
    job: SiteJob,
    host: str,
    port: int,
    *,
    say: Callable[[str], None],
    quiet: bool = False,
    poll: bool = False,
    open_browser: bool = False,
) -> None:
    """Serve ``job``'s site read-only on ``host``:``port`` while :func:`watch` keeps it
    current. Raises ``InputError`` when the address cannot be listened on."""
    from .serve import start_server

    if host not in LOCAL_HOSTS:
        say(
            f"warning: listening on {host}: anyone who can reach this address can read "
            "your sessions (no password, no TLS)"
        )
    job.out.mkdir(parents=True, exist_ok=True)
    try:
        server = start_server(job.out, "127.0.0.1" if host == "localhost" else host, port)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    watch(job, say=say, quiet=quiet, poll=poll, server=server, open_browser=open_browser)
