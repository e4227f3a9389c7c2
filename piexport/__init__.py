"""piexport: turn pi coding-agent session files into self-contained, shareable HTML."""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import InputError, OutputError, PiexportError
from .page.export import ExportResult, RenderOptions, export_session
from .page.render import render_session
from .read.context import build_session_context
from .read.loader import load_session
from .read.model import Diagnostic, Entry, Session, SessionHeader, Tree
from .read.selection import Selection, SelectionError, apply_selection
from .share.redact import RedactionError, Redactor, redact_session

__all__ = [
    "Diagnostic",
    "Entry",
    "ExportResult",
    "InputError",
    "OutputError",
    "PiexportError",
    "RedactionError",
    "Redactor",
    "RenderOptions",
    "Selection",
    "SelectionError",
    "Session",
    "SessionHeader",
    "Tree",
    "__version__",
    "apply_selection",
    "build_session_context",
    "export_session",
    "load_session",
    "redact_session",
    "render_session",
]
