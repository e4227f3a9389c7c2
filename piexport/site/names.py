"""Where a session's page goes: file-name-safe slugs, project folders and page names."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

__all__ = ["page_name", "project_key", "slug"]


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, limit: int = 60) -> str:
    """A file-name-safe, readable slug; never empty, never ``.`` or ``..``."""
    s = _UNSAFE.sub("-", text).strip("-.")[-limit:].strip("-.")
    return s or "x"


def project_key(cwd: str | None, folder: str) -> str:
    """Folder name for a project: readable, plus a hash so two cwds that encode alike differ."""
    ident = cwd if cwd else f"folder:{folder}"
    digest = hashlib.sha1(ident.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    readable = slug(cwd.replace("\\", "/")) if cwd else slug(folder or "unknown")
    return f"{readable}-{digest}"


def page_name(source: Path) -> str:
    return slug(source.stem, 120) + ".html"
