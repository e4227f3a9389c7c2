"""The ``piexport`` command: a thin layer that maps options to library calls.

One module per group of commands: :mod:`.session` (one session file: render, summary and
the printed reports), :mod:`.archive` (a sessions folder: site, serve, search, usage),
:mod:`.share` (share, shares). The options they share are :mod:`.options`'; how they print
is :mod:`.printing`'s; how they end (exit codes) is :mod:`.errors`'. Start-up loads no
renderer: each command imports what it needs when it runs.
"""

from __future__ import annotations

import click

from ..version import __version__
from . import archive, session, share
from .errors import Interrupted

__all__ = ["cli", "main"]

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Piexport(click.Group):
    """The command group: Ctrl+C anywhere ends a command with one line and exit 130 (never
    a traceback, nor click's "Aborted!" and exit 1)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted("piexport: interrupted") from None


@click.group(cls=_Piexport, context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.version_option(__version__, "-V", "--version", prog_name="piexport")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Turn pi coding-agent session files into self-contained HTML you can share and keep."""
    if ctx.invoked_subcommand is None:
        from ..read.discover import default_sessions_root, discover
        from ..report.branches import plural

        click.echo(ctx.get_help())
        root = default_sessions_root()
        count = len(discover(root)) if root.is_dir() else 0
        if count:
            click.echo(
                f"\nFound {plural(count, 'pi session')} in {root}.\n"
                f"Run `piexport site` to archive them all into ./piexport-site/."
            )


for _command in (*session.COMMANDS, *archive.COMMANDS, *share.COMMANDS):
    cli.add_command(_command)


def main() -> None:
    """Entry point of the console script and ``python -m piexport``."""
    cli(prog_name="piexport")
