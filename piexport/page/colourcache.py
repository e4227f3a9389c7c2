"""Coloured code blocks kept on disk, by content: shared by the pages of a site, by the
processes that build it and by later runs (agents read the same files again and again, and a
page is made again whenever its session grows).

The key is a hash of the code, the lexer's name, Pygments' version and :data:`FORMAT`; the
value is Pygments' HTML for it. A file is used only when it is exactly what Pygments makes of
that code: ``<span class="…">`` and ``</span>`` around the escaped text and nothing else, each
class one that Pygments' formatter gives a token type (:data:`TOKEN_CLASSES`, a fixed list: a
planted file cannot borrow a class of the page's own, one that hides text), and that text,
unescaped, is the code. A corrupt, foreign or hostile file is therefore never put on a page (it
is coloured again and replaced). Files are written through ``write_atomic``; the folder is kept
under :data:`MAX_BYTES`, oldest first.

The folder is ``$PIEXPORT_CACHE_DIR`` or the user's cache folder (platformdirs); setting
``PIEXPORT_CACHE_DIR`` to ``off`` (or to an empty value) turns the cache off. A folder that
another user could have filled is neither read, written nor pruned (:func:`usable`): a symlink,
one owned by someone else, or one that others may write to. That is said once on stderr.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import sys
import zlib
from functools import cache
from pathlib import Path

from ..errors import OutputError
from ..output import write_atomic

FORMAT = 2
"""Bumped whenever what we store for a block changes (2: zlib-compressed UTF-8)."""
MIN_CHARS = 2_000
"""Smaller blocks colour faster than they are read back: not stored."""
MAX_BYTES = 256 * 1024 * 1024
"""The folder's size past which the oldest files are removed (down to three quarters)."""
MAX_HTML_BYTES = 40 * 1024 * 1024
"""No coloured block is bigger (highlight.MAX_HIGHLIGHT characters, each a few spans)."""
MAX_FILE_BYTES = 8 * 1024 * 1024
_TAG = re.compile(r'<span class="([A-Za-z0-9_-]{1,40})">|</span>')
_BAD_ENTITY = re.compile(r"&(?!amp;|lt;|gt;|quot;|#39;)")

_folder: Path | bool | None = False
"""The cache folder once looked up (None: no cache); False: not yet."""
_checked: dict[Path, bool] = {}
"""Whether a folder was found safe to use (:func:`usable`), once per process."""
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
    _checked.clear()


@cache
def token_classes() -> frozenset[str]:
    """Every class Pygments' HTML formatter (no prefix) writes for a standard token type."""
    from pygments.token import STANDARD_TYPES

    return frozenset(name for name in STANDARD_TYPES.values() if name)


def unsafe_reason(root: Path) -> str | None:
    """Why ``root`` (the colour folder) and the folder it sits in may hold files another user
    planted, or None. A missing folder is safe: it is made private when first written."""
    if os.name != "posix":
        return None
    for path in (root.parent, root):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{path} cannot be checked ({exc.strerror})"
        if stat.S_ISLNK(st.st_mode):
            return f"{path} is a symlink"
        if not stat.S_ISDIR(st.st_mode):
            return f"{path} is not a folder"
        if st.st_uid != os.geteuid():
            return f"{path} belongs to another user"
        if st.st_mode & 0o022:
            return f"{path} can be written by other users"
    return None


def usable(root: Path) -> bool:
    """Whether ``root`` may be read, written and pruned; the first refusal is said on stderr."""
    ok = _checked.get(root)
    if ok is None:
        reason = unsafe_reason(root)
        ok = reason is None
        _checked[root] = ok
        if reason is not None:
            print(f"piexport: colour cache not used: {reason}", file=sys.stderr)
    return ok


def _path(root: Path, code: str, lexer_name: str) -> Path:
    from pygments import __version__ as pygments_version

    h = hashlib.blake2b(digest_size=20)
    for part in (str(FORMAT), pygments_version, lexer_name):
        h.update(part.encode() + b"\0")
    h.update(code.encode("utf-8", "surrogatepass"))
    digest = h.hexdigest()
    return root / digest[:2] / f"{digest[2:]}.z"


def is_colouring_of(html: str, code: str) -> bool:
    """Whether ``html`` is spans around exactly ``code`` (and maybe a final newline, as
    Pygments adds), escaped as Pygments escapes it."""
    tags = [m.group(0) for m in _TAG.finditer(html)]
    opens, closes = tags[0::2], tags[1::2]
    if len(opens) != len(closes) or "</span>" in opens or closes.count("</span>") != len(closes):
        return False  # not open, close, open, close, …
    allowed = token_classes()
    if any(name not in allowed for name in _TAG.findall(html) if name):
        return False  # a class Pygments never writes (one the page uses to hide text)
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
    if root is None or len(code) < MIN_CHARS or not usable(root):
        return None
    try:
        with _path(root, code, lexer_name).open("rb") as f:
            packed = f.read(MAX_FILE_BYTES + 1)
        if len(packed) > MAX_FILE_BYTES:
            return None
        unpack = zlib.decompressobj()
        data = unpack.decompress(packed, MAX_HTML_BYTES + 1)  # never a zip bomb's worth
        if len(data) > MAX_HTML_BYTES or not unpack.eof:
            return None
        html = data.decode("utf-8")
    except (OSError, UnicodeDecodeError, zlib.error):
        return None
    return html if is_colouring_of(html, code) else None


def store(code: str, lexer_name: str, html: str) -> None:
    """Keep Pygments' HTML for ``code``; a folder that cannot be written is no error."""
    global _written
    root = folder()
    if root is None or len(code) < MIN_CHARS or not usable(root):
        return
    if not is_colouring_of(html, code):
        return  # Pygments changed the text (CR LF, a byte order mark): it would never load
    with contextlib.suppress(OutputError, OSError, UnicodeEncodeError):
        packed = zlib.compress(html.encode("utf-8"), 1)
        if len(packed) > MAX_FILE_BYTES or len(html) > MAX_HTML_BYTES:
            return
        if _written == 0:
            _private(root)
        if _written == 0 or _written > MAX_BYTES // 8:
            prune(root)
            _written = 1
        _write_bytes(_path(root, code, lexer_name), packed)
        _written += len(packed)


def _private(root: Path) -> None:
    """The cache holds what sessions showed (files an agent read): only its owner may look
    in, as in the session folder itself. What it made is checked again (:func:`usable`)."""
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "posix" and not os.path.islink(root) and root.stat().st_mode & 0o077:
        os.chmod(root, 0o700)
    _checked.pop(root, None)
    if not usable(root):
        raise OSError(f"{root} is not safe to use")


def _write_bytes(path: Path, data: bytes) -> None:
    """``write_atomic`` writes text: bytes go through it as Latin-1, one character each."""
    write_atomic(path, data.decode("latin-1"), encoding="latin-1")


def prune(root: Path, max_bytes: int = MAX_BYTES) -> int:
    """Remove the oldest files until the folder holds at most three quarters of
    ``max_bytes`` (when it holds more than ``max_bytes``); returns how many went. A folder
    that is not safe to use (:func:`usable`: a symlink, another user's) is left alone."""
    if not usable(root):
        return 0
    files: list[tuple[float, int, str]] = []
    total = 0
    with contextlib.suppress(OSError):
        for sub in os.scandir(root):
            if not sub.is_dir(follow_symlinks=False):
                continue
            for entry in os.scandir(sub.path):
                if entry.name.endswith((".z", ".html")) and entry.is_file(follow_symlinks=False):
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
