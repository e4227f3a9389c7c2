"""What of each block a session page shows, within the block's cap and the page's budgets.

One :class:`PageBlocks` per page: it cuts each block (code, tool output, a file's text) to
what the page may still hold, the session's ``derive`` making the new end; it colours code
within the page's highlighting budget and checks images against its image budget. It hands
the templates records (:class:`CodeBlock`, :class:`OutputBlock`, :class:`FileBlock`) whose
markup ``templates/macros/blocks.html.j2`` writes. Their HTML is escaped here, by Pygments,
our ANSI converter or ``escape_text``: a template prints it as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..text.ansi import ansi_to_html, escape_text
from ..text.cut import Derive, whole_cut
from ..text.textsafe import reveal_controls
from .assets import Image, check_image
from .highlight import highlight_block, highlight_code, lexer_by_name, lexer_for_path
from .parallel import PageBudgets

__all__ = [
    "PREVIEW_LINES",
    "CodeBlock",
    "FileBlock",
    "NumberedLines",
    "OutputBlock",
    "PageBlocks",
    "head",
    "line_count",
    "tail",
]

PREVIEW_LINES = 20
"""Longer outputs and files show this many lines and expand in place."""


def line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def head(text: str, n: int = PREVIEW_LINES) -> str:
    return "\n".join(text.split("\n", n)[:n])


def tail(text: str, n: int = PREVIEW_LINES) -> str:
    return "\n".join(text.rsplit("\n", n)[-n:])


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """Code as the page shows it: coloured while the page's budget lasts."""

    html: Markup
    missing: int
    """Characters of the block the page leaves out (0: it shows all of it)."""


@dataclass(frozen=True, slots=True)
class OutputBlock:
    """A tool's output: all of it, and past ``PREVIEW_LINES`` a preview to fold it under."""

    html: Markup
    lines: int
    preview: Markup | None
    """Its first lines, or its last for a terminal's (``from_end``); None: not folded."""
    from_end: bool
    error: bool
    missing: int


@dataclass(frozen=True, slots=True)
class NumberedLines:
    """Code lines beside their numbers, each column joined (files are long: no loop in a
    template)."""

    gutter: Markup
    code: Markup


@dataclass(frozen=True, slots=True)
class FileBlock:
    """A file's text with line numbers, and past ``PREVIEW_LINES`` its first lines too."""

    whole: NumberedLines
    lines: int
    preview: NumberedLines | None
    missing: int


def numbered_lines(lines: list[str], start: Any = 1, limit: int | None = None) -> NumberedLines:
    """Code lines from ``PageBlocks.code_lines`` (already escaped and highlighted) and their
    numbers counted from ``start`` (a read's offset)."""
    first = start if isinstance(start, int) and not isinstance(start, bool) else 1
    shown = lines[:limit] if limit is not None else lines
    end = "\n" if shown else ""
    gutter = "\n".join(map(str, range(first, first + len(shown)))) + end
    return NumberedLines(Markup(gutter), Markup("\n".join(shown) + end))


def _escaped(text: str) -> str:
    return reveal_controls(escape_text(text))


class PageBlocks:
    """The blocks of one page, each within its cap (``block_chars``) and what is left of the
    page's budgets (``budgets``), in the order the page shows them."""

    __slots__ = ("block_chars", "budgets", "derive")

    def __init__(self, derive: Derive, budgets: PageBudgets, block_chars: int) -> None:
        self.derive = derive
        self.budgets = budgets
        self.block_chars = block_chars

    def capped(self, full: str) -> tuple[str, int]:
        """The part of one block this page shows, within the block and the page budgets,
        and how many characters it leaves out (a cut makes a new end: the session's
        ``derive`` makes it)."""
        left = self.budgets
        if left.text_left < min(self.block_chars, len(full)):
            left.text_cut = True
        end = whole_cut(full, max(0, min(self.block_chars, left.text_left)))
        left.text_left -= end
        return self.derive.block(full, end), len(full) - end

    def cap(self, text: Any) -> str:
        """The part of one block this page shows (see ``capped``)."""
        return self.capped(text if isinstance(text, str) else str(text))[0]

    def code(self, text: Any, lang: str = "", path: str | None = None) -> CodeBlock:
        full = text if isinstance(text, str) else str(text)
        shown, missing = self.capped(full)
        html = highlight_block(shown, lang, path=path, budget=self.budgets.highlight)
        return CodeBlock(Markup(html), missing)

    def code_lines(
        self, text: Any, lang: str = "", path: str | None = None
    ) -> tuple[list[str], int]:
        """Highlighted lines (for line numbers and previews) and how many characters were cut.

        Pygments closes its spans at every line end, so each line is whole HTML."""
        full = text if isinstance(text, str) else str(text)
        shown, missing = self.capped(full)
        lexer = lexer_for_path(path) if path else lexer_by_name(lang)
        html = highlight_code(shown, lexer, self.budgets.highlight)
        # as many lines as the text has (a final newline ends a line, it does not start one);
        # lexers may add a newline of their own at the end
        count = shown.count("\n") + (0 if shown.endswith("\n") else 1)
        return html.split("\n")[: max(count, 1)], missing

    def output(self, full: Any, is_error: bool = False, ansi: bool = False) -> OutputBlock:
        """Tool output: past PREVIEW_LINES folded, previewing its last lines when it is a
        terminal's (errors and summaries come last), else its first; cut at the caps."""
        full = full if isinstance(full, str) else str(full)
        text, missing = self.capped(full)
        html = ansi_to_html if ansi else _escaped
        n = line_count(text)
        preview = None
        if n > PREVIEW_LINES:
            preview = Markup(html(tail(text) if ansi else head(text)))
        return OutputBlock(Markup(html(text)), n, preview, ansi, is_error, missing)

    def file_text(self, text: Any, path: str, start: Any = 1) -> FileBlock:
        """A file's text with line numbers from ``start``, folded past PREVIEW_LINES."""
        lines, missing = self.code_lines(text, path=path)
        preview = None
        if len(lines) > PREVIEW_LINES:
            preview = numbered_lines(lines, start, PREVIEW_LINES)
        return FileBlock(numbered_lines(lines, start), len(lines), preview, missing)

    def image(self, block: Any) -> Image:
        """Check one image, within what is left of the page's image budget."""
        img = check_image(block)
        left = self.budgets
        if img.uri is not None:
            if img.size > left.images_left:
                left.image_cut = True
                return Image(img.mime, img.size, None, "the page's image budget is used up")
            left.images_left -= img.size
        return img
