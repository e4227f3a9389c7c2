"""Versions of what piexport is and writes: the package, and the search index format (a site
built by another version's index is named, never misread)."""

from __future__ import annotations

__all__ = ["INDEX_VERSION", "__version__"]

__version__ = "0.1.0"

INDEX_VERSION = 3
"""The search index's format: raised when what a part holds changes."""
