"""The session model: what the loader hands to every later stage.

Entries keep the JSON object they were read from (``raw``) instead of copying every field
into typed attributes: a 200 MB session should be held in memory once, not twice. The few
fields every stage needs (id, parent, type, timestamp, line) are lifted out and normalised.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ..text.cut import PLAIN, TITLE_CHARS, Derive

JSON: TypeAlias = dict[str, Any]

KNOWN_ENTRY_TYPES: frozenset[str] = frozenset(
    {"message", "model_change", "thinking_level_change", "compaction", "branch_summary"}
    | {"custom", "custom_message", "label", "session_info", "usage", "context_edit"}
)
"""The entry types pi writes: a file with none of them is not a pi session (``loader``).
Each has a kind that shows it (``piexport.kinds``; tests/kinds checks they agree)."""

Level = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found in one input line (or the whole file when ``line`` is 0)."""

    path: str
    line: int
    """1-based line number in the source file; 0 when the problem is not tied to a line."""
    message: str
    level: Level = "warning"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class SessionHeader:
    """Line 1 of a session file (after migration)."""

    id: str
    version: int
    """The version the file was written in (1, 2, 3 or newer), before migration."""
    timestamp: str | None
    cwd: str | None
    parent_session: str | None
    """Path of the session this one was forked from (``parentSession`` or ``branchedFrom``)."""
    line: int
    raw: JSON


