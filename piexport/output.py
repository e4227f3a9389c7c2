"""Writing output: atomically, so an interrupted run never leaves half a page."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import OutputError


def write_atomic(
    path: Path, text: str | Iterable[str], check: Callable[[Path], None] | None = None
) -> None:
    """Write text so readers see the old file or the new one, never half of either.

    ``text`` may be an iterable of parts (a streamed page): a big page is then never held
    in memory whole. ``check`` sees the finished temporary file before it replaces the old
    one; if it raises, nothing is replaced. The temporary file sits in the same folder, so
    ``os.replace`` is a rename on one file system; ``BaseException`` covers Ctrl-C and a
    failing generator.
    """
    parts = (text,) if isinstance(text, str) else text
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        msg = f"{path}: cannot write: {exc.strerror or exc}"
        raise OutputError(msg) from exc
    try:
        with os.fdopen(
            fd, "w", buffering=1 << 20, encoding="utf-8", errors="surrogateescape", newline="\n"
        ) as f:
            for part in parts:
                f.write(part)
        if check is not None:
            check(Path(tmp))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            msg = f"{path}: cannot write: {exc.strerror or exc}"
            raise OutputError(msg) from exc
        raise
