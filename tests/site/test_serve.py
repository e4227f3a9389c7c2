"""``piexport serve``: a read-only server that refuses everything but the site's own files."""

from __future__ import annotations

import html
import http.client
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from piexport.export.pipeline import RenderOptions, export_session
from piexport.page.assets import csp_hash
from piexport.page.scripts import page_script
from piexport.site.build import build_site
from piexport.site.serve import SiteServer, host_allowed, start_server

from tests.support.live import SHOP, WAIT

SECRET = "the secret beside the site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("serve")
    (base / "secret.txt").write_text(SECRET, encoding="utf-8")
    (base / "secret.jsonl").write_text(SECRET, encoding="utf-8")
    out = base / "site"
    build_site(SHOP, out, options=RenderOptions(live=True))
    project = next(p for p in out.iterdir() if p.is_dir())
    (out / "empty-folder").mkdir()
    (project / "copy.jsonl").write_text(SECRET, encoding="utf-8")
    (out / "out-link.html").symlink_to(base / "secret.txt")
    (out / "out-dir").symlink_to(base, target_is_directory=True)
    (out / "jsonl-link.html").symlink_to(project / "copy.jsonl")
    (out / "in-link.html").symlink_to(out / "index.html")
    # folders whose index.html leads elsewhere: the file served is checked, not the folder
    for name, to in (
        ("docs", base / "secret.txt"),
        ("etc", Path("/etc/passwd")),
        ("raw", project / "copy.jsonl"),
        ("dot", out / ".piexport-manifest.json"),
        ("up", Path("..") / ".." / "secret.txt"),
    ):
        (out / name).mkdir()
        (out / name / "index.html").symlink_to(to)
    (out / "chain").mkdir()
    (out / "chain" / "hop.html").symlink_to(base / "secret.txt")
    (out / "chain" / "index.html").symlink_to(out / "chain" / "hop.html")
    (out / "loop").mkdir()
    (out / "loop" / "index.html").symlink_to(out / "loop" / "index.html")
    (out / "manifest-link.html").symlink_to(out / ".piexport-manifest.json")
    (out / "dot-dir").symlink_to(out / ".piexport-search", target_is_directory=True)
    os.mkfifo(out / "fifo.html")  # a reader of it would wait for ever
    (out / "inside").mkdir()
    (out / "inside" / "index.html").symlink_to(out / "index.html")
    return out


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[SiteServer]:
    s = start_server(site, "127.0.0.1", 0)
    yield s
    s.shutdown()
    s.server_close()


def request(
    server: SiteServer, path: str, method: str = "GET", host: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request with the path sent exactly as written (no client-side cleaning)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host != "":
            conn.putheader("Host", host if host is not None else f"127.0.0.1:{server.port}")
        conn.endheaders()
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


def test_binds_localhost_by_default(server: SiteServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.url().startswith("http://localhost:")


def test_serves_pages_with_their_own_csp_and_safety_headers(server: SiteServer, site: Path) -> None:
    status, headers, body = request(server, "/index.html")
    assert status == 200
    assert body == (site / "index.html").read_bytes()
    meta = re.search(rb'http-equiv="Content-Security-Policy" content="([^"]*)"', body)
    assert meta is not None
    assert headers["content-security-policy"] == html.unescape(meta.group(1).decode())
    assert headers["content-security-policy"].endswith("; connect-src 'self'")
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["etag"]


def test_head_answers_without_a_body(server: SiteServer) -> None:
    status, headers, body = request(server, "/index.html", "HEAD")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0
    assert "last-modified" in headers


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "BREW"])
def test_only_get_and_head(server: SiteServer, method: str) -> None:
    status, headers, body = request(server, "/index.html", method)
    assert status == 405
    assert headers["allow"] == "GET, HEAD"
    assert b"<html" not in body


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/x/%2e%2e/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "/%2fsecret.txt",
        "/..\\secret.txt",
        "/%5c..%5csecret.txt",
        "/.%2e/secret.txt",
        "/%252e%252e/secret.txt",
        "/out-link.html",
        "/out-dir/secret.txt",
        "/out-dir/",
        "/%00/../secret.txt",
    ],
)
def test_nothing_outside_the_site(server: SiteServer, path: str) -> None:
    status, _, body = request(server, path)
    assert status in (403, 404), (path, status)
    assert SECRET.encode() not in body


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.jsonl",
        "/jsonl-link.html",
        "/.piexport-manifest.json",
        "/empty-folder/",
        "/no-such-page.html",
    ],
)
def test_no_sessions_no_dot_files_no_listings(server: SiteServer, site: Path, path: str) -> None:
    status, _, body = request(server, path)
    assert status in (403, 404)
    assert SECRET.encode() not in body and b"<html" not in body


