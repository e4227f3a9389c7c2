"""Writing output: atomically, so an interrupted run never leaves half a page."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from .deadline import held
from .errors import OutputError


def write_atomic(
    path: Path,
    text: str | Iterable[str],
    check: Callable[[Path], None] | None = None,
    *,
    encoding: str = "utf-8",
) -> None:
    """Write text so readers see the old file or the new one, never half of either.

    ``text`` may be an iterable of parts (a streamed page): a big page is then never held
    in memory whole. ``check`` sees the finished temporary file before it replaces the old
    one; if it raises, nothing is replaced. The temporary file sits in the same folder, so
    ``os.replace`` is a rename on one file system; ``BaseException`` covers Ctrl-C and a
    failing generator.
    """
    import tempfile  # here: a command that writes nothing (--version, info) does not load it

    parts = (text,) if isinstance(text, str) else text
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale(path.parent)
        fd, tmp = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
        )
    except OSError as exc:
        msg = f"{path}: cannot write: {exc.strerror or exc}"
        raise OutputError(msg) from exc
    try:
        with os.fdopen(
            fd, "w", buffering=1 << 20, encoding=encoding, errors="surrogateescape", newline="\n"
        ) as f:
            for part in parts:
                f.write(part)
        if check is not None:
            check(Path(tmp))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        with held(), contextlib.suppress(OSError):
            os.unlink(tmp)
        # a streamed page stopped midway ends its work now (its worker processes included),
        # not whenever the garbage collector gets to it
        close = getattr(parts, "close", None)
        if close is not None:
            with held():
                close()
        if isinstance(exc, OSError):
            msg = f"{path}: cannot write: {exc.strerror or exc}"
            raise OutputError(msg) from exc
        raise


STALE_SECONDS = 3600
"""A temporary file whose writer cannot be asked (another system, an older piexport) is left
alone for this long: it may belong to a run that is still writing."""
_swept: set[Path] = set()


def sweep_stale(folder: Path) -> int:
    """Remove temporary files that killed runs left in ``folder`` (once per process and
    folder); returns how many. A file is ours when it is named ``.<name>.<pid>.<random>.tmp``
    and stale when that process is gone (or, where that cannot be asked, after an hour)."""
    if folder in _swept:
        return 0
    _swept.add(folder)
    removed = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            ours = entry.name.startswith(".") and entry.name.endswith(".tmp")
            if ours and entry.is_file() and _is_stale(entry):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed += 1
    return removed


def _is_stale(entry: os.DirEntry[str]) -> bool:
    parts = entry.name[: -len(".tmp")].rsplit(".", 2)
    pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
    if pid == os.getpid():
        return False
    if pid is not None and os.name == "posix":
        try:
            os.kill(pid, 0)  # signal 0: only asks whether the process exists
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False
    return time.time() - entry.stat().st_mtime > STALE_SECONDS
