"""One-line summaries of entries, and the whole tree as text the way pi's ``/tree`` shows it.

Shared by ``piexport tree`` and the page's navigator, so both describe an entry alike. A
summary joins lines, cuts and puts page words next to session text: it is made with the
session's ``derive`` (``text.cut.Derive``), which redacts it as a whole when the session
was redacted, so a row never holds a shape the redactor did not see.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..kinds import kind_of
from ..kinds.base import RowWords
from ..kinds.tools import call_summary
from ..read.model import Entry, Session
from ..read.pairing import tool_calls_by_id
from ..read.system import leading_system_ids
from ..read.tree import flatten
from ..text.cut import Derive, shorten
from ..text.textsafe import terminal_safe
from .paths import is_windows_path, shown_path


def entry_summary(
    entry: Entry, calls: Mapping[str, tuple[Any, Any]], derive: Derive, leading: bool = False
) -> str:
    """A short description of one entry (role and first words, ``[bash: cmd]``…: its kind's
    ``summary``), made with the session's ``derive``: joined, cut and then redacted as the
    one line it is. ``leading``: a system message that starts the prompt on its branch
    (``system.leading_system_ids``)."""
    return derive(_summary(entry, calls, leading))


def _summary(entry: Entry, calls: Mapping[str, tuple[Any, Any]], leading: bool = False) -> str:
    return kind_of(entry).summary(entry, calls, leading)


def render_tree_text(session: Session, *, ids: bool = False, width: int | None = None) -> str:
    """The whole tree, one line per entry: prefix, ``•`` on the current path, labels; with
    ``ids``, each entry's id first (what ``compare`` and ``--leaf`` take); with ``width``,
    each line cut to that many characters (a terminal's), with "…"."""
    calls = tool_calls_by_id(session)
    leading = leading_system_ids(session)
    rows = list(flatten(session.tree))
    pad = max((len(terminal_safe(r.id)) for r in rows), default=0) if ids else 0
    lines = []
    for row in rows:
        entry = session.by_id[row.id]
        marker = "• " if row.on_path else ""
        label = f"[{session.labels[row.id]}] " if row.id in session.labels else ""
        leaf = "  ← leaf" if row.id == session.tree.leaf_id else ""
        text = terminal_safe(f"{label}{_summary(entry, calls, row.id in leading)}")
        head = f"{terminal_safe(row.id):<{pad}}  " if ids else ""
        line = f"{head}{row.prefix()}{marker}{text}{leaf}"
        if width is not None and len(line) > width:  # a cut: never inside a token
            line = shorten(line, max(2, width))
        # the whole row, as the terminal shows it, read as one line
        lines.append(session.derive(line))
    return "\n".join(lines) + ("\n" if lines else "")


# ---- the page's tree rows (issue 28): what differs first ----------------------------------

_PATH_ARGS = ("path", "file_path")
_BUILT_IN = frozenset({"read", "write", "edit", "bash", "grep", "find", "ls"})
_CD_HERE = re.compile(r"""^cd\s+(["']?)\.\1\s*(?:&&|;)\s*""")


def command_head(command: str, cwd: str | None) -> str:
    """A shell command as a tree row shows it: its first line (``…`` when more follow), the
    session's cwd written as ``.`` (its files relative to it), and a leading ``cd <cwd> &&``
    left out, since every command runs there anyway."""
    lines = [ln for ln in command.split("\n") if ln.strip()]
    head = " ".join(lines[0].split()) if lines else ""
    base = (cwd or "").rstrip("/\\")
    if len(base) > 1:
        windows = is_windows_path(base)
        here = re.compile(
            re.escape(base) + r"""(?:[/\\]|(?=$|[\s'";&|)]))""",
            re.IGNORECASE if windows else 0,
        )
        head = here.sub(lambda m: "" if m.group(0)[-1:] in "/\\" else ".", head)
        # "cd /repo/src" became "cd src", "cd /repo" became "cd ."; "cd /repo/" became "cd "
        head = re.sub(r"^cd\s*(&&|;)", r"cd . \1", head)
        head = _CD_HERE.sub("", head)
    return head + (" …" if len(lines) > 1 else "")


_MD_MARKS = [
    (re.compile(r"(^|\s)#{1,6}(?=\s)"), r"\1"),  # headings
    (re.compile(r"(^|\s)>(?=\s)"), r"\1"),  # quotes
    (re.compile(r"```[\w+.-]*"), ""),  # fences and their language
    (re.compile(r"`([^`]+)`"), r"\1"),  # inline code
    # bold: a span of at most 300 characters, so a line of "**a " is linear, not quadratic
    (re.compile(r"\*\*(?=\S)(.{1,300}?)(?<=\S)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]+?)(?<=\S)\*(?![\w*])"), r"\1"),  # italic
    # links and images: their text (a "[" ends the search, so a run of them is linear)
    (re.compile(r"!?\[([^\[\]]*)\]\([^)\s]*\)"), r"\1"),
]


def plain_words(text: str) -> str:
    """One line of markdown as the words a reader sees: ``## Plan **now**`` → ``Plan now``
    (heading and quote marks, fences, code ticks, bold and italic marks, link targets out),
    spaces collapsed. For previews: tree rows, branch cards, the prompts list."""
    for pattern, repl in _MD_MARKS:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


def tree_row_text(
    entry: Entry,
    calls: Mapping[str, tuple[Any, Any]],
    cwd: str | None,
    derive: Derive,
    leading: bool = False,
) -> str:
    """The page's tree row for one entry: ``entry_summary``'s words, but a tool call's path
    relative to the session's cwd and a command by its head (``command_head``), so the rows
    of a long session start with what tells them apart (``[read: src/cart.py]``,
    ``[bash: npm test]``), not with the same absolute path cut off; what a user or the
    model wrote as plain words (``plain_words``). ``piexport tree`` keeps
    ``entry_summary``'s full words. Made with the session's ``derive``, as the one line it
    is."""
    return derive(_tree_row(entry, calls, cwd, leading))


def _tree_row(
    entry: Entry, calls: Mapping[str, tuple[Any, Any]], cwd: str | None, leading: bool
) -> str:
    def tool(name: Any, args: Any) -> str:
        if not isinstance(args, Mapping):
            return call_summary(name, args)
        shown = dict(args)
        for key in _PATH_ARGS:
            if isinstance(shown.get(key), str):
                shown[key] = shown_path(shown[key], cwd)
        if name == "bash" and isinstance(shown.get("command"), str):
            shown["command"] = command_head(shown["command"], cwd)
        if isinstance(name, str) and name not in _BUILT_IN:  # another tool: its words
            words = [" ".join(v.split()) for v in shown.values() if isinstance(v, str)]
            said = " · ".join(w for w in words if w)
            if said:
                return f"[{name}: {shorten(said, 60)}]"
        return call_summary(name, shown)

    # each kind's row (``Kind.row``), in these words
    words = RowWords(tool, lambda command: command_head(command, cwd), plain_words)
    return kind_of(entry).row(entry, calls, leading, words)
