"""What every entry kind has: its known fields, its one-line summary, its Markdown, its
search parts and the name of its macro; and the defaults a kind of unknown shape uses,
which show everything.

A kind is a singleton instance of a ``Kind`` subclass (one module per kind, ``registry.py``
lists them). The methods take the entry and what the output beside it knows (``Calls``,
``MarkdownContext``); none of them redacts: the caller reads every text it makes again with
the session's ``derive`` (``text.cut.Derive``) as the one text it shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..read.jsonutil import dumps_shown, finite_number
from ..read.model import JSON, Entry
from ..text.cut import PLAIN, Derive
from ..text.mdsafe import code_fence, html_text

Calls = Mapping[str, tuple[Any, Any]]
"""Tool call id → (name, arguments): what a tool result's summary names."""

Part = tuple[str, str, str, bool]
"""(role, tool, text, error) of one searchable part of an entry (``search.records``)."""

ENTRY_KEYS = frozenset({"type", "id", "parentId", "timestamp"})
"""Fields every entry has; the page shows them in the entry's head."""

QUIET_FIELDS = frozenset({"message.responseId", "message.endTurn", "message.rawStopReason"})
"""Fields that mean nothing to a reader (a provider's response id, its raw stop flags): not
given an "Other fields" fold of their own; shown in one when other fields are."""

MAX_SUMMARY = 200


@dataclass(frozen=True, slots=True)
class MarkdownContext:
    """What an entry's Markdown needs from the rest of the session."""

    results: Mapping[tuple[str, str], Entry]
    """(assistant entry id, tool call id) → its result (``read.pairing``)."""
    shown: frozenset[str] | set[str]
    """Tool results shown with their call (not again on their own)."""
    leading: frozenset[str] | set[str]
    """System messages that start the prompt on their branch (``system.leading_system_ids``)."""
    kind_of: Callable[[Entry], Kind]
    """The registry's lookup (``registry.kind_of``): a call's result is shown by its kind."""


@dataclass(frozen=True, slots=True)
class RowWords:
    """How the page's tree rows say things (``report.outline.tree_row_text``): what tells
    rows apart first."""

    tool: Callable[[Any, Any], str]
    """A tool call (name, arguments), paths relative to the session's folder."""
    command: Callable[[str], str]
    """A shell command by its head."""
    said: Callable[[str], str]
    """Markdown as the words a reader sees."""


def one_line(text: str, limit: int = MAX_SUMMARY) -> str:
    """One line, cut: a part of a summary, which is redacted as a whole once it is made."""
    return PLAIN.line(text, limit)


def s(value: Any) -> str:
    """A string from the file, or "" for anything else."""
    return value if isinstance(value, str) else ""


def obj(value: Any) -> JSON:
    """An object from the file, or an empty one for anything else."""
    return value if isinstance(value, dict) else {}


def usage_words(u: Any) -> str:
    """One usage object's figures as words (``in 1200 · out 180 · cache read 50 · $0.0150``),
    "" when it counted nothing."""
    if not isinstance(u, dict):
        return ""
    names = [("input", "in"), ("output", "out"), ("cacheRead", "cache read")]
    names += [("cacheWrite", "cache write"), ("reasoning", "reasoning")]
    words = [f"{name} {u[k]}" for k, name in names if finite_number(u.get(k))]
    cost = obj(u.get("cost")).get("total")
    if finite_number(cost):
        words.append(f"${cost:.4f}")
    return " · ".join(words)


def details(summary: str, body: str) -> list[str]:
    """Markdown lines of a folded ``<details>`` block: our summary, a body made safe."""
    return ["<details>", f"<summary>{html_text(summary)}</summary>", "", body, "", "</details>", ""]


def value_text(value: Any, out: list[str], depth: int = 0) -> None:
    """The string and number values in ``value``, in order (keys are a program's, not the
    user's words): what search indexes of arguments and of entries of unknown kinds."""
    if depth > 50:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            value_text(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            value_text(v, out, depth + 1)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        n = finite_number(value)
        if n is not None:
            out.append(str(value))


def top_level_others(entry: Entry, fields: frozenset[str]) -> dict[str, Any]:
    """An entry's top-level fields beside ``ENTRY_KEYS`` and ``fields``."""
    return {k: v for k, v in entry.raw.items() if k not in ENTRY_KEYS and k not in fields}


class Kind:
    """An entry kind. The defaults are those of a kind piexport does not know: every field is
    shown (whole, as JSON) and searched, none is "other"."""

    name: ClassVar[str] = "unknown"
    """The registry's key; also the fixture folder's name (``tests/kinds/fixtures``)."""
    type: ClassVar[str | None] = None
    """The entry ``type`` it is (None: any the registry knows no kind for)."""
    role: ClassVar[str | None] = None
    """For a ``message`` entry, the message's ``role``."""
    fields: ClassVar[frozenset[str]] = frozenset()
    """Top-level fields it shows in its own way, beside ``ENTRY_KEYS``."""
    macro: ClassVar[str] = "unknown"
    """The Jinja macro in ``templates/macros/entries.html.j2`` that shows it on the page."""
    whole: ClassVar[bool] = True
    """Shown whole (raw) on the page and in Markdown, so no field is "other" (Markdown adds
    other fields after the others' own lines)."""
    in_context: ClassVar[bool] = False
    """pi puts it (or what it says) in the model's context (``read.context``)."""
    refines: ClassVar[bool] = False
    """A kind of some entries of another kind's type and role (``matches`` says which):
    those entries are of this kind instead."""

    def matches(self, entry: Entry) -> bool:
        """For a kind that ``refines`` another: whether this entry (of the other's type and
        role) is of this kind."""
        return True

    def other_fields(self, entry: Entry) -> dict[str, Any]:
        """Fields shown under "Other fields" (a newer pi's, an extension's), by where they sit
        (``message.x``, ``message.content[2].y``): shown raw, never dropped."""
        return {} if self.whole else top_level_others(entry, self.fields)

    def summary(self, entry: Entry, calls: Calls, leading: bool = False) -> str:
        """One line for ``piexport tree`` and the navigator (before redaction)."""
        return f"[{entry.type or 'entry without type'}]"

    def row(self, entry: Entry, calls: Calls, leading: bool, words: RowWords) -> str:
        """Its row in the page's tree: its summary, unless what tells it apart comes first
        said another way (``RowWords``)."""
        return self.summary(entry, calls, leading)

    def markdown(self, entry: Entry, ctx: MarkdownContext) -> list[str]:
        """Its lines in ``render --format md`` (made safe with ``text.mdsafe``)."""
        return details(
            f"Entry of a type this version does not know: {entry.type or '(no type)'}",
            code_fence(dumps_shown(entry.raw), "json"),
        )

    def parts(self, entry: Entry, derive: Derive) -> Iterator[Part]:
        """Its searchable parts: every value, for a kind of unknown shape."""
        values: list[str] = []
        value_text(
            {k: v for k, v in entry.raw.items() if k not in ("id", "parentId", "type")}, values
        )
        yield "other", "", derive.join(values, "\n"), False


def other_markdown(kind: Kind, entry: Entry) -> list[str]:
    """The "Other fields" of an entry in Markdown, as the page shows them."""
    extra = kind.other_fields(entry)
    if not extra or not extra.keys() - QUIET_FIELDS:
        return []
    return details("Other fields", code_fence(dumps_shown(extra), "json"))
