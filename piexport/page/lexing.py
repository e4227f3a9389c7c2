"""Pygments' regex lexers, run with the rules that can match at each place tried first.

Pygments' ``RegexLexer`` tries the rules of its current state one after the other at each
place in the text until one matches: Python's root state has about 30, so a token costs 30
regex calls, and colouring is most of a big page's time. A rule whose regex cannot begin
with the character at that place cannot match there (unless it can match nothing), so
:func:`faster` gives a lexer a loop that tries, in the same order, only the rules that can:
the same rule wins at every place, and the tokens are the same as Pygments' own, token for
token (``tests/page/test_lexing.py`` compares them on real code and generated text).

Which rules can begin with a character is read from each regex's parse tree (Python's own
``re`` parser), erring towards "can": anything not understood (a scoped flag, a back
reference, case folding beyond ASCII) keeps the rule in. The table is built per state and
character as they come, and only for a state that has already matched many tokens in this
process: reading a state's regexes costs about as much as compiling them, which a small
page must not pay (a site's worker process pays it once for all its pages).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator, Sequence
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from types import MethodType
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

__all__ = ["faster"]

HOT = 400
"""Tokens a state matches the plain way before its rules are sorted by first character."""

_Rule = tuple[Any, Any, Any]
"""Pygments' processed rule: (the regex's ``match``, action, new state)."""

_CATEGORY = {
    C.CATEGORY_DIGIT: r"\d",
    C.CATEGORY_NOT_DIGIT: r"\D",
    C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_WORD: r"\w",
    C.CATEGORY_NOT_WORD: r"\W",
}
_UNKNOWN = (True, True)
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
_ZERO_WIDTH = (C.AT, C.ASSERT, C.ASSERT_NOT)


STOCK_LOOPS = frozenset({"147037e406fd040e52effe150644ff8e25c9f2f6180dc7b6847007427d0398ab"})
"""The SHA-256 of ``RegexLexer.get_tokens_unprocessed``'s source in the Pygments versions
:func:`_tokens` follows (2.19 to 2.21, the same text): with any other, the stock loop runs."""


def loop_source(function: Any) -> str:
    """A function's source lines, read from its file by its code's line numbers (what
    ``inspect.getsource`` gives, without the 30 ms of importing and tokenizing it takes)."""
    code = function.__code__
    last = max(line for _, _, line in code.co_lines() if line is not None)
    with open(code.co_filename, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return "\n".join(lines[code.co_firstlineno - 1 : last])


@functools.cache
def stock_loop_known() -> bool:
    """Whether Pygments' ``RegexLexer`` loop is one :func:`_tokens` was written from."""
    try:
        source = loop_source(RegexLexer.get_tokens_unprocessed)
    except (OSError, UnicodeDecodeError, AttributeError, ValueError):
        return False
    return hashlib.sha256(source.encode()).hexdigest() in STOCK_LOOPS


def faster(lexer: Lexer) -> Lexer:
    """The lexer, lexing with :func:`_tokens` when it runs Pygments' own ``RegexLexer``
    loop, in a version that loop was written from (a lexer with a loop of its own, or a
    Pygments whose loop differs, is left as it is)."""
    cls = type(lexer)
    if (
        isinstance(lexer, RegexLexer)
        and cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
        and stock_loop_known()
    ):
        lexer.get_tokens_unprocessed = MethodType(_tokens, lexer)
    return lexer


class _State:
    """One state's rules, and for each character seen since it got hot, those of its rules
    that can match at a place where that character comes first."""

    __slots__ = ("by_char", "parsed", "rules", "uses")

    def __init__(self, rules: Sequence[_Rule]) -> None:
        self.rules = rules
        self.uses = 0
        self.parsed: list[tuple[Any, int] | None] | None = None
        self.by_char: dict[str, Sequence[_Rule]] = {}

    def for_char(self, c: str) -> Sequence[_Rule]:
        rules = self.by_char.get(c)
        if rules is None:
            if self.parsed is None:
                self.parsed = [_parse(rule[0]) for rule in self.rules]
            rules = self.by_char[c] = tuple(
                rule
                for rule, parsed in zip(self.rules, self.parsed, strict=True)
                if parsed is None or any(_seq_starts(parsed[0], c, parsed[1]))
            )
        return rules


_states: dict[tuple[type, int], _State] = {}
"""Per lexer class and state (Pygments keeps a class's processed rules for good)."""


def _state(cls: type, rules: Sequence[_Rule]) -> _State:
    key = (cls, id(rules))
    found = _states.get(key)
    if found is None:
        found = _states[key] = _State(rules)
    return found


