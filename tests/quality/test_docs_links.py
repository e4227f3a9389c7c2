"""Documents that code, tests and docs cite are in the repository, and so are their headings.

A comment, docstring or Markdown text that points at a document (``docs/format.md#the-tree``,
``README.md``) must point at a file in the repository, and an anchor at one of its headings,
so a reader who follows it finds what it promised (issue 29: comments cited documents that
lived outside the repository).

What counts as a citation: a path ending in ``.md`` in a Python comment or docstring, in a
comment of a script, style sheet, template or shell file, or anywhere in a Markdown file
(URLs left out), when it names a document rather than an example: a path with a folder
(``docs/format.md``), a name in capitals (``README.md``), or a path with an ``#anchor``.
Lower-case names without a folder (``notes.md`` in an example) and strings in code (files a
test writes, text inside sessions) are data, not citations. In Markdown, a link to ``#anchor``
alone must name a heading of the same file.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from tests.support.sessions import REPO

SCANNED = ["piexport", "tests", "bench", "static", "templates", "docs", ".ci"]
ROOT_FILES = ["README.md", "CHANGELOG.md", "hatch_build.py", "action.yml", "pyproject.toml"]
COMMENTED = (".sh", ".toml", ".yml", ".yaml", ".cfg")
"""Files whose comments start with ``#`` (and scripts with no suffix that start with ``#!``)."""
SKIPPED = {"templates_compiled", "data", "goldens", ".cache", "__pycache__", "crashes"}

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_CITATION = re.compile(r"(?<![\w./-])(/?(?:[\w.-]+/)*[\w.-]+\.md)(?:#([\w-]*))?(?![\w])")
_CAPITALS = re.compile(r"[A-Z][A-Z0-9_-]*\.md")
_LOCAL_ANCHOR = re.compile(r"\]\(#([\w-]*)\)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_LINE_COMMENT = re.compile(r"(?<![:\\\"'])//[^\n]*")
_TEMPLATE_COMMENT = re.compile(r"\{#.*?#\}|<!--.*?-->", re.DOTALL)
_HASH_COMMENT = re.compile(r"(?<![\w\"'$])#[^\n]*")


def files() -> Iterator[Path]:
    for name in ROOT_FILES:
        if (REPO / name).is_file():
            yield REPO / name
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*")):
            if path.is_file() and not SKIPPED.intersection(path.relative_to(REPO).parts):
                yield path


def _python(source: str) -> Iterator[tuple[int, str]]:
    """Comments and docstrings (every string that stands alone as a statement)."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    stack: list[ast.AST] = [ast.parse(source)]
    while stack:  # statements only: a docstring is never inside an expression
        node = stack.pop()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, name, ()))
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            yield node.lineno, node.value.value


def _matches(pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, str]]:
    for m in pattern.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def texts(path: Path) -> Iterator[tuple[int, str]]:
    """(first line, text) of every part of a file that may cite a document."""
    suffix = path.suffix
    if suffix not in (*COMMENTED, ".py", ".md", ".js", ".mjs", ".css", ".j2") and suffix:
        return
    source = path.read_text(encoding="utf-8", errors="replace")
    if ".md" not in source and suffix != ".md":
        return
    if suffix == ".py":
        yield from _python(source)
    elif suffix == ".md":
        yield 1, source
    elif suffix in (".js", ".mjs", ".css"):
        yield from _matches(_BLOCK_COMMENT, source)
        yield from _matches(_LINE_COMMENT, source)
    elif suffix == ".j2":
        yield from _matches(_TEMPLATE_COMMENT, source)
    elif suffix in COMMENTED or source.startswith("#!"):
        yield from _matches(_HASH_COMMENT, source)


def citations(path: Path, text: str) -> Iterator[tuple[int, str, str | None]]:
    """(line offset, cited path, anchor or None) for each citation in one text."""
    text = _URL.sub(lambda m: " " * len(m.group(0)), text)
    for m in _CITATION.finditer(text):
        cited, anchor = m.group(1), m.group(2)
        if "/" in cited or anchor is not None or _CAPITALS.fullmatch(cited):
            yield text.count("\n", 0, m.start()), cited, anchor


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text, lower case, punctuation dropped, spaces
    as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@cache
def anchors(document: Path) -> frozenset[str]:
    """The anchors of a Markdown document's headings (outside code blocks); a repeated
    heading gets ``-1``, ``-2``… as on GitHub."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fence: str | None = None
    for line in document.read_text(encoding="utf-8").split("\n"):
        f = _FENCE.match(line)
        if f:
            mark = f.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        h = _HEADING.match(line) if fence is None else None
        if h:
            base = slug(h.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return frozenset(found)


def resolve(citing: Path, cited: str) -> Path | None:
    """The repository file a citation names (next to the citing file, or from the root)."""
    if cited.startswith("/"):
        return None
    root = REPO.resolve()
    for base in (citing.parent, REPO):
        target = (base / cited).resolve()
        if target.is_relative_to(root) and target.is_file():
            return target
    return None


def problems(path: Path, parts: Iterator[tuple[int, str]]) -> Iterator[str]:
    """What is wrong with each citation in these parts of one file."""
    where = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    for line, text in parts:
        for offset, cited, anchor in citations(path, text):
            at = f"{where}:{line + offset}: {cited}{'#' + anchor if anchor is not None else ''}"
            target = resolve(path, cited)
            if target is None:
                yield f"{at}: no such document in the repository"
            elif anchor is not None and anchor not in anchors(target):
                yield f"{at}: no heading with that anchor"
        if path.suffix == ".md":
            for m in _LOCAL_ANCHOR.finditer(text):
                if m.group(1) not in anchors(path):
                    line_no = line + text.count("\n", 0, m.start())
                    yield f"{where}:{line_no}: #{m.group(1)}: no heading with that anchor"


@cache
def scanned() -> tuple[tuple[Path, tuple[tuple[int, str], ...]], ...]:
    """Every scanned file with its parts that may cite a document (read once per run)."""
    return tuple((path, tuple(texts(path))) for path in files())


def test_every_cited_document_and_heading_exists() -> None:
    found = [p for path, parts in scanned() for p in problems(path, iter(parts))]
    assert found == []


def test_the_documents_code_relies_on_are_cited_and_found() -> None:
    cited = {
        (str(resolve(path, c)), a)
        for path, parts in scanned()
        for _, text in parts
        for _, c, a in citations(path, text)
    }
    for doc, anchor in [
        ("docs/format.md", "where-session-files-live"),
        ("docs/format.md", "what-the-model-saw"),
        ("docs/threats.md", "hostile-corpus"),
        ("docs/threats.md", "static-checks"),
    ]:
        assert (str((REPO / doc).resolve()), anchor) in cited, (doc, anchor)


def test_the_check_finds_a_missing_document_or_heading(tmp_path: Path) -> None:
    source = (
        '"""Rules from SECURITY.md, docs/format.md#the-tree and docs/format.md#no-such-one."""\n'
        "# see ../../shared/FORMAT.md\n"
        'NAME = "notes/today.md"  # data, not a citation: notes.md\n'
    )
    path = REPO / "tests" / "example.py"
    found = sorted(problems(path, _python(source)))
    assert found == [
        "tests/example.py:1: SECURITY.md: no such document in the repository",
        "tests/example.py:1: docs/format.md#no-such-one: no heading with that anchor",
        "tests/example.py:2: ../../shared/FORMAT.md: no such document in the repository",
    ]
    doc = tmp_path / "x.md"
    doc.write_text(
        "# Title\n\n## Two words\n\n```\n# not a heading\n```\n[a](#two-words) [b](#nope)\n"
    )
    assert anchors(doc) == {"title", "two-words"}
    assert list(problems(doc, texts(doc))) == [f"{doc}:8: #nope: no heading with that anchor"]
