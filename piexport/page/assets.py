"""Find templates/ and static/ (inside the wheel, or at the checkout root), hash them for the
CSP, and turn image blocks into data: URIs only when they are what they claim to be."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..text.cut import shorten

IMAGE_MAGIC: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
"""The only image types a page embeds (no SVG: it can carry script), with their magic bytes."""
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""One image larger than this becomes a placeholder (the page has its own budget too)."""


def asset_dir(name: str) -> Path:
    """The templates/ or static/ folder as a real path.

    A wheel carries it inside the package (hatch force-include); an editable install or a
    plain checkout has it at the repository root instead.
    """
    packaged = Path(str(files("piexport") / name))
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / name
    if checkout.is_dir():
        return checkout
    msg = f"piexport is missing its {name}/ folder"
    raise FileNotFoundError(msg)


@cache
def read_static(name: str) -> str:
    """A file from static/, read once per process (it is inlined into every page)."""
    return (asset_dir("static") / name).read_text(encoding="utf-8")


def csp_hash(text: str) -> str:
    """The CSP source for one inline script or style: only these exact bytes may run."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


@cache
def asset_fingerprint() -> str:
    """A hash of every template, static file and module: a change re-renders every page."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    compiled = package / "templates_compiled"  # made from templates/, hashed already
    for folder in (asset_dir("templates"), asset_dir("static"), package):
        for path in sorted(folder.rglob("*")):
            if compiled in path.parents:
                continue
            if path.is_file() and path.suffix in {".j2", ".css", ".js", ".py"}:
                h.update(path.name.encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Image:
    """An image block: a data URI when it passed every check, else why not."""

    mime: str
    """The claimed type, cut to 60 characters (it is content, shown escaped)."""
    size: int
    """Decoded bytes (estimated from the base64 length when it was not decoded)."""
    uri: str | None
    problem: str | None
    """Why the image is not shown, for the placeholder."""


def check_image(block: Any) -> Image:
    """Only png/jpeg/gif/webp, strictly valid base64, bytes that match the type, capped."""
    mime = block.get("mimeType") if isinstance(block, dict) else None
    data = block.get("data") if isinstance(block, dict) else None
    mime = shorten(mime, 60, "") if isinstance(mime, str) else "?"
    if not isinstance(data, str):
        return Image(mime, 0, None, "no image data")
    size = len(data) * 3 // 4
    if mime not in IMAGE_MAGIC:
        return Image(mime, size, None, "type not shown")
    if size > MAX_IMAGE_BYTES:
        return Image(mime, size, None, "too large to embed")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return Image(mime, size, None, "invalid base64")
    if not raw.startswith(IMAGE_MAGIC[mime]) or (mime == "image/webp" and raw[8:12] != b"WEBP"):
        return Image(mime, len(raw), None, "bytes do not match the type")
    # validated: the alphabet of ``data`` is [A-Za-z0-9+/=], nothing that could leave the URI
    return Image(mime, len(raw), f"data:{mime};base64,{data}", None)
