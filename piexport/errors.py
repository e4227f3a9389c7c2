"""Errors the library raises; only the CLI turns them into exit codes and one-line messages."""

from __future__ import annotations


class PiexportError(Exception):
    """Base class: the message is complete and names the file it is about."""


class InputError(PiexportError):
    """A session file that cannot be read or holds no session data at all (exit 2)."""


class OutputError(PiexportError):
    """An output file or folder that cannot be written."""


class RedactionError(PiexportError):
    """A written page would still hold something a rule matches, or a rule is unusable
    (``redact`` raises it; here so that code which only catches it need not load the rules)."""
