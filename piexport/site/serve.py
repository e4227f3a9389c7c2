"""``piexport serve``: a local, read-only HTTP server over a site folder.

The standard library's threading server is all a local reader needs. What it adds is the
refusing:

- only GET and HEAD (anything else: 405 with ``Allow``);
- only files inside the site folder: no ``..``, no encoded slash or backslash, no dot-files
  (the manifest, temporary files), no symlink that leads out (403 or 404);
- never a session file (``.jsonl``): the site is what is served, not its sources;
- no directory listings: a folder answers with its ``index.html`` or 404;
- the Host header must name this server (``localhost`` or an IP address, with its port), so a
  web page elsewhere cannot reach it through a DNS name rebound to 127.0.0.1 (421);
- every answer carries ``nosniff``, ``no-referrer`` and a CSP: a page's own (from its
  ``<meta>``), anything else ``default-src 'none'``.

Pages are served as they are on disk (the server injects nothing); the site build writes them
atomically, so a reader gets the old page or the new one. ETag and Last-Modified tell the
page's script when its page changed.
"""

from __future__ import annotations

import contextlib
import html
import ipaddress
import mimetypes
import os
import re
import shutil
import socket
import stat
import threading
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote, urlsplit

ALLOWED = "GET, HEAD"
FALLBACK_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
_META_CSP = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"<>]*)">')
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
}


