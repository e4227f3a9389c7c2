"""The Redactor: finds secrets in text with the rules and replaces each with its token.

Each secret becomes ``[REDACTED:<rule>:<hash8>]``, where ``hash8`` is the first 8 hex digits
of a SHA-256 over the normalised secret (an HMAC when a key is configured), so one secret gets
one token on every page of a site and a reader can still follow it. Text is matched as
``views`` reads it (normalised, as Markdown shows it, without terminal escapes, URL-decoded),
and the whole original span is replaced, so an invisible character inside a token does not
hide it.

Regex rules cannot catch every secret: the count is reported so a person can review what was
done, and the output gate (``redact.gate``) re-scans the written page.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from ..text.cut import TOKEN as _TOKEN
from .rules import WORDS_KEYS, Rule, builtin_rules, is_placeholder, secret_group, user_rule
from .views import as_shown, fast_normal, markdown_read, normalise, other_views

__all__ = ["TOKEN_PREFIX", "Redactor", "redaction_report"]

TOKEN_PREFIX = "[REDACTED:"


@dataclass(frozen=True, slots=True)
class _RuleIndex:
    """Which rules each keyword calls for, so a text is searched once per keyword."""

    keywords: tuple[str, ...]
    by_keyword: dict[str, tuple[int, ...]]
    always: tuple[int, ...]
    """Rules with no keywords (users' own patterns): they run on every text."""
    groups: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    """The keywords by a punctuation character each holds (``"="`` for ``token=``, ``"_"``
    for ``ghp_``), ``""`` for those with none: a text without ``=`` skips every ``…=``
    keyword. Looking for one character is ten times faster than for a word that is not
    there, and most keywords are not. Each keyword comes with a word keyword inside it
    (``token`` for ``token=``) or ``""``: when that word is not in the text, neither is it."""


_GATES = "\\@?&=:/._-"
"""Punctuation in keywords, the rarer in text first."""


_PAIR_KEYWORDS = (*WORDS_KEYS.split(), "auth", "cookie")
"""A key holding one of these may name a secret, so its value is redacted with it."""

_ROUNDS = 4
"""Redaction passes over one text at most (each one replaces at least one more secret)."""

_MEMO_CHARS = 64
_MEMO_ENTRIES = 100_000


@dataclass(slots=True)
class Redactor:
    """Rules, user patterns and an allow list; replaces secrets and counts them per rule.

    Picklable, so a site's worker processes each get a copy; tokens depend only on the secret
    and ``key``, never on the page, so they agree across a whole site.
    """

    rules: tuple[Rule, ...] = field(default_factory=builtin_rules)
    allow: frozenset[str] = frozenset()
    """Exact strings never redacted (after normalisation)."""
    key: str = ""
    """Optional: tokens become an HMAC under this key, so short secrets cannot be confirmed by
    hashing guesses. Keep it the same across runs so tokens stay stable."""
    counts: Counter[str] = field(default_factory=Counter)
    _index: _RuleIndex | None = field(default=None, init=False, repr=False, compare=False)
    _memo: dict[str, tuple[str, tuple[str, ...]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """Short strings seen before (keys, roles, tool names repeat by the thousand)."""
    _pair_memo: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def create(
        cls,
        patterns: Iterable[tuple[str, str]] = (),
        allow: Iterable[str] = (),
        key: str = "",
        *,
        builtin: bool = True,
    ) -> Redactor:
        """Built-in rules plus user patterns ``(name, regex)``; a bad regex raises
        :class:`RedactionError` naming it."""
        extra = tuple(user_rule(name, regex) for name, regex in patterns)
        rules = (builtin_rules() if builtin else ()) + extra
        return cls(rules=rules, allow=frozenset(allow), key=key)

    def fingerprint(self) -> str:
        """Changes whenever the redaction would: part of a site's manifest fingerprint."""
        h = hashlib.sha256()
        for r in self.rules:
            h.update(f"{r.name}\0{r.pattern.pattern}\0{r.pattern.flags}\0{r.generic}\1".encode())
        for a in sorted(self.allow):
            h.update(a.encode("utf-8", "surrogatepass") + b"\2")
        h.update(self.key.encode("utf-8", "surrogatepass"))
        return h.hexdigest()[:16]

    def token(self, rule: str, secret: str) -> str:
        data = secret.encode("utf-8", "surrogatepass")
        if self.key:
            hexed = hmac.new(self.key.encode("utf-8", "surrogatepass"), data, "sha256").hexdigest()
        else:
            hexed = hashlib.sha256(data).hexdigest()
        return f"{TOKEN_PREFIX}{rule}:{hexed[:8]}]"

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping (start, end, rule) of every secret in already-normalised text, in
        every way an output shows it: as written, as a markdown renderer shows it
        (``AKIA**IOSF…**`` and ``ghp\\_…`` read as one key), with terminal escapes gone (a
        page draws colours, a Markdown fence drops them) and with ``%xx`` decoded (links).
        The redactor and the output gate both read text through this, so the gate finds
        nothing in redacted text that the redactor could have replaced."""
        found = self._read(text)
        for view, starts, ends in other_views(text):
            for a, p, b, name in self._read(view):
                found.append((starts(a), p, ends(b - 1), name))
        found.sort()
        merged: list[tuple[int, int, str]] = []
        for start, _priority, end, name in found:
            if merged and start < merged[-1][1]:  # overlap: one token covers both
                last = merged[-1]
                merged[-1] = (last[0], max(last[1], end), last[2])
            else:
                merged.append((start, end, name))
        return merged

    def _read(self, text: str) -> list[tuple[int, int, int, str]]:
        """(start, priority, end, rule) of every match in ``text`` as written and as a
        markdown renderer shows it."""
        found = self._rule_spans(text)
        for lo, hi, joined, where, marks in markdown_read(text):
            starts = [ma for ma, _ in marks]
            for a, p, b, name in self._rule_spans(joined):
                start, end = where[a], where[b - 1] + 1
                whole = (a or not lo) and (b < len(joined) or hi == len(text))  # not cut off
                first = bisect.bisect_left(starts, start)  # the first mark from its start on
                if whole and first < len(marks) and marks[first][1] <= end:  # holds a mark
                    found.append((start, p, end, name))
        return found

    def _rule_spans(self, text: str) -> list[tuple[int, int, int, str]]:
        """(start, priority, end, rule) of every match of every rule in ``text``."""
        found: list[tuple[int, int, int, str]] = []
        tokens = [m.span() for m in _TOKEN.finditer(text)] if TOKEN_PREFIX in text else []
        if tokens:  # a token ends what is before it: no value reads on into or over one
            pieces, pos = [], 0
            for a, b in tokens:
                pieces += [text[pos:a], "\n" * (b - a)]
                pos = b
            pieces.append(text[pos:])
            text = "".join(pieces)
        lower = text.lower()
        index = self._index or self._build_index()
        todo = set(index.always)
        present = {""}
        for gate, keys in index.groups:  # each keyword looked for once, not once per rule
            if gate in lower:  # "" is in every text
                for k, word in keys:
                    if word in present and k in lower:
                        present.add(k)
                        todo.update(index.by_keyword[k])
        for priority in sorted(todo):
            rule = self.rules[priority]
            for m in _matches(rule, text, lower):
                group = secret_group(m)
                start, end = m.span(group)
                secret = m.group(group)
                if start == end or secret is None or secret in self.allow:
                    continue
                if TOKEN_PREFIX in secret or (rule.generic and is_placeholder(secret)):
                    continue
                if any(a < end and start < b for a, b in tokens):  # inside one of ours
                    continue
                found.append((start, priority, end, rule.name))
        return found

    def _build_index(self) -> _RuleIndex:
        by_keyword: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            for k in rule.keywords:
                by_keyword.setdefault(k, []).append(i)
        groups: dict[str, list[tuple[str, str]]] = {}
        words = [k for k in by_keyword if k.isalnum()]  # looked for first: the "" group
        for k in sorted(by_keyword, key=lambda k: (len(k), k)):  # a word before words with it
            gate = next((c for c in _GATES if c in k), "")
            inside = [w for w in words if w in k and w != k]
            groups.setdefault(gate, []).append((k, max(inside, key=len, default="")))
        self._index = _RuleIndex(
            tuple(sorted(by_keyword)),
            {k: tuple(v) for k, v in by_keyword.items()},
            tuple(i for i, rule in enumerate(self.rules) if not rule.keywords),
            tuple((gate, tuple(keys)) for gate, keys in sorted(groups.items())),
        )
        return self._index

    def redact_text(self, text: str, *, count: bool = True) -> str:
        """The text with every secret replaced by its token; counts what it replaced unless
        ``count`` is false (for values derived from text already counted)."""
        if len(text) <= _MEMO_CHARS:
            done = self._memo.get(text)
            if done is None:
                done = self._replace(text)
                if len(self._memo) < _MEMO_ENTRIES:
                    self._memo[text] = done
        else:
            done = self._replace(text)
        if count:
            self.counts.update(done[1])
        return done[0]

    def _replace(self, text: str) -> tuple[str, tuple[str, ...]]:
        """The text with its secrets replaced, and the rule of each secret replaced.

        Until nothing is found (a few rounds at most): a token's ``]`` can make what was
        the middle of a word read as the start of one (``…]--password x``), and the gate
        reads the text with its tokens."""
        names: tuple[str, ...] = ()
        for _ in range(_ROUNDS):
            if not self.spans(fast_normal(text)):
                break
            normal, where = normalise(text)
            spans = self.spans(normal)
            text = self._apply(text, normal, where, spans)
            names += tuple(name for _, _, name in spans)
        return text, names

    def _apply(
        self, text: str, normal: str, where: list[int] | None, spans: list[tuple[int, int, str]]
    ) -> str:
        """``text`` with each span of its normalised form replaced by that secret's token."""
        out: list[str] = []
        pos = 0
        for start, end, name in spans:
            token = self.token(name, as_shown(normal[start:end]))
            if where is None:
                o_start, o_end = start, end
            else:  # back to the original characters, invisible ones inside included
                o_start, o_end = where[start], where[end - 1] + 1
            out.append(text[pos:o_start])
            out.append(token)
            pos = max(pos, o_end)
        out.append(text[pos:])
        return "".join(out)

    def redact_pair(self, key: str, value: str) -> str:
        """The value of ``key`` in structured data, redacted as the page will show the pair:
        ``"password": "correct-horse-battery"`` (JSON), ``password: …`` (YAML) or
        ``password=…`` hold a secret that neither the key nor the value holds alone. The
        gate reads the page with the same rules, so it finds nothing this leaves."""
        lower = key.lower()
        if not any(k in lower for k in _PAIR_KEYWORDS):
            return self.redact_text(value)
        if len(key) + len(value) <= _MEMO_CHARS:
            done = self._pair_memo.get((key, value))
            if done is None:
                done = self._pair(key, value)
                if len(self._pair_memo) < _MEMO_ENTRIES:
                    self._pair_memo[key, value] = done
        else:
            done = self._pair(key, value)
        self.counts.update(done[1])
        return done[0]

    def _pair(self, key: str, value: str, rounds: int = _ROUNDS) -> tuple[str, tuple[str, ...]]:
        """:meth:`redact_pair`'s value and the rule of each secret replaced; again on what it
        made while that changes (a token's ``]`` can start what was inside a word)."""
        nkey = fast_normal(key)
        normal, where = normalise(value)
        escaped = json.dumps(normal, ensure_ascii=False)[1:-1]
        inside: list[tuple[int, int, int, str]] = []
        whole: str | None = None
        for pre, shown, post in (
            (f'"{nkey}": "', normal, '"'),
            (f'"{nkey}": "', escaped, '"'),
            (f"{nkey}: ", normal, ""),
            (f"{nkey}=", normal, ""),
        ):
            if shown is escaped and escaped == normal:
                continue
            lo, hi = len(pre), len(pre) + len(shown)
            for start, end, name in self.spans(pre + shown + post):
                if start < hi and lo < end:
                    if shown is normal and lo <= start and end <= hi:
                        inside.append((start - lo, 0, end - lo, name))
                    else:
                        whole = whole or name
        if whole is not None:
            return self.token(whole, as_shown(normal)), (whole,)
        if not inside:
            done, names = self._replace(value)
        else:
            found = [(a, 1, b, name) for a, b, name in self.spans(normal)] + inside
            found.sort()
            spans: list[tuple[int, int, str]] = []
            for start, _p, end, name in found:
                if spans and start < spans[-1][1]:
                    spans[-1] = (spans[-1][0], max(spans[-1][1], end), spans[-1][2])
                else:
                    spans.append((start, end, name))
            done = self._apply(value, normal, where, spans)
            names = tuple(name for _, _, name in spans)
        if done != value and rounds > 1:
            again, more = self._pair(key, done, rounds - 1)
            return again, names + more
        return done, names


RESCAN_PER_CHAR = 8
RESCAN_FLOOR = 65_536
"""Characters of refused matches read again, per character of the text (and at least this
many): past them, a refused match's value is skipped, not read again (see :func:`_matches`)."""


def _matches(rule: Rule, text: str, lower: str) -> Iterator[re.Match[str]]:
    """The rule's matches; a line-anchored rule is tried only on the lines its locator finds
    in ``lower``, the text lower-cased (when that kept every offset). A match its ``accept``
    refuses is not one, and the next is looked for from just after its start (``secret:``
    with a refused value on the next line, ``token: >-``, still holds a key there)."""
    if rule.accept is not None:
        pos = 0
        rescan = RESCAN_PER_CHAR * len(text) + RESCAN_FLOOR
        while (m := rule.pattern.search(text, pos)) is not None:
            if rule.accept(m):
                yield m
                pos = max(m.end(), m.start() + 1)
                continue
            # a refused match is read again from just after its start, which rescans its
            # value: counted, so that text made of refused matches (``?token=?token=…``, each
            # with a value thousands of characters long) costs a few passes, not one per key
            rescan -= m.end() - m.start()
            pos = m.start() + 1 if rescan > 0 else max(m.end(), m.start() + 1)
        return
    if rule.lines is None or len(lower) != len(text):
        yield from rule.pattern.finditer(text)
        return
    done = -1
    for hit in rule.lines.finditer(lower):
        start = text.rfind("\n", 0, hit.start()) + 1
        if start <= done:
            continue
        end = text.find("\n", hit.end())
        done = len(text) if end < 0 else end
        m = rule.pattern.match(text, start, done)
        if m is not None:
            yield m


def redaction_report(counts: Mapping[str, int]) -> str:
    """``redacted 14 secrets: aws-access-key 2, github-token 3`` (never the secrets)."""
    total = sum(counts.values())
    if not total:
        return "redacted 0 secrets"
    parts = ", ".join(
        f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f"redacted {total} secret{'s' if total != 1 else ''}: {parts}"
