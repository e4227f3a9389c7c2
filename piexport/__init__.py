"""piexport: turn pi coding-agent session files into self-contained, shareable HTML."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import InputError, OutputError, PiexportError
from .version import __version__

if TYPE_CHECKING:
    from .export.pipeline import ExportResult, RenderOptions, export_session
    from .page.render import render_session
    from .read.context import build_session_context
    from .read.loader import load_session
    from .read.model import Diagnostic, Entry, Session, SessionHeader, Tree
    from .read.selection import Selection, SelectionError, apply_selection
    from .redact.engine import Redactor
    from .redact.rules import RedactionError
    from .redact.session import redact_session

_LAZY = {
    "Diagnostic": "read.model",
    "Entry": "read.model",
    "ExportResult": "export.pipeline",
    "RedactionError": "redact.rules",
    "Redactor": "redact.engine",
    "RenderOptions": "export.pipeline",
    "Selection": "read.selection",
    "SelectionError": "read.selection",
    "Session": "read.model",
    "SessionHeader": "read.model",
    "Tree": "read.model",
    "apply_selection": "read.selection",
    "build_session_context": "read.context",
    "export_session": "export.pipeline",
    "load_session": "read.loader",
    "redact_session": "redact.session",
    "render_session": "page.render",
}
"""Names imported on first use (PEP 562): ``import piexport`` (and the CLI's start) must not
pay for the renderer, Jinja, Pygments and markdown-it."""


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