class SiteServer(ThreadingHTTPServer):
    """Serves one folder; ``root`` is resolved once (symlinks out of it are refused)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 8765) -> None:
        self.root = root.resolve()
        self.host = host
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, path: str = "") -> str:
        host = "localhost" if self.host in ("127.0.0.1", "::1", "0.0.0.0", "::") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/{path.lstrip('/')}"


def start_server(root: Path, host: str = "127.0.0.1", port: int = 8765) -> SiteServer:
    """A server for ``root`` answering in a thread of its own (``port`` 0: any free one).
    Stop it with ``shutdown()`` then ``server_close()``."""
    server = SiteServer(root, host, port)
    threading.Thread(target=server.serve_forever, name="piexport-serve", daemon=True).start()
    return server


def host_allowed(header: str | None, server_host: str, port: int) -> bool:
    """Whether a Host header names this server: ``localhost`` or an IP address (a DNS
    rebinding attack needs a name), or the host it was told to listen on, with its port."""
    if not header:
        return False
    header = header.strip().lower()
    if header.startswith("["):
        name, _, rest = header[1:].partition("]")
        if not rest.startswith(":"):
            return False
        port_text = rest[1:]
    else:
        name, sep, port_text = header.rpartition(":")
        if not sep:
            return False
    if port_text != str(port):
        return False
    if name in ("localhost", server_host.lower().strip("[]")):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class _Handler(BaseHTTPRequestHandler):
    server: SiteServer
    server_version = "piexport"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a reader's clicks are not news

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):  # every other method: 405, not the stock 501
            return self._not_allowed
        raise AttributeError(name)

    def _not_allowed(self) -> None:
        self._refuse(HTTPStatus.METHOD_NOT_ALLOWED, {"Allow": ALLOWED})

    def do_GET(self) -> None:
        self._serve(body=True)

    def do_HEAD(self) -> None:
        self._serve(body=False)

    # ---- answers

    def _common(self, csp: str = FALLBACK_CSP) -> None:
        self.send_header("Content-Security-Policy", csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")

    def _refuse(self, status: HTTPStatus, extra: dict[str, str] | None = None) -> None:
        body = f"{status.value} {status.phrase}\n".encode()
        self.send_response(status)
        self._common()
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _serve(self, body: bool) -> None:
        if not host_allowed(self.headers.get("Host"), self.server.host, self.server.port):
            self._refuse(HTTPStatus.MISDIRECTED_REQUEST)
            return
        target, status = self._target()
        if target is None:
            self._refuse(status)
            return
        if target.is_dir():
            if not self.path.split("?", 1)[0].endswith("/"):
                location = urlsplit(self.path).path + "/"
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self._common()
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            # a second path: the folder was checked, its index.html (a symlink?) is not yet
            target, status = served_file(self.server.root, target / "index.html")
            if target is None:
                self._refuse(status)  # never a listing
                return
        f = open_served(self.server.root, target)
        if f is None:
            self._refuse(HTTPStatus.NOT_FOUND)
            return
        with f:
            st = os.fstat(f.fileno())  # the file opened, even if a new one took its name
            etag = f'"{st.st_mtime_ns:x}-{st.st_size:x}"'
            kind = _TYPES.get(target.suffix.lower()) or (
                mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            )
            csp = FALLBACK_CSP
            if target.suffix.lower() == ".html":
                found = _META_CSP.search(f.read(4096))
                f.seek(0)
                if found:
                    csp = html.unescape(found.group(1).decode("utf-8", "replace"))
            if self.headers.get("If-None-Match") == etag:
                self.send_response(HTTPStatus.NOT_MODIFIED)
                self._common(csp)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(HTTPStatus.OK)
            self._common(csp)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(st.st_size))
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", formatdate(st.st_mtime, usegmt=True))
            self.end_headers()
            if body:
                with contextlib.suppress(ConnectionError):
                    shutil.copyfileobj(f, self.wfile, 1 << 20)

    def _target(self) -> tuple[Path | None, HTTPStatus]:
        """The file a request path names, or why not (403: it tries to leave the folder,
        404: not there or not served)."""
        raw = self.path
        if not raw.startswith("/") or raw.startswith("//"):
            return None, HTTPStatus.BAD_REQUEST
        path = urlsplit(raw).path
        low = path.lower()
        if "%2f" in low or "%5c" in low or "\\" in path or "%00" in low:
            return None, HTTPStatus.FORBIDDEN
        try:
            text = unquote(path, errors="strict")
        except UnicodeDecodeError:
            return None, HTTPStatus.NOT_FOUND
        parts = [p for p in text.split("/") if p]
        if any(p in ("..", ".") or "\x00" in p or "\\" in p for p in parts):
            return None, HTTPStatus.FORBIDDEN
        if any(p.startswith(".") for p in parts):  # the manifest, temporary files
            return None, HTTPStatus.NOT_FOUND
        if parts and parts[-1].lower().endswith(".jsonl"):
            return None, HTTPStatus.NOT_FOUND  # the sessions themselves: never
        return served_file(self.server.root, self.server.root.joinpath(*parts))


def _inside(root: Path, real: Path) -> bool:
    """Whether a path with no symlinks on it names something ``root`` may serve."""
    if real != root and not real.is_relative_to(root):
        return False
    inside = real.relative_to(root).parts
    return not any(p.startswith(".") for p in inside) and real.suffix.lower() != ".jsonl"


def served_file(root: Path, path: Path) -> tuple[Path | None, HTTPStatus]:
    """The file or folder ``path`` (inside ``root``, which is resolved) leads to, if it may
    be served: every rule is checked on where it leads, after every symlink on the way
    (403: it leads out of the folder; 404: not there, a dot-file, a session file)."""
    try:
        target = path.resolve()
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop (3.11)
        return None, HTTPStatus.NOT_FOUND
    if target != root and not target.is_relative_to(root):
        return None, HTTPStatus.FORBIDDEN  # a symlink that leads out
    if not _inside(root, target):
        return None, HTTPStatus.NOT_FOUND  # the manifest, temporary files, sessions: never
    try:
        ok = target.is_dir() or target.is_file()
    except OSError:
        ok = False
    return (target, HTTPStatus.OK) if ok else (None, HTTPStatus.NOT_FOUND)


def open_served(root: Path, target: Path) -> BinaryIO | None:
    """``target`` (from :func:`served_file`) opened, if what was opened is still a regular
    file inside ``root``: a symlink put in its place since it was checked is not followed,
    a FIFO or a device is not read (it would hold the answer forever)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(target, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        proc = Path(f"/proc/self/fd/{fd}")
        if proc.is_symlink():  # Linux: where the open file really is, after any race
            real = os.readlink(proc).removesuffix(" (deleted)")  # replaced since: the old page
            if not _inside(root, Path(real)):
                raise OSError("not inside the site")
        return os.fdopen(fd, "rb")
    except OSError:
        os.close(fd)
        return None
