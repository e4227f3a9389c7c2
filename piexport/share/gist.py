"""Secret gists through GitHub's own CLI (``gh``): create one from a file, delete one.

``gh`` keeps the user's login, speaks to GitHub Enterprise hosts and handles the network; we
only run it, always with an argument list (never a shell), no standard input and prompts off,
and turn each way it can fail into a :class:`GistError` that says what to do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import PiexportError
from ..text.textsafe import terminal_safe

__all__ = ["Gist", "GistError", "check_gh", "create_gist", "delete_gist", "gist_id_from"]

CREATE_SECONDS = 600.0
"""A big page on a slow line; past this, gh is stopped and the share has failed."""
CALL_SECONDS = 120.0

_ID = re.compile(r"[0-9A-Za-z]{1,64}")
_URL = re.compile(r"https?://\S+")


class GistError(PiexportError):
    """gh is missing, not logged in, or could not do what it was asked."""


@dataclass(frozen=True, slots=True)
class Gist:
    id: str
    url: str


def check_gh() -> str:
    """The path of a ``gh`` that is logged in; raises :class:`GistError` otherwise."""
    gh = shutil.which("gh")
    if gh is None:
        raise GistError(
            "gh (GitHub's CLI) was not found on PATH: install it from https://cli.github.com "
            "and run `gh auth login`"
        )
    done = _run([gh, "auth", "status"], CALL_SECONDS)
    if done.returncode != 0:
        raise GistError(f"gh is not logged in to GitHub: run `gh auth login`{_said(done)}")
    return gh


def create_gist(gh: str, path: Path, description: str) -> Gist:
    """Upload ``path`` as a new **secret** gist (gh's default: ``--public`` is never passed)."""
    argv = [gh, "gist", "create", f"--desc={description}", str(path.resolve())]
    done = _run(argv, CREATE_SECONDS)
    if done.returncode != 0:
        raise GistError(f"gh could not create the gist{_said(done)}")
    urls = _URL.findall(done.stdout)
    gist_id = gist_id_from(urls[-1]) if urls else None
    if gist_id is None:
        raise GistError(f"gh created a gist but printed no gist URL{_said(done)}")
    return Gist(gist_id, urls[-1])


def delete_gist(gh: str, gist_id: str) -> bool:
    """Delete a gist; False when GitHub no longer has it (deleted already)."""
    if not _ID.fullmatch(gist_id):
        raise GistError(f"{gist_id!r} is not a gist id")
    done = _run([gh, "gist", "delete", gist_id, "--yes"], CALL_SECONDS)
    if done.returncode != 0 and "unknown flag: --yes" in done.stderr:
        # gh before 2.50 deletes by id without asking, and has no --yes
        done = _run([gh, "gist", "delete", gist_id], CALL_SECONDS)
    if done.returncode == 0:
        return True
    if re.search(r"\b404\b|not found", done.stderr, re.IGNORECASE):
        return False
    raise GistError(f"gh could not delete gist {gist_id}{_said(done)}")


def gist_id_from(text: str) -> str | None:
    """The id in a gist URL (``https://gist.github.com/[user/]ID``) or a bare id."""
    last = text.strip().rstrip("/").rsplit("/", 1)[-1]
    last = last.split("#", 1)[0].split("?", 1)[0]
    return last if _ID.fullmatch(last) else None


def _run(argv: list[str], seconds: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1"}
    try:
        return subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
            timeout=seconds,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GistError(f"gh {' '.join(argv[1:3])} took longer than {seconds:g} s") from exc
    except OSError as exc:
        raise GistError(f"cannot run gh ({argv[0]}): {exc.strerror or exc}") from exc


def _said(done: subprocess.CompletedProcess[str]) -> str:
    """gh's own last words (stderr, else stdout), on one line and safe for a terminal."""
    lines = [ln.strip() for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
    if not lines:
        return f" (gh exited {done.returncode})"
    return ": " + terminal_safe(" / ".join(lines[-3:]))[:500]