@pytest.mark.parametrize(
    "path",
    [
        "/docs/",
        "/etc/",
        "/raw/",
        "/dot/",
        "/up/",
        "/chain/",
        "/loop/",
        "/docs/index.html",
        "/raw/index.html",
        "/manifest-link.html",
        "/dot-dir/",
        "/fifo.html",
    ],
)
def test_the_file_served_is_checked_not_the_folder(server: SiteServer, path: str) -> None:
    """``folder/`` → ``folder/index.html`` is a second path resolution (issue 27): an
    ``index.html`` that is a symlink out of the site, to a session, a dot-file or a FIFO is
    refused like any other path."""
    status, _, body = request(server, path)
    assert status in (403, 404), (path, status)
    assert SECRET.encode() not in body and b"root:" not in body and b"fingerprint" not in body


def test_a_folder_whose_index_links_inside_is_served(server: SiteServer, site: Path) -> None:
    status, _, body = request(server, "/inside/")
    assert status == 200 and body == (site / "index.html").read_bytes()


def test_session_files_in_the_site_are_never_served(server: SiteServer, site: Path) -> None:
    project = next(
        p
        for p in site.iterdir()
        if (p / "index.html").is_file()
        and not p.is_symlink()
        and not (p / "index.html").is_symlink()
    )
    status, _, body = request(server, f"/{project.name}/copy.jsonl")
    assert status == 404 and SECRET.encode() not in body


def test_a_folder_answers_with_its_index(server: SiteServer, site: Path) -> None:
    project = next(
        p
        for p in site.iterdir()
        if (p / "index.html").is_file()
        and not p.is_symlink()
        and not (p / "index.html").is_symlink()
    )
    status, headers, _ = request(server, f"/{project.name}")
    assert status == 301 and headers["location"] == f"/{project.name}/"
    status, _, body = request(server, f"/{project.name}/")
    assert status == 200 and body == (project / "index.html").read_bytes()
    status, _, body = request(server, "/")
    assert status == 200 and body == (site / "index.html").read_bytes()
    status, _, body = request(server, "/in-link.html")  # a link that stays inside is fine
    assert status == 200 and body == (site / "index.html").read_bytes()


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",
        "evil.example",
        "localhost.evil.example:{port}",
        "localhost:1",
        "",
        "127.0.0.1",
    ],
)
def test_host_must_name_this_server(server: SiteServer, host: str) -> None:
    status, _, body = request(server, "/index.html", host=host.format(port=server.port))
    assert status == 421
    assert b"<html" not in body


@pytest.mark.parametrize("host", ["localhost:{port}", "127.0.0.1:{port}", "LOCALHOST:{port}"])
def test_localhost_names_are_accepted(server: SiteServer, host: str) -> None:
    status, _, _ = request(server, "/index.html", host=host.format(port=server.port))
    assert status == 200


def test_absolute_form_requests_are_refused(server: SiteServer) -> None:
    status, _, _ = request(server, "http://evil.example/index.html")
    assert status == 400


def test_host_allowed() -> None:
    assert host_allowed("localhost:8765", "127.0.0.1", 8765)
    assert host_allowed("[::1]:8765", "127.0.0.1", 8765)
    assert host_allowed("192.168.1.5:8765", "0.0.0.0", 8765)  # an address: no rebinding
    assert host_allowed("mybox:8765", "mybox", 8765)  # the name it was told to listen on
    assert not host_allowed("mybox:8765", "127.0.0.1", 8765)
    assert not host_allowed("[::1]", "127.0.0.1", 8765)
    assert not host_allowed(None, "127.0.0.1", 8765)


def test_not_modified_when_unchanged(server: SiteServer) -> None:
    _, headers, _ = request(server, "/index.html", "HEAD")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    conn.request("GET", "/index.html", headers={"If-None-Match": headers["etag"]})
    res = conn.getresponse()
    assert res.status == 304 and res.read() == b""
    conn.close()


def test_static_pages_keep_their_csp(tmp_path: Path) -> None:
    source = sorted(SHOP.glob("*.jsonl"))[0]
    static, live = tmp_path / "static.html", tmp_path / "live.html"
    export_session(source, static, RenderOptions())
    export_session(source, live, RenderOptions(live=True))
    s, v = static.read_text(encoding="utf-8"), live.read_text(encoding="utf-8")
    csp_s = re.search(r'Content-Security-Policy" content="([^"]*)"', s)
    csp_v = re.search(r'Content-Security-Policy" content="([^"]*)"', v)
    assert csp_s is not None and csp_v is not None
    assert "connect-src" not in csp_s.group(1) and '<meta name="piexport-live"' not in s
    # the same but for the script, which a served page has more of (the live parts)
    static_js, live_js = (csp_hash(page_script("session", x)).strip("'") for x in (False, True))
    assert static_js in csp_s.group(1) and live_js in csp_v.group(1)
    same = csp_s.group(1).replace(static_js, live_js)
    assert csp_v.group(1) == same + "; connect-src &#39;self&#39;"
    assert '<meta name="piexport-live"' in v


def test_serve_command_warns_off_localhost_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "piexport",
            "serve",
            str(SHOP),
            "-o",
            str(tmp_path / "o"),
            "--port",
            "0",
            "--host",
            "0.0.0.0",
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ},
    )
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline() for _ in range(3)]
        assert "warning: listening on 0.0.0.0" in lines[0]
        assert any("serving" in line and "http://localhost:" in line for line in lines), lines
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