def _tokens(self: RegexLexer, text: str, stack: Sequence[str] = ("root",)) -> Iterator[Any]:
    """``RegexLexer.get_tokens_unprocessed`` (Pygments 2.x), the rules tried picked by the
    character at the place."""
    pos = 0
    end = len(text)
    cls = type(self)
    tokendefs = self._tokens
    statestack = list(stack)
    state = _state(cls, tokendefs[statestack[-1]])
    while True:
        rules: Sequence[_Rule]
        if state.uses >= HOT and pos < end:
            rules = state.for_char(text[pos])
        else:
            rules = state.rules
            state.uses += 1
        for rexmatch, action, new_state in rules:
            m = rexmatch(text, pos)
            if m:
                if action is not None:
                    if type(action) is _TokenType:
                        yield pos, action, m.group()
                    else:
                        yield from action(self, m)
                pos = m.end()
                if new_state is not None:
                    if isinstance(new_state, tuple):
                        for name in new_state:
                            if name == "#pop":
                                if len(statestack) > 1:
                                    statestack.pop()
                            elif name == "#push":
                                statestack.append(statestack[-1])
                            else:
                                statestack.append(name)
                    elif isinstance(new_state, int):
                        # pop, but keep at least one state on the stack
                        if abs(new_state) >= len(statestack):
                            del statestack[1:]
                        else:
                            del statestack[new_state:]
                    elif new_state == "#push":
                        statestack.append(statestack[-1])
                    else:  # pragma: no cover - Pygments checks its rules when it builds them
                        raise AssertionError(f"wrong state def: {new_state!r}")
                    state = _state(cls, tokendefs[statestack[-1]])
                break
        else:
            # no rule matched: at a line end, back to the root state; else one error char
            if pos >= end:
                break
            if text[pos] == "\n":
                statestack = ["root"]
                state = _state(cls, tokendefs["root"])
                yield pos, Whitespace, "\n"
            else:
                yield pos, Error, text[pos]
            pos += 1


def _parse(rexmatch: Any) -> tuple[Any, int] | None:
    """A rule's regex as Python's parser reads it, with the flags in force; None when it is
    not a plain compiled regex or cannot be read (the rule is then always tried)."""
    pattern = getattr(rexmatch, "__self__", None)
    if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
        return None
    try:
        parsed = P.parse(pattern.pattern, pattern.flags)
    except (re.error, RecursionError, ValueError):
        return None
    return list(parsed), parsed.state.flags


def _seq_starts(seq: Sequence[Any], c: str, flags: int) -> tuple[bool, bool]:
    """(whether the sequence can begin with ``c``, whether it can match nothing)."""
    can = False
    for item in seq:
        first, empty = _item_starts(item, c, flags)
        can = can or first
        if not empty:
            return can, False
    return can, True


def _item_starts(item: Any, c: str, flags: int) -> tuple[bool, bool]:
    op, av = item
    folds = bool(flags & re.IGNORECASE)
    if op is C.LITERAL:
        v = chr(av)
        if folds:
            return (v.lower() == c.lower() if c.isascii() and v.isascii() else True), False
        return v == c, False
    if op is C.NOT_LITERAL:
        return (True if folds else chr(av) != c), False
    if op is C.ANY:
        return True, False
    if op is C.IN:
        return _in_set(av, c, flags, folds), False
    if op is C.BRANCH:
        can = empty = False
        for branch in av[1]:
            first, nothing = _seq_starts(branch, c, flags)
            can, empty = can or first, empty or nothing
        return can, empty
    if op is C.SUBPATTERN:
        _group, add, remove, seq = av
        return _UNKNOWN if add or remove else _seq_starts(seq, c, flags)
    if op in _REPEATS:
        low, high, seq = av
        if high == 0:
            return False, True
        first, nothing = _seq_starts(seq, c, flags)
        return first, nothing or low == 0
    if op is C.ATOMIC_GROUP:
        return _seq_starts(av, c, flags)
    if op in _ZERO_WIDTH:  # what follows decides; the condition itself is not checked
        return False, True
    return _UNKNOWN


def _in_set(items: Sequence[Any], c: str, flags: int, folds: bool) -> bool:
    """Whether ``c`` can be in a character class (``[...]``)."""
    if not folds:
        return _member(items, c, flags)
    for op, av in items:  # case folding: understood for ASCII only
        if op is C.NEGATE or (op is C.RANGE and av[1] > 127) or (op is C.LITERAL and av > 127):
            return True
    if not c.isascii():
        return True
    return any(_member(items, x, flags) for x in {c, c.lower(), c.upper()})


def _member(items: Sequence[Any], c: str, flags: int) -> bool:
    negate = hit = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            hit = hit or chr(av) == c
        elif op is C.RANGE:
            hit = hit or av[0] <= ord(c) <= av[1]
        elif op is C.CATEGORY and av in _CATEGORY:
            hit = hit or re.match(_CATEGORY[av], c, flags & (re.ASCII | re.UNICODE)) is not None
        else:
            return True
    return hit != negate
