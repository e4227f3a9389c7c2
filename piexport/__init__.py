"""piexport: turn pi coding-agent session files into self-contained, shareable HTML."""

from __future__ import annotations

__version__ = "0.1.0"

from .context import build_session_context
from .errors import InputError, OutputError, PiexportError
from .loader import load_session
from .model import Diagnostic, Entry, Session, SessionHeader, Tree

__all__ = [
    "Diagnostic",
    "Entry",
    "InputError",
    "OutputError",
    "PiexportError",
    "Session",
    "SessionHeader",
    "Tree",
    "__version__",
    "build_session_context",
    "load_session",
]
