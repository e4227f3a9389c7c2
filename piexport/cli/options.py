"""The options several commands share, spelled once: each decorator adds its click options
and, where they make one thing (a Redactor, a Selection, a SiteJob), hands the command that
thing instead of the options' values."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from ..read.dates import DATE_HELP
from ..read.selection import Selection
from ..search.records import FIELDS

if TYPE_CHECKING:  # the renderer and the redaction rules load only for commands using them
    from ..page.render import RenderOptions
    from ..redact.engine import Redactor
    from ..site.job import SiteJob

F = TypeVar("F", bound=Callable[..., Any])


def _options_into(
    name: str, options: list[Callable[[Any], Any]], build: Callable[[dict[str, Any]], Any]
) -> Callable[[F], F]:
    """Add click options to a command and hand it one argument built from their values."""

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def command(*args: Any, **kwargs: Any) -> Any:
            kwargs[name] = build(kwargs)
            return f(*args, **kwargs)

        wrapped: Any = command
        for option in reversed(options):
            wrapped = option(wrapped)
        return cast(F, wrapped)

    return decorate


strict_option = click.option("--strict", is_flag=True, help="Exit 1 when the file had warnings.")


# ---- the vocabulary: formats, a session file, the sessions a command reads

FORMAT_ALIASES = {"markdown": "md", "table": "text"}
"""Other names of a format, accepted wherever it is (``md`` and ``markdown`` are one)."""


class FormatChoice(click.Choice):  # type: ignore[type-arg]
    """``--format``'s names: the canonical ones (``text``, ``md``, ``json``, ``csv``,
    ``html``), and their other names (:data:`FORMAT_ALIASES`), in any case."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = value.lower()
            if value not in self.choices and FORMAT_ALIASES.get(value) in self.choices:
                value = FORMAT_ALIASES[value]
        return super().convert(value, param, ctx)


def format_option(*choices: str, help: str | None = None) -> Callable[[F], F]:
    """``--format`` as every command spells it: the first choice is the default; ``md``
    also answers to ``markdown``, ``text`` to ``table``."""
    return click.option(
        "--format",
        "fmt",
        type=FormatChoice(list(choices)),
        default=choices[0],
        show_default=True,
        help=help,
    )


def today() -> date:
    """The day relative dates count back from (UTC). Tests replace it: no test reads the
    clock."""
    return datetime.now(UTC).date()


class DateParam(click.ParamType):  # type: ignore[type-arg]
    """A day as people write it (``read.dates``): relative ones are made ISO here, from
    :func:`today`."""

    name = "date"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from ..errors import InputError
        from ..read.dates import resolve_day

        if value is None or not isinstance(value, str):
            return value
        try:
            return resolve_day(value, today())
        except InputError as exc:
            self.fail(str(exc), param, ctx)


def project_option(help: str = "Only projects whose cwd (or folder) matches this glob.") -> Any:
    return click.option("--project", metavar="GLOB", help=help)


def since_option(help: str) -> Any:
    return click.option("--since", metavar="DATE", type=DateParam(), help=f"{help} ({DATE_HELP}).")


def until_option(help: str) -> Any:
    return click.option("--until", metavar="DATE", type=DateParam(), help=f"{help} ({DATE_HELP}).")


def many_sessions(
    since: str = "Only sessions active on or after DATE",
    until: str = "Only sessions started on or before DATE",
) -> Callable[[F], F]:
    """``--project``, ``--since`` and ``--until``: the sessions a command over a folder
    reads (the command gets ``project``, ``since`` and ``until``, dates made ISO)."""

    def decorate(f: F) -> F:
        return cast(F, project_option()(since_option(since)(until_option(until)(f))))

    return decorate


