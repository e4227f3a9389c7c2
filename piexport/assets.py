"""Find templates/ and static/ (inside the wheel, or at the checkout root), and hash them."""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib.resources import files
from pathlib import Path


def asset_dir(name: str) -> Path:
    """The templates/ or static/ folder as a real path.

    A wheel carries it inside the package (hatch force-include); an editable install or a
    plain checkout has it at the repository root instead.
    """
    packaged = Path(str(files("piexport") / name))
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.is_dir():
        return checkout
    msg = f"piexport is missing its {name}/ folder"
    raise FileNotFoundError(msg)


@cache
def read_static(name: str) -> str:
    return (asset_dir("static") / name).read_text(encoding="utf-8")


def csp_hash(text: str) -> str:
    """The CSP source for one inline script or style: only these exact bytes may run."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


@cache
def asset_fingerprint() -> str:
    """A hash of every template, static file and module: a change re-renders every page."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for folder in (asset_dir("templates"), asset_dir("static"), package):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in {".j2", ".css", ".js", ".py"}:
                h.update(path.name.encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]
