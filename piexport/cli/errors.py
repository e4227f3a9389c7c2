"""How a command ends when it does not succeed: the one place that gives each ending its exit
code, and that maps the library's errors to them. Every ending is a one-line message (or
none) on stderr, never a traceback."""

from __future__ import annotations

from typing import IO, Any

import click

from ..errors import InputError
from ..read.selection import SelectionError

EXIT_OK = 0
EXIT_FAILED = 1
"""The run failed, or found what it was told to fail on (--strict, --fail-on, no match)."""
EXIT_USAGE = 2
"""Unusable input or usage (click's own usage errors end with 2 too)."""
EXIT_INTERRUPTED = 130
"""Stopped at once by a second Ctrl+C (128 + SIGINT, as shells report it)."""


class CommandError(click.ClickException):
    """Ends the command: ``Error: message`` on stderr (nothing for an empty message, when
    the command has said what went wrong already), then its exit code."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)

    def show(self, file: IO[Any] | None = None) -> None:
        if self.message:
            super().show(file)


class UsageProblem(CommandError):
    """Unusable input: a file with no session, an unknown leaf, a folder that is not there,
    an address already in use (exit 2)."""

    exit_code = EXIT_USAGE


class RunFailed(CommandError):
    """The run failed (a page not written, a share not made, the gate refused an output)
    or found what it was told to fail on (exit 1)."""

    exit_code = EXIT_FAILED


class Interrupted(CommandError):
    """Stopped at once (a second Ctrl+C): the message said as it is, exit 130."""

    exit_code = EXIT_INTERRUPTED

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(self.message, err=True)


def failure(exc: Exception, message: str | None = None) -> CommandError:
    """The ending a library error makes: unusable input (``InputError``, an unknown leaf)
    is a :class:`UsageProblem`, anything else a :class:`RunFailed`; its message is the
    error's unless ``message`` is given (made safe to print, or redacted)."""
    usage = isinstance(exc, (InputError, SelectionError))
    return (UsageProblem if usage else RunFailed)(str(exc) if message is None else message)
