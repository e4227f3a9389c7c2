"""page/lexing.py: the rules picked by first character give Pygments' own tokens, token for
token, on real code and on generated text, for the lexers sessions use most."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pygments.lexer import RegexLexer
from pygments.lexers import get_lexer_by_name

from piexport.page import lexing
from piexport.page.highlight import lexer_by_name

ROOT = Path(__file__).resolve().parents[2]

LANGUAGES = [
    "python", "javascript", "typescript", "bash", "css", "html", "diff", "markdown",
    "yaml", "toml", "rust", "go", "sql", "ini", "xml", "java", "console", "jsx", "c",
]  # fmt: skip

CODE_ALPHABET = "abcdefxyzIOSK_ \n\t\r'\"`#/*-+=(){}[]<>:;.,\\0123456789$@!?~|&^%éſΩ中\u212a\x00"


@pytest.fixture
def hot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every state sorted by first character from its first token (the fast path always)."""
    monkeypatch.setattr(lexing, "HOT", 0)
    monkeypatch.setattr(lexing, "_states", {})


def both(name: str, text: str) -> tuple[list[object], list[object]]:
    plain = get_lexer_by_name(name, stripnl=False, ensurenl=False)
    fast = lexing.faster(get_lexer_by_name(name, stripnl=False, ensurenl=False))
    return list(plain.get_tokens_unprocessed(text)), list(fast.get_tokens_unprocessed(text))


@cache
def real_code() -> dict[str, str]:
    """Real files of this repository, and its recent history as a diff."""

    def read(pattern: str) -> str:
        return "".join(p.read_text(encoding="utf-8") for p in sorted(ROOT.glob(pattern)))[:60_000]

    log = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-p", "-n", "5", "--no-color"],
        capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    return {
        "python": read("piexport/page/*.py"),
        "javascript": read("static/**/*.js"),
        "css": read("static/*.css"),
        "html": read("templates/*.j2"),
        "markdown": read("*.md") + read("docs/*.md"),
        "toml": read("pyproject.toml"),
        "bash": read(".ci/*"),
        "diff": log[:60_000] or "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n",
    }


@pytest.mark.usefixtures("hot")
@pytest.mark.parametrize("name", sorted(real_code()))
def test_same_tokens_on_real_code(name: str) -> None:
    text = real_code()[name]
    assert text
    plain, fast = both(name, text)
    assert fast == plain


@pytest.mark.usefixtures("hot")
@pytest.mark.parametrize("name", LANGUAGES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=CODE_ALPHABET, max_size=200))
def test_same_tokens_on_generated_text(name: str, text: str) -> None:
    plain, fast = both(name, text)
    assert fast == plain


@pytest.mark.usefixtures("hot")
@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=120))
def test_same_tokens_on_any_characters(text: str) -> None:
    for name in ("python", "css", "sql"):  # sql and css fold case
        plain, fast = both(name, text)
        assert fast == plain, name


def test_rules_are_narrowed() -> None:
    """Not a copy of Pygments' loop: at a letter, Python's root state tries fewer rules."""
    lexer = get_lexer_by_name("python")
    assert isinstance(lexer, RegexLexer)
    root = lexing._State(lexer._tokens["root"])
    assert 0 < len(root.for_char("x")) < len(root.rules)
    assert len(root.for_char(" ")) < len(root.rules)


def test_small_text_reads_no_regex(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below HOT tokens a state is run as Pygments runs it: no regex is parsed, so a small
    page pays nothing for the table."""
    monkeypatch.setattr(lexing, "_states", {})
    lexer = lexing.faster(get_lexer_by_name("python", stripnl=False, ensurenl=False))
    list(lexer.get_tokens_unprocessed("x = 1\n"))
    assert lexing._states
    assert all(state.parsed is None for state in lexing._states.values())
    list(lexer.get_tokens_unprocessed("x = 1\n" * lexing.HOT))
    assert any(state.parsed is not None for state in lexing._states.values())


def test_lexers_with_their_own_loop_are_left_alone() -> None:
    json = get_lexer_by_name("json")  # not a RegexLexer
    assert "get_tokens_unprocessed" not in vars(lexing.faster(json))
    cpp = get_lexer_by_name("cpp")  # a RegexLexer with a loop of its own
    assert "get_tokens_unprocessed" not in vars(lexing.faster(cpp))
    python = lexer_by_name("python")  # what pages use
    assert python is not None and "get_tokens_unprocessed" in vars(python)


def test_the_installed_pygments_runs_a_loop_we_follow() -> None:
    """The pins admit only Pygments versions whose ``RegexLexer`` loop :func:`_tokens` was
    written from: a new Pygments that changes it fails here (and, installed, runs stock)."""
    assert lexing.stock_loop_known()
    assert lexing.faster(get_lexer_by_name("python")).get_tokens_unprocessed.__func__ is (
        lexing._tokens
    )


def test_a_changed_pygments_loop_runs_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pygments' loop as another version might write it: piexport's loop is not used, and the
    lexer is Pygments' own, unchanged."""
    lexing.stock_loop_known.cache_clear()
    monkeypatch.setattr(lexing, "loop_source", lambda function: "def other_loop(): pass")
    try:
        assert not lexing.stock_loop_known()
        lexer = lexing.faster(get_lexer_by_name("python"))
        assert "get_tokens_unprocessed" not in vars(lexer)
    finally:
        lexing.stock_loop_known.cache_clear()