def session_argument(*after: str) -> Callable[[F], F]:
    """FILE (a path, ``-`` for stdin, or the start of a session id, as pi's ``--session``
    takes it), then the arguments ``after`` names, and ``--latest`` (the session pi wrote to
    last, as pi's ``--continue``). It goes below ``redact_options``: the command gets
    ``file``, a path, and an error naming a file is redacted as the command's output is."""

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def command(*args: Any, **kwargs: Any) -> Any:
            latest = kwargs.pop("latest")
            values = [kwargs.pop("file"), *(kwargs.pop(name) for name in after)]
            if latest and values[-1] is None:  # FILE left out: the others come first
                values = [None, *values[:-1]]
            elif latest and values[0] is not None:
                raise click.UsageError("give FILE or --latest, not both")
            names = ["FILE", *(n.upper() for n in after)]
            for name, value in zip(names, values, strict=True):
                if value is None and not (latest and name == "FILE"):
                    raise click.UsageError(f"Missing argument '{name}'.")
            from .printing import session_path

            kwargs["file"] = session_path(values[0], kwargs.get("redactor"))
            kwargs.update(zip(after, values[1:], strict=True))
            return f(*args, **kwargs)

        wrapped: Any = click.option(
            "--latest",
            is_flag=True,
            help="Instead of FILE: the session pi wrote to last (this folder's project's, "
            "else any), as pi's --continue.",
        )(command)
        for name in reversed(after):
            wrapped = click.argument(name, metavar=name.upper(), required=False)(wrapped)
        wrapped = click.argument("file", required=False, type=click.Path(allow_dash=True))(wrapped)
        return cast(F, wrapped)

    return decorate


session_file = session_argument()
"""FILE or --latest (see :func:`session_argument`); a missing, unreadable or folder path is
the loader's to say, in one line naming it (exit 2)."""


highlight_option = click.option(
    "--highlight-chars",
    type=click.IntRange(0),
    metavar="N",
    default=None,
    help="Colour at most N characters of code per page (default 400000, about a second; "
    "0: none). Colouring is most of the time a page takes to make.",
)


page_timeout_option = click.option(
    "--page-timeout",
    "page_timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help=(
        "A last-resort hang guard: past this much CPU time a page is written as plain text,"
        " and the page and the run say so (default: 120 s + 30 s per MB of session)."
    ),
)


def colour(options: RenderOptions, highlight_chars: int | None) -> RenderOptions:
    """``options`` with the colouring budget --highlight-chars gave, if it did."""
    if highlight_chars is None:
        return options
    return dataclasses.replace(options, highlight_chars=highlight_chars)


def search_fields(value: str | None) -> frozenset[str] | None:
    """--search-fields: the fields to keep, or (each prefixed with -) to leave out."""
    if not value:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n.lstrip("-") not in FIELDS]
    if unknown:
        msg = f"unknown field(s) {', '.join(unknown)}; choose from {', '.join(FIELDS)}"
        raise click.BadParameter(msg)
    if all(n.startswith("-") for n in names):
        return frozenset(FIELDS) - {n[1:] for n in names}
    if any(n.startswith("-") for n in names):
        raise click.BadParameter("list fields to keep, or fields to leave out with -, not both")
    return frozenset(names)


def search_fields_option(help: str) -> Callable[[F], F]:
    return click.option(
        "--search-fields",
        metavar="LIST",
        callback=lambda _c, _p, v: search_fields(v),
        help=help,
    )


# ---- --redact and the selection


def _redactor(
    redact: bool, patterns: tuple[str, ...], config: Path | None, allow: tuple[str, ...]
) -> Redactor | None:
    """The Redactor the options ask for, or None; a bad pattern is a usage error (exit 2)."""
    if not (redact or patterns or config):
        return None
    from ..redact.config import load_redact_config
    from ..redact.engine import Redactor
    from ..redact.rules import RedactionError

    named = [("custom", p) for p in patterns]
    allowed, key = list(allow), ""
    try:
        if config is not None:
            extra, more_allowed, key = load_redact_config(config)
            named += extra
            allowed += more_allowed
        return Redactor.create(named, allowed, key)
    except RedactionError as exc:
        raise click.UsageError(str(exc)) from exc


def _pop_redactor(values: dict[str, Any]) -> Redactor | None:
    return _redactor(
        values.pop("redact"),
        values.pop("redact_patterns"),
        values.pop("redact_config"),
        values.pop("allow"),
    )


