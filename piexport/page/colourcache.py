"""Coloured code blocks kept on disk, by content: shared by the pages of a site, by the
processes that build it and by later runs (agents read the same files again and again, and a
page is made again whenever its session grows).

The key is a hash of the code, the lexer's name, Pygments' version and :data:`FORMAT`; the
value is Pygments' HTML for it. A file is used only when it is exactly what Pygments makes of
that code: ``<span class="…">`` and ``</span>`` around the escaped text and nothing else, and
that text, unescaped, is the code. A corrupt, foreign or hostile file is therefore never put on
a page (it is coloured again and replaced). Files are written through ``write_atomic``; the
folder is kept under :data:`MAX_BYTES`, oldest first.

The folder is ``$PIEXPORT_CACHE_DIR`` or the user's cache folder (platformdirs); setting
``PIEXPORT_CACHE_DIR`` to ``off`` (or to an empty value) turns the cache off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path

from ..errors import OutputError
from ..output import write_atomic

FORMAT = 1
"""Bumped whenever what we store for a block changes."""
MIN_CHARS = 2_000
"""Smaller blocks colour faster than they are read back: not stored."""
MAX_BYTES = 256 * 1024 * 1024
"""The folder's size past which the oldest files are removed (down to three quarters)."""
_TAG = re.compile(r'<span class="[A-Za-z0-9_ -]{1,40}">|</span>')
_BAD_ENTITY = re.compile(r"&(?!amp;|lt;|gt;|quot;|#39;)")

_folder: Path | bool | None = False
"""The cache folder once looked up (None: no cache); False: not yet."""
_written = 0
"""Bytes this process has stored since it last pruned the folder."""


def folder() -> Path | None:
    global _folder
    if _folder is False:
        env = os.environ.get("PIEXPORT_CACHE_DIR")
        if env is not None:
            _folder = None if env.strip() in ("", "off") else Path(env) / "colour"
        else:
            import platformdirs

            _folder = platformdirs.user_cache_path("piexport", appauthor=False) / "colour"
    assert _folder is not True
    return _folder or None


def reset() -> None:
    """Look the folder up again (after the environment changed: tests)."""
    global _folder, _written
    _folder, _written = False, 0


def _path(root: Path, code: str, lexer_name: str) -> Path:
    from pygments import __version__ as pygments_version

    h = hashlib.blake2b(digest_size=20)
    for part in (str(FORMAT), pygments_version, lexer_name):
        h.update(part.encode() + b"\0")
    h.update(code.encode("utf-8", "surrogatepass"))
    digest = h.hexdigest()
    return root / digest[:2] / f"{digest[2:]}.html"


def is_colouring_of(html: str, code: str) -> bool:
    """Whether ``html`` is spans around exactly ``code`` (and maybe a final newline, as
    Pygments adds), escaped as Pygments escapes it."""
    tags = _TAG.findall(html)
    if any(t.startswith("</") == (i % 2 == 0) for i, t in enumerate(tags)) or len(tags) % 2:
        return False  # not open, close, open, close, …
    text = _TAG.sub("", html)
    if "<" in text or ">" in text or _BAD_ENTITY.search(text):
        return False
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'")):
        text = text.replace(entity, char)
    text = text.replace("&amp;", "&")
    return text == code or text == code + "\n"  # some lexers end the text with a newline


def load(code: str, lexer_name: str) -> str | None:
    """Pygments' HTML for ``code`` from the cache, or None."""
    root = folder()
    if root is None or len(code) < MIN_CHARS:
        return None
    try:
        data = _path(root, code, lexer_name).read_bytes()
        html = data.decode("utf-8", "surrogatepass")
    except (OSError, UnicodeDecodeError):
        return None
    return html if is_colouring_of(html, code) else None


def store(code: str, lexer_name: str, html: str) -> None:
    """Keep Pygments' HTML for ``code``; a folder that cannot be written is no error."""
    global _written
    root = folder()
    if root is None or len(code) < MIN_CHARS:
        return
    if not is_colouring_of(html, code):
        return  # Pygments changed the text (CR LF, a byte order mark): it would never load
    with contextlib.suppress(OutputError, OSError, UnicodeEncodeError):
        html.encode("utf-8")
        if _written == 0 or _written > MAX_BYTES // 8:
            prune(root)
            _written = 1
        write_atomic(_path(root, code, lexer_name), html)
        _written += len(html)


def prune(root: Path, max_bytes: int = MAX_BYTES) -> int:
    """Remove the oldest files until the folder holds at most three quarters of
    ``max_bytes`` (when it holds more than ``max_bytes``); returns how many went."""
    files: list[tuple[float, int, str]] = []
    total = 0
    with contextlib.suppress(OSError):
        for sub in os.scandir(root):
            if not sub.is_dir(follow_symlinks=False):
                continue
            for entry in os.scandir(sub.path):
                if entry.name.endswith(".html") and entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    files.append((st.st_mtime, st.st_size, entry.path))
                    total += st.st_size
    if total <= max_bytes:
        return 0
    removed = 0
    for _mtime, size, path in sorted(files):
        if total <= max_bytes * 3 // 4:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
            removed += 1
    return removed
