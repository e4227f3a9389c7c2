"""Secret redaction: find credentials in every string of a session and replace them.

Each secret becomes ``[REDACTED:<rule>:<hash8>]``, where ``hash8`` is the first 8 hex digits
of a SHA-256 over the normalised secret (an HMAC when a key is configured), so one secret gets
one token on every page of a site and a reader can still follow it. Text is matched after
Unicode NFKC with format characters (zero-width spaces, bidi controls, soft hyphens) removed,
and the whole original span is replaced, so an invisible character inside a token does not
hide it.

The rules are written from the providers' documented token formats (the same ground gitleaks'
rule file covers; nothing is copied from it). Regex rules cannot catch every secret: the
count is reported so a person can review what was done, and :func:`scan_text` re-scans the
written page as a final gate.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from .errors import PiexportError
from .model import JSON, Diagnostic, Entry, Session, SessionHeader
from .parallel import forked_map

__all__ = [
    "RULES",
    "RedactionError",
    "Redactor",
    "Rule",
    "load_redact_config",
    "redact_session",
    "redaction_report",
]

TOKEN_PREFIX = "[REDACTED:"


class RedactionError(PiexportError):
    """A written page would still hold something a rule matches, or a rule is unusable."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret: a short name and a compiled pattern.

    When the pattern has a group named ``secret``, only that group is replaced (the name in
    ``PASSWORD=…`` stays readable); otherwise the whole match is.
    """

    name: str
    pattern: re.Pattern[str]
    generic: bool = False
    """A shape (``KEY=value``) rather than a provider's token format: a value that looks like a
    placeholder (``$VAR``, ``${{ secrets.X }}``, ``<token>``) is left alone."""
    keywords: tuple[str, ...] = ()
    """Lower-case strings one of which every match contains: the pattern only runs on text
    that has one (regexes that start with ``\\b`` scan slowly; ``in`` is fast)."""
    lines: re.Pattern[str] | None = None
    """For a pattern anchored at a line start: a quick pattern, run on the lower-cased text,
    that finds the lines worth trying (the anchored pattern would try every line of a long
    output, and a case-blind pattern scans several times slower than this one)."""


def _rule(
    name: str,
    regex: str,
    keywords: str,
    *,
    generic: bool = False,
    flags: int = 0,
    lines: str | None = None,
) -> Rule:
    return Rule(
        name,
        re.compile(regex, flags),
        generic,
        tuple(keywords.split()),
        None if lines is None else re.compile(lines),
    )


_END = r"(?![A-Za-z0-9_-])"
_SECRET_WORDS = (
    r"(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY"
    r"|CLIENT_?SECRET|CREDENTIALS?|AUTH_?TOKEN)"
)
_NAMES_A_SECRET = (
    r"[\w.-]{0,20}?(?:name|ref|file|path|url|uri|id|type|len|length|endpoint|dir|env|hint"
    r"|prompt|field|header|policy|expires?|expiry|ttl|count|limit|format|version|kind)"
    r"(?:[_.-]?[a-z]{1,6})?[ \t]*[:=]"
)
"""Keys such as ``password_file:`` or ``secretName:`` hold where a secret is, not the secret."""
_WORDS_KEYS = "pass secret token api access private credential"
"""Every secret word contains one of these (lower-cased)."""
_SECRET_WORDS_LOWER = (
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|credentials?|auth[_-]?token)"
)

_CONFIG_LINE = "".join(
    [
        r"^[ \t]*(?:-[ \t]+)?[\w./:-]{0,60}?",  # indent, a YAML list dash, a key's start
        _SECRET_WORDS_LOWER,
        r"(?-i:(?![a-z]))",  # not tokenizer, not tokens
        rf"(?!{_NAMES_A_SECRET})",  # not password_file, secretName, token_url
        r"[\w.-]{0,20}[ \t]*(?::[ \t]+|=[ \t]*)(?P<q>[\"']?)",
        r"(?P<secret>(?![\d.,_]+[\"']?[ \t]*$)",  # not only a number (max_tokens: 4096)
        r"(?=[^\s\"']*[0-9!@%^&*+=/~-])",  # a digit or a symbol: not token: SecretStr
        r"[^\s\"'#,;(){}\[\]<>`]{4,512})(?P=q)[ \t]*$",  # the rest of the line is the value
    ]
)
"""A config line in any case (YAML, .ini, .properties, .npmrc) whose key holds a secret
word and whose value is the rest of the line."""

RULES: tuple[Rule, ...] = (
    # provider formats first: when two rules cover one span, the first names it
    _rule(
        "private-key",
        r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,16384}?-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
        r"|[A-Za-z0-9+/=\s:,.-]{0,16384})",
        "private",
    ),
    _rule(
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
        "a3t akia asia abia acca",
    ),
    _rule(
        "aws-secret-key",
        r"(?i:aws)[\w.-]{0,20}?(?i:secret|sk)[\w.-]{0,20}[\"']?\s{0,3}[:=]{1,2}>?\s{0,3}[\"']?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        "aws",
    ),
    _rule(
        "github-token",
        r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b",
        "ghp_ gho_ ghu_ ghs_ ghr_",
    ),
    _rule("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", "github_pat_"),
    _rule(
        "gitlab-token",
        r"\b(?:glpat|gldt|glrt|glptt|glcbt|glft|glimt|glagent|glsoat|gloas)-"
        r"[A-Za-z0-9_-]{20,}" + _END,
        "glpat- gldt- glrt- glptt- glcbt- glft- glimt- glagent- glsoat- gloas-",
    ),
    _rule("gitlab-token", r"\bGR1348941[A-Za-z0-9_-]{20,}" + _END, "gr1348941"),
    _rule("anthropic-key", r"\bsk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}" + _END, "sk-ant-"),
    _rule(
        "openai-key",
        r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"
        + _END
        + r"|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-[A-Za-z0-9]{48}\b",
        "sk-",
    ),
    _rule("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}" + _END, "aiza"),
    _rule("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}" + _END, "gocspx-"),
    _rule(
        "huggingface-token",
        r"\b(?:hf_[A-Za-z0-9]{30,40}|api_org_[A-Za-z0-9]{30,40})\b",
        "hf_ api_org_",
    ),
    _rule("slack-token", r"\bxox[abposre]-(?:\d+-)?[0-9A-Za-z-]{10,}" + _END, "xox"),
    _rule("slack-token", r"\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+\b", "xapp-"),
    _rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
        "hooks.slack.com",
    ),
    _rule(
        "stripe-key",
        r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,99}\b|\bwhsec_[0-9A-Za-z]{24,}\b",
        "sk_live_ sk_test_ rk_live_ rk_test_ whsec_",
    ),
    _rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", "npm_"),
    _rule("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}" + _END, "pypi-"),
    _rule("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _END, "sg."),
    _rule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "dop_v1_ doo_v1_ dor_v1_"),
    _rule("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", "eyj"),
    # shapes
    _rule(
        "url-credentials",
        r"://[^\s:/?#@\"'<>`]{1,128}:"
        r"(?P<secret>[^\s/?#@\"'<>`]{1,256})@[A-Za-z0-9\[]",
        "://",
        generic=True,
    ),
    _rule(
        "auth-header",
        r"(?<![\w-])(?i:(?:proxy-)?authorization)[\"']?\s{0,3}[:=]\s{0,3}[\"']?"
        r"(?i:(?:bearer|basic|token|digest|bot|negotiate)\s+)?"
        r"(?!(?i:bearer|basic|token|digest|bot|negotiate)(?:\s|$))(?P<secret>[A-Za-z0-9._~+/=:-]{6,})",
        "authorization",
        generic=True,
    ),
    _rule(
        "auth-header",
        r"(?<![\w-])(?i:x-api-key|x-auth-token|api-key|private-token|x-access-token)"
        r"[\"']?\s{0,3}:\s{0,3}[\"']?(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
        "x-api-key x-auth-token api-key private-token x-access-token",
        generic=True,
    ),
    _rule(
        "secret-assignment",
        _SECRET_WORDS + r"[A-Z0-9_]{0,20}\s{0,3}(?::=|=|:\s)\s{0,3}"
        r"(?P<q>[\"']?)(?P<secret>[^\s\"'`]{4,512})(?P=q)",
        _WORDS_KEYS,
        generic=True,
    ),
    _rule(
        "secret-assignment",
        r"(?P<kq>[\"'])[\w.-]{0,40}" + _SECRET_WORDS_LOWER + r"(?P=kq)\s{0,3}[:=]>?\s{0,3}"
        r"(?P<q>[\"'])(?P<secret>[^\"'\n]{4,512})(?P=q)",
        _WORDS_KEYS,
        generic=True,
        flags=re.IGNORECASE,
    ),
    _rule(
        "secret-assignment",
        _SECRET_WORDS_LOWER + r"\s{0,3}[:=]\s{0,3}(?P<q>[\"'])(?P<secret>[^\"'\n]{4,512})(?P=q)",
        _WORDS_KEYS,
        generic=True,
    ),
    _rule(
        "secret-assignment",
        _CONFIG_LINE,
        _WORDS_KEYS,
        generic=True,
        flags=re.IGNORECASE | re.MULTILINE,
        lines=_SECRET_WORDS_LOWER + r"[\w.-]{0,20}[ \t]*(?::[ \t]|=)",
    ),
)

_PLACEHOLDER = re.compile(
    r"""^(?:
        \$.*                            # $VAR, ${VAR}, $(cmd)
      | \{\{.*\}\}                      # {{ template }}
      | <[^>]*>                         # <token>
      | %[A-Za-z_]+%                    # %VAR%
      | \*+ | x+ | X+ | \.+ | -+        # masks
      | (?:true|false|null|none|None|undefined|required|optional|string|str|int|bool)
      | (?:os\.environ|os\.getenv|process\.env|env\.|ENV\[|getenv).*
    )$""",
    re.VERBOSE,
)

# format characters (zero-width space/joiners, bidi controls, soft hyphen, BOM, …)
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


@cache
def _format_chars() -> re.Pattern[str]:
    """Every format (Cf) character: zero-width spaces and joiners, bidi controls, soft hyphen,
    BOM, tags. Built once from the Unicode database."""
    ranges: list[list[int]] = []
    for c in range(0x80, 0x110000):
        if unicodedata.category(chr(c)) == "Cf":
            if ranges and ranges[-1][1] == c - 1:
                ranges[-1][1] = c
            else:
                ranges.append([c, c])
    body = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)
    return re.compile(f"[{body}]+")


def _fast_normal(text: str) -> str:
    """NFKC with format characters removed, without the offset map (for finding out whether
    there is anything to replace, and for scanning)."""
    if text.isascii():
        return text
    text = _format_chars().sub("", text)
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


def _normalise(text: str) -> tuple[str, list[int] | None]:
    """NFKC with format characters removed, and for each normalised character the index of
    the original character it came from (None when the text is unchanged).

    Each non-ASCII character is normalised on its own so the offsets map back exactly; that
    differs from whole-string NFKC only for combining sequences, which no token format has.
    """
    if text.isascii():
        return text, None
    out: list[str] = []
    where: list[int] = []
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        if m.start() > pos:
            out.append(text[pos : m.start()])
            where.extend(range(pos, m.start()))
        for i in range(m.start(), m.end()):
            ch = text[i]
            if unicodedata.category(ch) == "Cf":
                continue
            nf = unicodedata.normalize("NFKC", ch)
            out.append(nf)
            where.extend([i] * len(nf))
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
        where.extend(range(pos, len(text)))
    normal = "".join(out)
    return normal, (None if normal == text else where)


@dataclass(frozen=True, slots=True)
class _RuleIndex:
    """Which rules each keyword calls for, so a text is searched once per keyword."""

    keywords: tuple[str, ...]
    by_keyword: dict[str, tuple[int, ...]]
    always: tuple[int, ...]
    """Rules with no keywords (users' own patterns): they run on every text."""


_MEMO_CHARS = 64
_MEMO_ENTRIES = 100_000


@dataclass(slots=True)
class Redactor:
    """Rules, user patterns and an allow list; replaces secrets and counts them per rule.

    Picklable, so a site's worker processes each get a copy; tokens depend only on the secret
    and ``key``, never on the page, so they agree across a whole site.
    """

    rules: tuple[Rule, ...] = RULES
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
        extra = []
        for name, regex in patterns:
            try:
                compiled = re.compile(regex)
            except re.error as exc:
                msg = f"bad redaction pattern {regex!r}: {exc}"
                raise RedactionError(msg) from exc
            if compiled.match(""):
                msg = f"bad redaction pattern {regex!r}: it matches the empty string"
                raise RedactionError(msg)
            extra.append(Rule(_rule_name(name), compiled))
        rules = (RULES if builtin else ()) + tuple(extra)
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

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping (start, end, rule) of every secret in already-normalised text."""
        found: list[tuple[int, int, int, str]] = []
        tokens = [m.span() for m in _TOKEN.finditer(text)] if TOKEN_PREFIX in text else []
        lower = text.lower()
        index = self._index or self._build_index()
        todo = set(index.always)
        for k in index.keywords:  # each keyword looked for once, not once per rule
            if k in lower:
                todo.update(index.by_keyword[k])
        for priority in sorted(todo):
            rule = self.rules[priority]
            for m in _matches(rule, text, lower):
                group = "secret" if "secret" in rule.pattern.groupindex else 0
                start, end = m.span(group)
                secret = m.group(group)
                if start == end or secret is None or secret in self.allow:
                    continue
                if TOKEN_PREFIX in secret or (rule.generic and _PLACEHOLDER.match(secret)):
                    continue
                if any(a < end and start < b for a, b in tokens):  # inside one of ours
                    continue
                found.append((start, priority, end, rule.name))
        found.sort()
        merged: list[tuple[int, int, str]] = []
        for start, _priority, end, name in found:
            if merged and start < merged[-1][1]:  # overlap: one token covers both
                last = merged[-1]
                merged[-1] = (last[0], max(last[1], end), last[2])
            else:
                merged.append((start, end, name))
        return merged

    def _build_index(self) -> _RuleIndex:
        by_keyword: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            for k in rule.keywords:
                by_keyword.setdefault(k, []).append(i)
        self._index = _RuleIndex(
            tuple(sorted(by_keyword)),
            {k: tuple(v) for k, v in by_keyword.items()},
            tuple(i for i, rule in enumerate(self.rules) if not rule.keywords),
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
        """The text with its secrets replaced, and the rule of each secret replaced."""
        if not self._spans(_fast_normal(text)):
            return text, ()
        normal, where = _normalise(text)
        spans = self._spans(normal)
        out: list[str] = []
        pos = 0
        for start, end, name in spans:
            token = self.token(name, normal[start:end])
            if where is None:
                o_start, o_end = start, end
            else:  # back to the original characters, invisible ones inside included
                o_start, o_end = where[start], where[end - 1] + 1
            out.append(text[pos:o_start])
            out.append(token)
            pos = max(pos, o_end)
        out.append(text[pos:])
        return "".join(out), tuple(name for _, _, name in spans)

    def scan_text(self, text: str, workers: int = 1) -> list[tuple[str, int]]:
        """``(rule, distinct matches)`` for whatever the rules still find in a page about to
        be written: in its text (tags removed, HTML-unescaped), in its tags' attributes
        (HTML-unescaped and URL-decoded), and in URL-decoded lines of text that hold
        ``%xx``. Inline base64 images are skipped. Nothing is counted or replaced; the
        secrets are never returned. A big page is scanned in slices cut at line ends, by
        ``workers`` processes."""

        def line_end(pos: int) -> int:
            return text.find("\n", pos) + 1 or len(text)

        cuts = _slices(len(text), line_end)
        found = forked_map(
            lambda i: self._scan_piece(text[cuts[i] : cuts[i + 1]]), len(cuts) - 1, workers
        )
        return _by_rule(found)

    def scan_file(self, path: Path, workers: int = 1) -> list[tuple[str, int]]:
        """:meth:`scan_text` for a written page, read a slice at a time by each process:
        the page is never held whole (as text, a 125 MB page can take 500 MB)."""
        with path.open("rb") as f:

            def line_end(pos: int) -> int:
                f.seek(pos)
                f.readline()
                return f.tell()

            cuts = _slices(path.stat().st_size, line_end)

        def scan(i: int) -> set[tuple[str, str]]:
            with path.open("rb") as f:
                f.seek(cuts[i])
                data = f.read(cuts[i + 1] - cuts[i])
            return self._scan_piece(data.decode("utf-8", "surrogateescape"))

        return _by_rule(forked_map(scan, len(cuts) - 1, workers))

    def _scan_piece(self, piece: str) -> set[tuple[str, str]]:
        piece = _DATA_URI.sub("data:", piece)  # one line each: slices never cut one
        text = html.unescape(_TAG.sub("", piece))  # as a reader sees it: tags split code
        attributes = unquote(html.unescape(" ".join(_TAG.findall(piece))))
        views = [text, attributes]
        if "%" in text:  # URL-encoded forms in content
            views.extend(unquote(line) for line in _PERCENT_LINE.findall(text))
        secrets: set[tuple[str, str]] = set()
        for view in views:
            normal = _fast_normal(view)
            secrets.update((name, normal[a:b]) for a, b, name in self._spans(normal))
        return secrets


def _slices(size: int, line_end: Callable[[int], int]) -> list[int]:
    """Offsets cutting ``size`` characters (or bytes) into slices of about ``_SCAN_SLICE``,
    each ending at a line end; ``line_end(pos)`` is the offset just past the line at pos."""
    cuts = [0]
    while cuts[-1] < size:
        pos = cuts[-1] + _SCAN_SLICE
        cuts.append(size if pos >= size else min(line_end(pos), size))
    return cuts


def _by_rule(found: Iterable[set[tuple[str, str]]]) -> list[tuple[str, int]]:
    """``(rule, distinct secrets)`` from the (rule, secret) pairs each slice found."""
    return sorted(Counter(name for name, _ in set().union(*found)).items())


def _matches(rule: Rule, text: str, lower: str) -> Iterator[re.Match[str]]:
    """The rule's matches; a line-anchored rule is tried only on the lines its locator finds
    in ``lower``, the text lower-cased (when that kept every offset)."""
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


_TOKEN = re.compile(r"\[REDACTED:[a-z0-9-]{1,40}:[0-9a-f]{8}\]")
_PERCENT_LINE = re.compile(r"^.*%[0-9A-Fa-f]{2}.*$", re.MULTILINE)
_SCAN_SLICE = 2_000_000
"""Characters (bytes, in a written page) the gate scans at a time, up to the next line end."""
_DATA_URI = re.compile(r"data:image/[A-Za-z0-9.+-]{1,40};base64,[A-Za-z0-9+/=]+")
_TAG = re.compile(r"<[^<>]{0,4096}>")


def _rule_name(name: str) -> str:
    cleaned = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:40]
    return cleaned or "custom"


def redaction_report(counts: Mapping[str, int]) -> str:
    """``redacted 14 secrets: aws-access-key 2, github-token 3`` (never the secrets)."""
    total = sum(counts.values())
    if not total:
        return "redacted 0 secrets"
    parts = ", ".join(
        f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f"redacted {total} secret{'s' if total != 1 else ''}: {parts}"


def load_redact_config(path: Path) -> tuple[list[tuple[str, str]], list[str], str]:
    """Read a TOML file: ``key = "…"``, ``allow = ["…"]`` and ``[[patterns]]`` tables with
    ``name`` and ``regex``. Returns (patterns, allow, key)."""
    try:
        import tomllib  # Python 3.11+
    except ImportError as exc:  # pragma: no cover - Python 3.10
        msg = f"{path}: a redaction config file needs Python 3.11 or newer (tomllib)"
        raise RedactionError(msg) from exc
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        msg = f"{path}: cannot read redaction config: {exc}"
        raise RedactionError(msg) from exc
    patterns: list[tuple[str, str]] = []
    for i, item in enumerate(data.get("patterns", [])):
        if not isinstance(item, dict) or not isinstance(item.get("regex"), str):
            msg = f"{path}: patterns[{i}] needs a regex string"
            raise RedactionError(msg)
        name = item.get("name", "custom")
        patterns.append((name if isinstance(name, str) else "custom", item["regex"]))
    allow = data.get("allow", [])
    key = data.get("key", "")
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        msg = f"{path}: allow must be a list of strings"
        raise RedactionError(msg)
    if not isinstance(key, str):
        msg = f"{path}: key must be a string"
        raise RedactionError(msg)
    return patterns, allow, key


# Fields that hold structure, not content: never rewritten, so ids, deep links, tool
# pairing and the tree survive. (If one of them held a secret, the output gate says so.)
_ENTRY_STRUCTURE = frozenset(
    {"id", "parentId", "type", "timestamp", "targetId", "fromId", "firstKeptEntryId"}
)
_HEADER_STRUCTURE = frozenset({"id", "type", "version", "timestamp"})


def _keep(value: JSON, skip: frozenset[str]) -> frozenset[str]:
    """Keys of one object that hold structure (ids, pairing, image pixels), not content."""
    keep = skip
    kind = value.get("type")
    if kind == "image":
        keep = keep | {"data"}  # base64 pixels; the mime type is still scanned
    elif kind == "toolCall":
        keep = keep | {"id"}
    if "toolCallId" in value:
        keep = keep | {"toolCallId"}
    return keep


def _redact_value(root: JSON, r: Redactor, skip: frozenset[str]) -> JSON:
    """A copy of a JSON object with every string (values and keys) redacted. Iterative: the
    loader accepts nesting deeper than Python's recursion limit."""

    def copy(value: Any) -> Any:
        if isinstance(value, str):
            return r.redact_text(value)
        if isinstance(value, dict):
            new: JSON = {}
            stack.append((value, new, _keep(value, frozenset())))
            return new
        if isinstance(value, list):
            items: list[Any] = []
            stack.append((value, items, frozenset()))
            return items
        return value

    out: JSON = {}
    stack: list[tuple[Any, Any, frozenset[str]]] = [(root, out, _keep(root, skip))]
    while stack:
        src, dst, keep = stack.pop()
        if isinstance(src, dict):
            for k, v in src.items():
                if k in keep:
                    dst[k] = v
                else:
                    dst[r.redact_text(k) if isinstance(k, str) else k] = copy(v)
        else:
            dst.extend(copy(v) for v in src)
    return out


def redact_session(session: Session, redactor: Redactor) -> Session:
    """A new Session whose header, entries, labels, name and diagnostics hold no secret the
    rules find; ids, parents, types, timestamps, tool pairing and image data are unchanged."""
    header = session.header
    if header is not None:
        raw = _redact_value(header.raw, redactor, _HEADER_STRUCTURE)
        parent = raw.get("parentSession", raw.get("branchedFrom"))
        header = replace(
            header,
            raw=raw,
            cwd=raw["cwd"] if isinstance(raw.get("cwd"), str) else None,
            parent_session=parent if isinstance(parent, str) else None,
        )
    entries: list[Entry] = [
        replace(e, raw=_redact_value(e.raw, redactor, _ENTRY_STRUCTURE)) for e in session.entries
    ]
    return _rebuilt(
        session,
        header,
        entries,
        labels={k: redactor.redact_text(v, count=False) for k, v in session.labels.items()},
        name=None if session.name is None else redactor.redact_text(session.name, count=False),
        diagnostics=[
            Diagnostic(
                redactor.redact_text(d.path, count=False),
                d.line,
                redactor.redact_text(d.message, count=False),
                d.level,
            )
            for d in session.diagnostics
        ],
        path=redactor.redact_text(session.path, count=False),
    )


def _rebuilt(
    session: Session,
    header: SessionHeader | None,
    entries: list[Entry],
    *,
    labels: dict[str, str],
    name: str | None,
    diagnostics: list[Diagnostic],
    path: str,
) -> Session:
    return Session(
        path=path,
        header=header,
        entries=entries,
        by_id={e.id: e for e in entries},
        tree=session.tree,
        labels=labels,
        name=name,
        diagnostics=diagnostics,
        lines_read=session.lines_read,
    )