@dataclass(frozen=True, slots=True)
class Entry:
    """One tree entry of a session file, migrated to version 3."""

    id: str
    """Unique within the session. Synthesised (``line:N``) when the file had none, and
    suffixed (``abc~2``) when an id was used twice; ``raw["id"]`` keeps what the file said."""
    parent_id: str | None
    """The parent as written in the file (normalised to a string); the tree decides whether
    it resolves (orphans and cycles are repaired there, not here)."""
    type: str
    timestamp: str | None
    line: int
    """1-based line number in the source file."""
    index: int
    """Position among the entries, in file order."""
    raw: JSON
    """The migrated JSON object as read; unknown fields are kept and shown, never dropped."""

    @property
    def message(self) -> JSON | None:
        """The AgentMessage of a ``message`` entry, or None when absent or not an object.

        Only ``message`` entries have one: a ``custom`` or ``compaction`` entry that carries
        a ``message`` field is not a message (its tool calls pair with no result)."""
        if self.type != "message":
            return None
        msg = self.raw.get("message")
        return msg if isinstance(msg, dict) else None

    @property
    def role(self) -> str | None:
        msg = self.message
        if msg is None:
            return None
        role = msg.get("role")
        return role if isinstance(role, str) else None

    def tool_calls(self) -> Iterator[JSON]:
        """The ``toolCall`` blocks of an assistant message, in order (none for anything else:
        only real assistant messages call tools)."""
        if self.role != "assistant":
            return
        content = (self.message or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "toolCall":
                yield block


@dataclass(slots=True)
class Tree:
    """The id/parentId structure of a session, with every defect repaired."""

    parent: dict[str, str | None]
    """Effective parent of every entry: None for roots (true roots, orphans, broken cycles)."""
    children: dict[str, list[str]]
    """Children of each entry, ordered by timestamp (file order for ties)."""
    roots: list[str]
    leaf_id: str | None
    """The last entry in file order: pi's current position when it opens the file."""
    path: list[str]
    """Root → leaf, the conversation as pi would continue it."""
    leaves: list[str]
    """Every entry without children, in file order."""
    branch_points: list[str]
    """Every entry with more than one child, in file order."""
    orphans: list[str] = field(default_factory=list)
    """Entries whose parentId names no entry; they are shown as extra roots."""

    def path_to(self, entry_id: str) -> list[str]:
        """Root → entry. Iterative, and safe on any tree the loader built (cycles are cut)."""
        out: list[str] = []
        cur: str | None = entry_id
        while cur is not None:
            out.append(cur)
            cur = self.parent.get(cur)
        out.reverse()
        return out

    def walk(self) -> Iterator[tuple[str, int]]:
        """Every entry once, depth first, roots in order, with its depth."""
        stack = [(r, 0) for r in reversed(self.roots)]
        while stack:
            node, depth = stack.pop()
            yield node, depth
            kids = self.children.get(node, ())
            stack.extend((k, depth + 1) for k in reversed(kids))


@dataclass(slots=True)
class Session:
    """A loaded session file: header, entries in file order, tree, and what went wrong."""

    path: str
    header: SessionHeader | None
    entries: list[Entry]
    by_id: dict[str, Entry]
    tree: Tree
    labels: dict[str, str]
    """Entry id → label, after replaying every ``label`` entry in file order."""
    name: str | None
    """The latest ``session_info`` name in file order, trimmed; None when unset or cleared."""
    diagnostics: list[Diagnostic]
    lines_read: int = 0
    """Non-blank lines in the file: each became the header, an entry or a diagnostic."""
    derive: Derive = field(default=PLAIN, repr=False, compare=False)
    """Makes every text shown from this session's text (titles, previews, cuts, joins, rows):
    it redacts what it makes when the session was redacted (``text.cut.Derive``)."""

    @property
    def id(self) -> str | None:
        return self.header.id if self.header else None

    @property
    def cwd(self) -> str | None:
        return self.header.cwd if self.header else None

    def entry(self, entry_id: str) -> Entry:
        return self.by_id[entry_id]

    def path_entries(self, leaf_id: str | None = None) -> list[Entry]:
        """Entries root → leaf (the current leaf unless another is given)."""
        leaf = self.tree.leaf_id if leaf_id is None else leaf_id
        if leaf is None or leaf not in self.by_id:
            return []
        return [self.by_id[i] for i in self.tree.path_to(leaf)]

    @property
    def title(self) -> str | None:
        """What pages and indexes call the session, as one line of text: its name, else the
        first user message made readable (``title_of``), cut near ``TITLE_CHARS``."""
        parts = self.title_parts
        return str(parts) if parts is not None else None

    @property
    def title_parts(self) -> Title | None:
        """The title with its parts apart (a chip such as ``skill: name``, the text, and
        the raw first line), for pages that show the chip as a chip."""
        if self.name:
            name = self.derive.line(self.name)
            return Title(name, None, name)
        first = self.title_text()
        return title_of(first, derive=self.derive) if first else None

    def title_text(self) -> str | None:
        """The user message a title is made from: the first with real words of its own
        (``is_request``), else the first with any text. A bare slash command (``/mode``: a
        command pi ran or one stopped, no request) and a prompt template pi expanded (a
        Markdown heading, then a page of instructions) say what the session was set up
        with, not what was asked: a later message says that. Only user messages up to
        ``TITLE_LOOKAHEAD`` are read."""
        first: str | None = None
        seen = 0
        for e in self.entries:
            if e.role != "user":
                continue
            text = self.derive.join(text_blocks((e.message or {}).get("content")), "")
            if not text.strip():
                continue
            if is_request(text):
                return text
            first = first if first is not None else text
            seen += 1
            if seen >= TITLE_LOOKAHEAD:
                break
        return first

    def first_user_text(self) -> str | None:
        """Text of the first user message in the file, the fallback title pi uses (its text
        blocks joined, as shown: see ``derive``)."""
        for e in self.entries:
            if e.role == "user":
                text = self.derive.join(text_blocks((e.message or {}).get("content")), "")
                if text.strip():
                    return text
        return None


TITLE_LOOKAHEAD = 5
"""User messages read for a title before the first with text is taken whatever it is."""
TEMPLATE_LINES = 8
"""A message that opens with a heading and runs to this many non-blank lines is read as a
prompt template pi expanded (``is_request``)."""
_BARE_COMMAND = re.compile(r"\A\s*/[A-Za-z][\w.:-]{0,60}\s*\Z")
_HEADING_LINE = re.compile(r"\A\s*#{1,6}[ \t]+\S")


def is_request(text: str) -> bool:
    """Whether a user message's text is a request in the user's own words, for a title:
    not a bare slash command (``/mode``, nothing after it), and not a prompt template (its
    first line a Markdown heading, ``TEMPLATE_LINES`` non-blank lines or more). A skill
    with the user's words after it, a command with arguments, a short message under a
    heading are requests."""
    head = text.lstrip()[:20_000]  # enough to count a template's lines
    if _BARE_COMMAND.match(head):
        return False
    if _HEADING_LINE.match(head):
        lines = 0
        for line in head.split("\n"):
            lines += bool(line.strip())
            if lines >= TEMPLATE_LINES:
                return False
    return True


def text_blocks(content: Any) -> list[str]:
    """The texts of a message's content (a string, or the text blocks of a list), images
    skipped."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            b["text"]
            for b in content
            if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    return []


def content_text(content: Any, sep: str = "", derive: Derive = PLAIN) -> str:
    """The text of a message's content (a string or a list of blocks, joined by ``sep``),
    images skipped. Text joined for display is made with the session's ``derive``: blocks
    side by side read as one text."""
    return derive.join(text_blocks(content), sep) if not isinstance(content, str) else content


def short_title(text: str, limit: int = TITLE_CHARS) -> str:
    """The first non-blank line of ``text``, spaces collapsed, cut at a word boundary
    near ``limit`` characters (with "…"); a word longer than that is cut inside. (With a
    session's redaction: ``session.derive.title``.)"""
    return PLAIN.title(text, limit)


@dataclass(frozen=True, slots=True)
class Title:
    """A session's title, readable: a wrapper pi or the user put around the first message
    (a skill, a slash command, attached files) as a chip, markdown marks removed."""

    text: str
    """The readable words (may be empty when the chip says it all, e.g. ``/mode``)."""
    chip: str | None
    """``skill: improve-codebase-architecture``, ``/mode``, ``file: notes.md``, or None."""
    raw: str
    """The first non-blank line as written (spaces collapsed, cut near 300 characters)."""

    def __str__(self) -> str:
        if self.chip and self.text:
            return f"{self.chip} · {self.text}"
        return self.chip or self.text


RAW_TITLE_CHARS = 300
_SKILL = re.compile(r'\A\s*<skill name="([^"\n]{1,200})"[^>\n]*>(.*?)(?:</skill>|\Z)(.*)\Z', re.S)
_FILES = re.compile(r'\A(?:\s*<file name="([^"\n]{1,500})">.*?(?:</file>|\Z))+', re.S)
_FILE_NAME = re.compile(r'<file name="([^"\n]{1,500})">')
_COMMAND = re.compile(r"\A/([A-Za-z][\w.:-]{0,60})(?:[ \t]+(.*))?\Z")
_HEADING = re.compile(r"\A(?:#{1,6}|>+)[ \t]+|\A#{1,6}\Z")
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*\Z")
_STRONG = re.compile(r"(\*\*|__|`)(?=\S)(.+?)(?<=\S)\1")


_SKILL_OPEN = re.compile(r'\A<skill name="([^"\r\n]+)" location="([^"\r\n]*)">\n')
_FENCE = re.compile(r"\A {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class SkillBlock:
    """A skill as pi sends it in a user message (``/skill:name args``): the skill file's
    body inside ``<skill name=… location=…>`` … ``</skill>``, then the user's own words."""

    name: str
    location: str
    body: str
    rest: str


def skill_block(text: str) -> SkillBlock | None:
    """The skill a user message starts with, or None. As pi reads it: the block ends at the
    first line ``</skill>`` outside a code fence of the body (a fence may quote the tag)."""
    head = _SKILL_OPEN.match(text)
    if not head:
        return None
    lines = text[head.end() :].split("\n")
    fence: str | None = None
    for i, line in enumerate(lines):
        if fence is None and line == "</skill>":
            return SkillBlock(
                head.group(1),
                head.group(2),
                "\n".join(lines[:i]),
                "\n".join(lines[i + 1 :]).strip(),
            )
        mark = _FENCE.match(line)
        if mark and fence is None:
            fence = mark.group(1)
        elif mark and fence is not None:  # a closing fence: the same kind, as long, bare
            run = mark.group(1)
            if run[0] == fence[0] and len(run) >= len(fence) and not line.strip()[len(run) :]:
                fence = None
    return None


def _first_line(text: str) -> str:
    return " ".join(next((ln for ln in text.split("\n") if ln.strip()), "").split())


def title_of(text: str, limit: int = TITLE_CHARS, derive: Derive = PLAIN) -> Title:
    """A title from the first user message: a ``<skill …>`` block (how pi sends a skill) or
    ``<file …>`` blocks (files given on the command line) become a chip and the words after
    them the text; so does a leading ``/command``; heading and quote marks, ``**`` and
    code backticks go.
    The one place titles are derived: each part is made with ``derive`` (the session's:
    it redacts what it makes when the session was redacted)."""
    head = text.lstrip()[: 4 * RAW_TITLE_CHARS]  # a title shows ~limit characters: read no more
    raw = derive.line(next((ln for ln in head.split("\n") if ln.strip()), ""), RAW_TITLE_CHARS)
    chip: str | None = None
    rest = text
    skill = _SKILL.match(text)
    if skill:
        chip, rest = f"skill: {' '.join(skill.group(1).split())}", skill.group(3)
    else:
        files = _FILES.match(text)
        if files:
            names = _FILE_NAME.findall(files.group(0))
            base = re.split(r"[\\/]", names[0].rstrip("/\\"))[-1] or names[0]
            more = f" +{len(names) - 1}" if len(names) > 1 else ""
            chip, rest = f"file: {base}{more}", text[files.end() :]
    # a title shows ~limit characters: read no more (the patterns below are quadratic at worst)
    line = _first_line(rest.lstrip()[: 4 * RAW_TITLE_CHARS])
    if chip is None:
        command = _COMMAND.match(line)
        if command:
            chip, line = f"/{command.group(1)}", command.group(2) or ""
    heading = _HEADING.sub("", line)
    if heading != line:  # "## Title ##": the closing marks go with the opening ones
        line = _CLOSING_HASHES.sub("", heading)
    line = _STRONG.sub(r"\2", line).strip()
    words = derive(PLAIN.title(line, limit)) if line else ""
    shown_chip = derive(chip) if chip else chip
    if shown_chip and words and derive(f"{shown_chip} {words}") != f"{shown_chip} {words}":
        # a chip beside its title reads as one text ("deploy TOKEN:" then a build id): shown
        # apart, the two would print what neither was redacted as; so they become one text
        return Title(derive(f"{shown_chip} · {words}"), None, raw)
    return Title(words, shown_chip, raw)