redact_options = _options_into(
    "redactor",
    [
        click.option(
            "--redact",
            is_flag=True,
            help="Replace secrets (API keys, tokens, passwords, private keys, credentials "
            "in URLs) with [REDACTED:rule:hash] before rendering, and refuse to write a "
            "page the rules still match.",
        ),
        click.option(
            "--redact-pattern",
            "redact_patterns",
            metavar="REGEX",
            multiple=True,
            help="Also redact what this regex matches (repeatable; implies --redact; a "
            "group named 'secret' limits it to that group).",
        ),
        click.option(
            "--redact-config",
            type=click.Path(dir_okay=False, exists=True, path_type=Path),
            help="TOML file with [[patterns]] (name, regex), allow = [...] and key = "
            "'...' (implies --redact).",
        ),
        click.option(
            "--allow",
            "allow",
            metavar="STRING",
            multiple=True,
            help="Never redact this exact string (repeatable).",
        ),
    ],
    _pop_redactor,
)
"""--redact and the options that shape it (every command that prints or writes session
text): the command gets ``redactor``."""


def no_redact_option(f: F) -> F:
    """``--no-redact`` for share, where --redact is the default: the command gets a Redactor
    unless --no-redact (then None), built by redact_options from the same options (so this
    decorator goes above it)."""

    @functools.wraps(f)
    def command(*args: Any, **kwargs: Any) -> Any:
        no_redact = kwargs.pop("no_redact")
        if no_redact and (kwargs["redact"] or kwargs["redact_patterns"] or kwargs["redact_config"]):
            raise click.UsageError(
                "--no-redact cannot be combined with --redact, --redact-pattern or --redact-config"
            )
        kwargs["redact"] = not no_redact
        return f(*args, **kwargs)

    option = click.option(
        "--no-redact",
        is_flag=True,
        help="Upload the page without redaction (asks first on a terminal).",
    )
    return cast(F, option(command))


def _pop_selection(values: dict[str, Any]) -> Selection | None:
    selection = Selection(
        branch="current" if values.pop("branch") == "current" else "all",
        leaf=values.pop("leaf_id", None),
        no_thinking=values.pop("no_thinking"),
        no_tool_output=values.pop("no_tool_output"),
        only_context=values.pop("only_context", False),
        no_images=values.pop("no_images"),
    )
    return None if selection.is_default else selection


def selection_options(*, per_session: bool) -> Callable[[F], F]:
    """--branch, --no-thinking, --no-tool-output, --no-images (and --leaf, --only-context):
    the command gets ``selection``."""
    options = [
        click.option(
            "--branch",
            type=click.Choice(["all", "current"]),
            default="all",
            show_default=True,
            help="Every branch, or only the path to the leaf.",
        ),
        click.option("--no-thinking", is_flag=True, help="Leave out the model's thinking."),
        click.option(
            "--no-tool-output", is_flag=True, help="Keep tool calls, leave out their output."
        ),
        click.option("--no-images", is_flag=True, help="Leave out images (a marker stays)."),
    ]
    if per_session:
        options += [
            click.option(
                "--leaf", "leaf_id", metavar="ID", help="The branch ending at this entry."
            ),
            click.option(
                "--only-context",
                is_flag=True,
                help="Only what the model saw on the current branch (pi's context).",
            ),
        ]

    return _options_into("selection", options, _pop_selection)


# ---- a site to build


def _pop_site_job(values: dict[str, Any]) -> SiteJob:
    from ..page.render import RenderOptions
    from ..read.discover import default_sessions_root
    from ..site.job import SiteJob

    root = values.pop("root")
    return SiteJob(
        root=root if root is not None else default_sessions_root(),
        out=values.pop("out"),
        options=colour(RenderOptions(), values.pop("highlight_chars")),
        jobs=values.pop("jobs"),
        force=values.pop("force"),
        project=values.pop("project"),
        since=values.pop("since"),
        until=values.pop("until"),
        redactor=values.pop("redactor"),
        selection=values.pop("selection"),
        page_seconds=values.pop("page_timeout"),
        search_fields=values.pop("search_fields"),
        search=not values.pop("no_search"),
    )


site_job = _options_into("job", [], _pop_site_job)
"""Hand ``site`` one ``SiteJob`` made from its options (ROOT, -o, -j, --force, --project,
--since, --until, --search-fields, --no-search, --page-timeout, --highlight-chars, and the
redaction and selection the decorators above it made): it goes below them all."""
