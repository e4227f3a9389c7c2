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

import bisect
import csv
import hashlib
import hmac
import html
import io
import itertools
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ..errors import PiexportError
from ..read.model import JSON, Diagnostic, Entry, Session, SessionHeader
from ..text.cut import FENCE, Derive, fence_step
from ..text.cut import TOKEN as _TOKEN
from ..workers import forked_map

if TYPE_CHECKING:
    RULES: tuple[Rule, ...]

__all__ = [
    "RULES",
    "RedactionError",
    "Redactor",
    "Rule",
    "gate",
    "load_redact_config",
    "redact_session",
    "redaction_report",
    "unrewritable",
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
_GAP = r"[ \t]{0,3}(?:\r?\n[ \t]{0,8})?"
"""Space between a quoted key and its value: on one line, or the value on the next line.
Never a blank line: two paragraphs (two blocks of a page) are two texts."""
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
        r"[^\s\"'#,;(){}\[\]<>`]{4,8192})(?P=q)[ \t]*$",  # the rest of the line is the value
    ]
)
"""A config line in any case (YAML, .ini, .properties, .npmrc) whose key holds a secret
word and whose value is the rest of the line."""


@cache
def builtin_rules() -> tuple[Rule, ...]:
    """The built-in rules, compiled on first use: the CLI starts without compiling them."""
    return (
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
            r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])",
            "a3t akia asia abia acca",
        ),
        _rule(
            "aws-secret-key",
            r"(?i:aws)[\w.-]{0,20}?(?i:secret|sk)[\w.-]{0,20}(?:\\{0,7}[\"'])?[ \t]{0,3}[:=]{1,2}>?"
            r"[ \t]{0,3}(?:\\{0,7}[\"'])?"
            # named as an AWS secret: a value cut short (a label, a preview) is still most of
            # one, and one longer than 40 is not a shorter key
            r"(?P<secret>[A-Za-z0-9/+]{16,128})(?![A-Za-z0-9+])",
            "aws",
        ),
        _rule(
            "github-token",
            # the literal first, then the look-behind: the regex searches for 'gh' as fast as a
            # keyword would, and one keyword stands for five
            r"gh(?<![A-Za-z0-9]gh)[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])",
            "gh",
        ),
        _rule(
            "github-token",
            r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9])",
            "github_pat_",
        ),
        _rule(
            "gitlab-token",
            r"gl(?<![A-Za-z0-9]gl)(?:pat|dt|rt|ptt|cbt|ft|imt|agent|soat|oas)-"
            r"[A-Za-z0-9_-]{20,}" + _END,
            "gl",
        ),
        _rule("gitlab-token", r"(?<![A-Za-z0-9])GR1348941[A-Za-z0-9_-]{20,}" + _END, "gr1348941"),
        _rule(
            "anthropic-key",
            r"(?<![A-Za-z0-9])sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}" + _END,
            "sk-ant-",
        ),
        _rule(
            "openai-key",
            r"(?<![A-Za-z0-9])sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"
            + _END
            + r"|(?<![A-Za-z0-9])sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?![A-Za-z0-9])"
            r"|(?<![A-Za-z0-9])sk-[A-Za-z0-9]{48}(?![A-Za-z0-9])",
            "sk-",
        ),
        _rule("google-api-key", r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}" + _END, "aiza"),
        _rule("google-oauth-secret", r"(?<![A-Za-z0-9])GOCSPX-[A-Za-z0-9_-]{28}" + _END, "gocspx-"),
        _rule(
            "huggingface-token",
            r"(?<![A-Za-z0-9])(?:hf_[A-Za-z0-9]{30,40}|api_org_[A-Za-z0-9]{30,40})(?![A-Za-z0-9])",
            "hf_ api_org_",
        ),
        _rule(
            "slack-token", r"(?<![A-Za-z0-9])xox[abposre]-(?:\d+-)?[0-9A-Za-z-]{10,}" + _END, "xox"
        ),
        _rule(
            "slack-token",
            r"(?<![A-Za-z0-9])xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+(?![A-Za-z0-9])",
            "xapp-",
        ),
        _rule(
            "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
            "hooks.slack.com",
        ),
        _rule(
            "stripe-key",
            r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,99}(?![A-Za-z0-9])"
            r"|(?<![A-Za-z0-9])whsec_[0-9A-Za-z]{24,}(?![A-Za-z0-9])",
            "k_live_ k_test_ whsec_",
        ),
        _rule("npm-token", r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", "npm_"),
        _rule(
            "pypi-token", r"(?<![A-Za-z0-9])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}" + _END, "pypi-"
        ),
        _rule(
            "sendgrid-key",
            r"(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _END,
            "sg.",
        ),
        _rule(
            "digitalocean-token",
            r"(?<![A-Za-z0-9])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])",
            "_v1_",
        ),
        _rule(
            "jwt",
            r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
            "eyj",
        ),
        _rule(
            "telegram-bot-token",
            r"\b\d{8,10}:AA[A-Za-z0-9_-]{32,33}"
            + _END
            + r"|(?<=/bot)\d{3,15}:[A-Za-z0-9_-]{20,64}"
            + _END,
            ":aa /bot",
        ),
        # shapes
        _rule(
            "url-credentials",
            r"://[^\s:/?#@\"'<>`]{1,128}:"
            r"(?P<secret>[^\s/?#@\"'<>`]{1,256})@[A-Za-z0-9\[]",
            "://",
            generic=True,
        ),
        _rule(  # user:pass@host without a scheme (git remotes, rsync, proxies); ':' comes first
            "url-credentials",
            r":(?<=[A-Za-z0-9._%+-]:)(?<!mailto:)(?<!sip:)(?<!tel:)(?<!xmpp:)(?<!data:)"
            r"(?P<secret>[^\s:/?#@\"'<>`]{3,256})@"
            r"(?:localhost|[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8})(?![\w-])",
            "@",
            generic=True,
        ),
        _rule(
            "auth-header",
            r"(?<![A-Za-z0-9-])(?i:(?:proxy-)?authorization)"
            r"(?:\\{0,7}[\"'])?[ \t]{0,3}[:=][ \t]{0,3}"
            r"(?:\\{0,7}[\"'])?(?i:(?:bearer|basic|token|digest|bot|negotiate)[ \t]+)?"
            r"(?!(?i:bearer|basic|token|digest|bot|negotiate)(?![\w-]))"  # a scheme, not a value
            r"(?P<secret>[A-Za-z0-9._~+/=:-]{6,})",
            "authorization",
            generic=True,
        ),
        _rule(
            "auth-header",
            r"(?<![A-Za-z0-9-])(?i:x-api-key|x-auth-token|api-key|private-token|x-access-token)"
            r"(?:\\{0,7}[\"'])?[ \t]{0,3}:[ \t]{0,3}(?:\\{0,7}[\"'])?"
            r"(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
            "x-api-key x-auth-token api-key private-token x-access-token",
            generic=True,
        ),
        _rule(  # Cookie: / Set-Cookie: headers (the keyword, not a look-behind, comes first)
            "cookie",
            r"cookie(?:(?<![A-Za-z0-9-]cookie)|(?<=set-cookie)(?<![\w]set-cookie))"
            r"(?:\\{0,7}[\"'])?:[ \t]{0,3}(?:\\{0,7}[\"'])?"
            r"(?P<secret>[^\s;=\"'\\]{1,256}=[^\r\n\"'\\]{3,8192})",
            "cookie: cookie\": cookie': cookie\\",
            generic=True,
            flags=re.IGNORECASE,
        ),
        _rule(  # curl -b 'name=value', --cookie "name=value"
            "cookie",
            r"-(?<![\w-]-)(?:b|-cookie)[ \t]+[\"']"
            r"(?P<secret>[^\s;=\"']{1,256}=[^\n\"']{3,8192})[\"']",
            "-b --cookie",
            generic=True,
        ),
        _rule(  # --password=…, --db-password …, --api-key …, --client-secret …
            "cli-secret",
            r"--(?<![\w-]--)(?:[A-Za-z0-9]{1,20}[-_]){0,2}"
            r"(?i:password|passwd|pass|token|secret|api-key|api_key|apikey|secret-key|access-key)"
            r"(?:=|[ \t]+)(?P<q>[\"']?)(?!-)(?P<secret>[^\s\"'`]{3,512})(?P=q)",
            "--",
            generic=True,
        ),
        _rule(  # mysql -pSECRET, sshpass -p SECRET, redis-cli -a SECRET
            "cli-secret",
            r"(?<![A-Za-z0-9])(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b"
            r"[^\n|;&]{0,200}?[ \t]-p"
            r"(?P<q>[\"']?)(?P<secret>[^\s\"'`|;&]{1,256})(?P=q)"
            r"|(?<![A-Za-z0-9])sshpass(?:[ \t]+-[^p\s]\S{0,200}){0,4}[ \t]+-p[ \t]*(?P<q2>[\"']?)"
            r"(?P<secret2>[^\s\"'`]{1,256})(?P=q2)"
            r"|(?<![A-Za-z0-9])redis-cli(?:[ \t]+[^\s-]\S{0,200}|[ \t]+-[^a\s]\S{0,200}){0,8}"
            r"[ \t]+-a[ \t]+"
            r"(?P<q3>[\"']?)(?P<secret3>[^\s\"'`]{1,256})(?P=q3)",
            "mysql mariadb sshpass redis-cli",
            generic=True,
        ),
        _rule(  # curl -u user:password, --user, --proxy-user
            "cli-secret",
            r"-(?<![\w-]-)(?:u|-user|-proxy-user)(?:[ \t]+|=)(?P<q>[\"']?)"
            r"(?!\d{1,10}:\d{1,10}(?![^\s\"'`]))[^\s:\"'`]{1,128}:(?P<secret>[^\s\"'`]{1,256})(?P=q)",
            "-u",
            generic=True,
        ),
        _rule(  # tokens in URL queries: ?access_token=…, &api_key=…, ?X-Amz-Signature=…
            "url-token",
            r"[?&](?i:access_token|refresh_token|id_token|auth_token|token|api_key|apikey|api-key"
            r"|secret|client_secret|password|passwd|pwd|x-amz-signature|x-amz-security-token"
            r"|x-goog-signature|sessionid|session_id)=(?P<secret>[^\s&#\"'`<>\\]{4,4096})",
            "? &",  # one character is looked for faster than nine names
            generic=True,
        ),
        _rule(  # names that are often not secrets: only a long value is one
            "url-token",
            r"[?&](?i:key|code|sig|signature|auth|pass|session|sid)="
            r"(?P<secret>[A-Za-z0-9_.~+/%=-]{16,4096})(?![^\s&#\"'`<>\\])",
            "? &",
            generic=True,
        ),
        _rule(  # form bodies and arguments: -d 'user=admin&password=…', … password=…
            "url-token",
            r"(?<![^\s'\"])(?i:password|passwd|pwd|access_token|refresh_token|client_secret|api_key"
            r"|apikey)=(?P<secret>(?=[^\s&#\"'`<>(){}\[\],;\\]{0,512}[0-9!@%^*+/~-])"
            r"[^\s&#\"'`<>(){}\[\],;\\]{4,512})",
            "password= passwd= pwd= access_token= refresh_token= client_secret= api_key= apikey=",
            generic=True,
        ),
        _rule(
            "secret-assignment",
            _SECRET_WORDS + r"[A-Z0-9_]{0,20}[ \t]{0,3}(?::=|=|:[ \t])[ \t]{0,3}"
            r"(?P<q>(?:\\{0,7}[\"'])?)(?P<secret>[^\s\"'`\\]{4,8192})(?P=q)",
            _WORDS_KEYS,
            generic=True,
        ),
        _rule(
            "secret-assignment",
            r"(?P<kq>[\"'])[\w.-]{0,40}"
            + _SECRET_WORDS_LOWER
            + r"(?P=kq)"
            + _GAP
            + "[:=]>?"
            + _GAP
            + r"(?P<q>\\{0,7}[\"'])(?P<secret>[^\"'\n]{4,8192})(?P=q)",
            _WORDS_KEYS,
            generic=True,
            flags=re.IGNORECASE,
        ),
        _rule(  # the same inside a string: {\"password\":\"…\"} (escaped once, twice, thrice)
            "secret-assignment",
            r"(?P<kq>\\{1,7}[\"'])[\w.-]{0,40}"
            + _SECRET_WORDS_LOWER
            + r"(?P=kq)[:=]>?"
            + _GAP
            + r"(?P<q>\\{0,7}[\"'])(?P<secret>[^\"'\n]{4,8192})(?P=q)",
            "\\\": \\': \\\"= \\'=",
            generic=True,
            flags=re.IGNORECASE,
        ),
        _rule(
            "secret-assignment",
            _SECRET_WORDS_LOWER
            + r"[ \t]{0,3}[:=][ \t]{0,3}(?P<q>\\{0,7}[\"'])(?P<secret>[^\"'\n]{4,8192})(?P=q)",
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


def __getattr__(name: str) -> Any:
    if name == "RULES":  # the old module constant, kept for callers
        return builtin_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
_PLACEHOLDER_WORDS = re.compile(
    r"""(?ix)^(?:
        [a-z]+(?:[ \t]+[a-z]+)+[.!]?     # prose: "see docs", "ask the admin"
      | (?-i:[A-Z]+(?:_[A-Z]+)+)        # the name of a variable: GITHUB_TOKEN
      | (?:[a-z]+[_.-])*(?:your|here|changeme|placeholder|replaceme|dummy|fixme|todo)
        (?:[_.-][a-z]+)*                # YOUR_API_KEY_HERE, changeme, my-token-here
    )$"""
)
"""Values of a ``KEY=value`` shape that say what belongs there rather than holding it (no
digit: a real secret of only letters and separators, under such words, is not caught)."""


def _is_placeholder(value: str) -> bool:
    """A value a shape rule found that is not a secret: ``$VAR``, ``<token>``, prose… or the
    start of one, or a few characters of anything, that the page shortened (``${{ secre…``,
    ``<your-t...``, ``Bear...``)."""
    if _PLACEHOLDER.match(value) or _PLACEHOLDER_WORDS.match(value):
        return True
    if value.endswith(("…", "...")):
        head = value.rstrip(".…")
        return len(head) < 8 or bool(_PLACEHOLDER_START.match(head))  # Bear..., ${{ sec…
    return False


_PLACEHOLDER_START = re.compile(r"[$<%*.x-]|\{\{|(?:os\.|process\.|env\.|ENV\[|getenv)")


# format characters (zero-width space/joiners, bidi controls, soft hyphen, BOM, …)
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


INVISIBLE_EXTRA = frozenset(
    chr(c)
    for a, b in (
        (0x034F, 0x034F),  # combining grapheme joiner
        (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
        (0x17B4, 0x17B5),  # Khmer inherent vowels
        (0x180B, 0x180F),  # Mongolian variation selectors
        (0x3164, 0x3164),  # Hangul filler
        (0xFE00, 0xFE0F),  # variation selectors (U+FE0F after ghp_)
        (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
        (0xE0100, 0xE01EF),  # variation selectors supplement
    )
    for c in range(a, b + 1)
)
"""Characters that render as nothing (or as blank space no wider than a glyph joins) but are
not format (Cf) characters: removed before matching like the Cf ones. (To be unified with
``textsafe``'s set of invisible characters.)"""


def _invisible(ch: str) -> bool:
    return ch in INVISIBLE_EXTRA or unicodedata.category(ch) == "Cf"


@cache
def _format_chars() -> re.Pattern[str]:
    """Every format (Cf) character (zero-width spaces and joiners, bidi controls, soft hyphen,
    BOM, tags) and every other character that renders as nothing (``INVISIBLE_EXTRA``).
    Built once from the Unicode database."""
    ranges: list[list[int]] = []
    # planes 0 and 1 and the tags plane hold every Cf character (the rest are CJK and private)
    for c in (*range(0x80, 0x20000), *range(0xE0000, 0xE1000)):
        if _invisible(chr(c)):
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
    if _MARK_START in text:
        text = _MARK.sub("", text)
    text = _format_chars().sub("", text)
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


_MARK_START = "\u27ea"
_MARK = re.compile("\u27eaU\\+[0-9A-F]{4,6}\u27eb")
"""``⟪U+200B⟫``: how outputs show a character that draws as nothing (``textsafe``). It
stands for that character, which normalising removes: ``AKIA⟪U+FE0F⟫IOSF…`` is the key it
shows, and ``PASSWORD=⟪U+200B⟫`` holds no value."""


def _normalise(text: str) -> tuple[str, list[int] | None]:
    """NFKC with format characters removed, and for each normalised character the index of
    the original character it came from (None when the text is unchanged).

    Each non-ASCII character is normalised on its own so the offsets map back exactly; that
    differs from whole-string NFKC only for combining sequences, which no token format has.
    """
    if text.isascii():
        return text, None
    if _MARK_START in text and _MARK.search(text):
        stripped, start, _end = _without(_MARK, text)
        normal, where = _normalise(stripped)
        return normal, [start(i) for i in (range(len(stripped)) if where is None else where)]
    out: list[str] = []
    where = []
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        if m.start() > pos:
            out.append(text[pos : m.start()])
            where.extend(range(pos, m.start()))
        for i in range(m.start(), m.end()):
            ch = text[i]
            if _invisible(ch):
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
    groups: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    """The keywords by a punctuation character each holds (``"="`` for ``token=``, ``"_"``
    for ``ghp_``), ``""`` for those with none: a text without ``=`` skips every ``…=``
    keyword. Looking for one character is ten times faster than for a word that is not
    there, and most keywords are not. Each keyword comes with a word keyword inside it
    (``token`` for ``token=``) or ``""``: when that word is not in the text, neither is it."""


_GATES = "\\@?&=:/._-"
"""Punctuation in keywords, the rarer in text first."""


_PAIR_KEYWORDS = (*_WORDS_KEYS.split(), "auth", "cookie")
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
        rules = (builtin_rules() if builtin else ()) + tuple(extra)
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
        """Non-overlapping (start, end, rule) of every secret in already-normalised text, in
        every way an output shows it: as written, as a markdown renderer shows it
        (``AKIA**IOSF…**`` and ``ghp\\_…`` read as one key), with terminal escapes gone (a
        page draws colours, a Markdown fence drops them) and with ``%xx`` decoded (links).
        The redactor and the output gate both read text through this, so the gate finds
        nothing in redacted text that the redactor could have replaced."""
        found = self._read(text)
        for view, starts, ends in _views(text):
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
        for lo, hi, joined, where, marks in _markdown_read(text):
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
                group = _secret_group(m)
                start, end = m.span(group)
                secret = m.group(group)
                if start == end or secret is None or secret in self.allow:
                    continue
                if TOKEN_PREFIX in secret or (rule.generic and _is_placeholder(secret)):
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
            if not self._spans(_fast_normal(text)):
                break
            normal, where = _normalise(text)
            spans = self._spans(normal)
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
            token = self.token(name, _as_shown(normal[start:end]))
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
        nkey = _fast_normal(key)
        normal, where = _normalise(value)
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
            for start, end, name in self._spans(pre + shown + post):
                if start < hi and lo < end:
                    if shown is normal and lo <= start and end <= hi:
                        inside.append((start - lo, 0, end - lo, name))
                    else:
                        whole = whole or name
        if whole is not None:
            return self.token(whole, _as_shown(normal)), (whole,)
        if not inside:
            done, names = self._replace(value)
        else:
            found = [(a, 1, b, name) for a, b, name in self._spans(normal)] + inside
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

    def scan_text(self, text: str, workers: int = 1, kind: str = "html") -> list[tuple[str, int]]:
        """``(rule, distinct matches)`` for whatever the rules still find in an output about
        to be written, read the way the redactor reads text (:meth:`_spans`: as written, as
        Markdown shows it, without terminal escapes, URL-decoded), and the way its reader
        reads it (``kind``): ``"html"``, a page: its text (tags removed, HTML-unescaped, a
        badge or a row's text a unit of its own), its tags' attribute values, its data
        island's strings, inline base64 images skipped; ``"markdown"``: as it renders
        (our own ``<details>`` tags and character references outside code, code as it is);
        ``"json"``: each string, and each key with its string value; ``"csv"``: each cell;
        ``"text"`` (a terminal): as it is. Nothing is counted or replaced; the secrets are
        never returned. A big output is scanned in slices cut at line ends, by ``workers``
        processes."""

        def line_end(pos: int) -> int:
            return text.find("\n", pos) + 1 or len(text)

        cuts = _slices(len(text), line_end)
        fences = _fences_at(text, cuts) if kind == "markdown" else [""] * len(cuts)
        found = forked_map(
            lambda i: self._scan_piece(text[cuts[i] : cuts[i + 1]], kind, fences[i]),
            len(cuts) - 1,
            workers,
        )
        return _by_rule(found)

    def scan_file(self, path: Path, workers: int = 1, kind: str = "html") -> list[tuple[str, int]]:
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
            return self._scan_piece(data.decode("utf-8", "surrogateescape"), kind)

        return _by_rule(forked_map(scan, len(cuts) - 1, workers))

    def _scan_piece(self, piece: str, kind: str = "html", fence: str = "") -> set[tuple[str, str]]:
        """(rule, secret) of what the rules find in a piece of an output, read as its
        reader reads it (``_spans`` reads each view the way the redactor does)."""
        if kind == "html":
            views = _html_views(piece)
        elif kind == "markdown":
            views = [_markdown_view(piece, fence)]
        elif kind == "json":
            views = _json_views(piece)
        elif kind == "csv":  # a spreadsheet shows each cell on its own
            views = ["\n".join(cell for row in csv.reader(io.StringIO(piece)) for cell in row)]
        else:  # "text": for a terminal, a file or a script, read as it is
            views = [piece]
        secrets: set[tuple[str, str]] = set()
        for view in views:
            normal = _fast_normal(view)
            secrets.update((name, normal[a:b]) for a, b, name in self._spans(normal))
        return secrets


def _unit(m: re.Match[str]) -> str:
    return f"\n{m.group()}" if m.group(1) is None else f"\n{m.group()}\n"


def _html_views(piece: str) -> list[str]:
    """A page (or Markdown, which becomes HTML where it is read) as a reader sees it: its
    text, and its tags' attribute values (a link's target, a tooltip), each on its line.
    Inline tags split code and are left out; a block starts and ends a line (so the page's
    own words, "Show all 12 lines", never read as the value of the line before); a badge
    and a row's text (``class="badge …"``, ``class="t"``) are units of their own, each on
    its line: a label is not read as the key of the row's text beside it."""
    piece = _DATA_URI.sub("data:", piece)  # one line each: slices never cut one
    islands: list[str] = []
    if _ISLAND_START in piece:  # data for the page's script, which shows each value apart

        def island(m: re.Match[str]) -> str:
            islands.extend(_json_views(m.group(1)))
            return "\n"

        piece = _ISLAND.sub(island, piece)
    piece = _UNIT.sub(_unit, piece)
    text = html.unescape(_TAG.sub("", _BLOCK_TAG.sub("\n", piece)))
    # the tags alone, then their values (a value's quotes are escaped: none ends early)
    tags = " ".join(_TAG.findall(piece))
    values = [a or b for a, b in _ATTRIBUTE.findall(tags) if a or b]
    return [text, html.unescape("\n".join(values)), *islands]


_FENCE = re.compile(f"^{FENCE.pattern}$", re.MULTILINE)
_OUR_MARKDOWN_TAG = re.compile(r"</?(?:details|summary)>")
"""The only HTML our Markdown holds: everything from a session is code, or escaped."""


def _fence_step(fence: str, m: re.Match[str]) -> str:
    return fence_step(fence, m.group(1), m.group(2))


def _fences_at(text: str, cuts: list[int]) -> list[str]:
    """The code fence open at each cut of a Markdown text ("" for none)."""
    out: list[str] = []
    fence = ""
    matches = _FENCE.finditer(text)
    m = next(matches, None)
    for cut in cuts:
        while m is not None and m.start() < cut:
            fence = _fence_step(fence, m)
            m = next(matches, None)
        out.append(fence)
    return out


def _markdown_view(piece: str, fence: str = "") -> str:
    """Our Markdown as it renders: code (in fences) as it is; outside code our own
    ``<details>``/``<summary>`` tags end a line and character references show as their
    characters. (``fence``: the fence open where the piece starts.)"""
    out: list[str] = []
    pos = 0
    for m in _FENCE.finditer(piece):
        before = piece[pos : m.start()]
        out.append(before if fence else html.unescape(_OUR_MARKDOWN_TAG.sub("\n", before)))
        out.append(m.group())
        fence = _fence_step(fence, m)
        pos = m.end()
    rest = piece[pos:]
    out.append(rest if fence else html.unescape(_OUR_MARKDOWN_TAG.sub("\n", rest)))
    return "".join(out)


def _json_views(text: str) -> list[str]:
    """JSON as a program reads it: each string (key or value) on its line, and each key with
    its string value as ``"key": "value"`` (the pair the redactor reads). What is not one
    JSON value (JSON lines, a script) is read as it is."""
    try:
        data = json.loads(text)
    except ValueError:
        return [text]
    lines: list[str] = []
    stack = [data]
    while stack:  # iterative: JSON nests deeper than Python recurses
        value = stack.pop()
        if isinstance(value, str):
            lines.append(value)
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                lines.append(k)
                if isinstance(v, str):
                    lines.append(
                        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
                    )
                stack.append(v)
    return ["\n".join(lines)]


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


def _secret_group(m: re.Match[str]) -> str | int:
    """The group a match replaces: ``secret`` (or, in a rule of several forms, whichever of
    ``secret2``, ``secret3`` matched), else the whole match."""
    names = m.re.groupindex
    if "secret" not in names:
        return 0
    for name in ("secret", "secret2", "secret3"):
        if name in names and m.group(name) is not None:
            return name
    return 0


_WORD = "A-Za-z0-9_+/=-"
_MARKDOWN_JOIN = re.compile(  # the mark first and the character before it looked behind at:
    # a pattern that starts with a look-behind is tried at every position, ten times slower
    rf"(?:\*(?<=[{_WORD}]\*)\*{{0,2}}|~(?<=[{_WORD}]~)~?|`(?<=[{_WORD}]`)`{{0,2}}"
    rf"|\\(?<=[{_WORD}]\\)(?=[!-/:-@\[-`{{-~]))(?=[{_WORD}\\])"
)
"""Emphasis, strike and code marks, and backslash escapes, between two characters of a word:
a markdown renderer drops them and shows the two halves as one word."""


def _markdown_read(
    text: str,
) -> list[tuple[int, int, str, list[int], list[tuple[int, int]]]]:
    """The text as a markdown renderer shows it (marks inside words removed, character
    references such as ``&#95;`` decoded), around each place it differs: ``(lo, hi, joined,
    where, marks)`` for ``text[lo:hi]`` read that way, the offset in ``text`` of each
    character of ``joined``, and the spans of the marks and references. Only a secret that
    holds one of them is new, and none is longer than ``_JOIN_REACH``."""
    found: list[tuple[int, int, str]] = []
    if "*" in text or "\\" in text or "`" in text or "~" in text:
        found = [(m.start(), m.end(), "") for m in _MARKDOWN_JOIN.finditer(text)]
    if "&" in text and ";" in text:
        for m in _ENTITY.finditer(text):
            char = html.unescape(m.group())
            if len(char) == 1:
                found.append((m.start(), m.end(), char))
        found.sort()
    windows: list[tuple[int, list[int], list[tuple[int, int, str]]]] = []  # lo, [hi], marks
    for a, b, char in found:
        lo, hi = max(0, a - _JOIN_REACH), min(len(text), b + _JOIN_REACH)
        if windows and lo <= windows[-1][1][0]:
            if a < windows[-1][2][-1][1]:
                continue  # inside the last one
            windows[-1][1][0] = hi
            windows[-1][2].append((a, b, char))
        else:
            windows.append((lo, [hi], [(a, b, char)]))
    out = []
    for lo, (hi,), marks in windows:
        parts: list[str] = []
        where: list[int] = []
        pos = lo
        for a, b, char in marks:
            parts.append(text[pos:a] + char)
            where.extend(range(pos, a + len(char)))  # a reference's character is at its '&'
            pos = b
        parts.append(text[pos:hi])
        where.extend(range(pos, hi))
        out.append((lo, hi, "".join(parts), where, [(a, b) for a, b, _ in marks]))
    return out


def _as_shown(secret: str) -> str:
    """A secret as outputs show it (terminal escapes left out, ``%xx`` decoded, markdown's
    marks inside words removed, references decoded): what its token is made from, so
    ``ghp\\_…``, ``ghp&#95;…``, ``gh%70_…`` and ``ghp_…`` get one token."""
    if "\x1b" in secret:
        secret = _ANSI.sub("", secret)
    if "%" in secret and _PERCENT.search(secret):
        secret = _fast_normal(unquote(secret))
    if "&" in secret:
        secret = _ENTITY.sub(
            lambda m: c if len(c := html.unescape(m.group())) == 1 else m.group(), secret
        )
    return _MARKDOWN_JOIN.sub("", secret) if _MARKDOWN_JOIN.search(secret) else secret


_ANSI = re.compile(r"\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?")
"""Terminal escapes, as ``text.ansi`` finds them (a page draws their colours, a Markdown
fence leaves them out: the text around them reads as one)."""
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_PERCENT_LINE = re.compile(r"^.*%[0-9A-Fa-f]{2}.*$", re.MULTILINE)

Offset = Callable[[int], int]


def _views(text: str) -> Iterator[tuple[str, Offset, Offset]]:
    """The other ways outputs show ``text``: ``(view, start, end)`` where ``start(i)`` is
    the offset in ``text`` where the view's character ``i`` starts and ``end(i)`` where it
    ends. With terminal escapes left out (when there are any), and each line holding
    ``%xx`` URL-decoded (of the text, and of it without escapes)."""
    bases: list[tuple[str, Offset, Offset]] = []
    if "\x1b" in text:
        view, start, end = _without(_ANSI, text)
        bases.append((view, start, end))
        yield view, start, end
    if "%" not in text:
        return
    for base, b_start, b_end in [(text, _same, _next), *bases]:
        for m in _PERCENT_LINE.finditer(base):
            decoded, d_start, d_end = _url_decoded(m.group(), m.start())
            normal, where = _normalise(decoded)  # a decoded character can be invisible
            if where is not None:
                d_start, d_end = _through(where, d_start, d_end)
            yield (normal, *_then(d_start, d_end, b_start, b_end))


def _same(i: int) -> int:
    return i


def _next(i: int) -> int:
    return i + 1


def _through(where: list[int], start: Offset, end: Offset) -> tuple[Offset, Offset]:
    """Offsets of a view of a view: ``where[i]`` is the character of the first view that
    character ``i`` of the second came from."""
    return (lambda i: start(where[i])), (lambda i: end(where[i]))


def _then(
    start: Offset, end: Offset, outer_start: Offset, outer_end: Offset
) -> tuple[Offset, Offset]:
    """A view's offsets through the view it was made from."""
    return (lambda i: outer_start(start(i))), (lambda i: outer_end(end(i) - 1))


def _without(pattern: re.Pattern[str], text: str) -> tuple[str, Offset, Offset]:
    """``text`` with every match of ``pattern`` left out, and where each character was."""
    kept: list[str] = []
    views: list[int] = []  # where each kept piece starts in the view…
    origins: list[int] = []  # …and in the text
    pos = at = 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            views.append(at)
            origins.append(pos)
            kept.append(text[pos : m.start()])
            at += m.start() - pos
        pos = m.end()
    views.append(at)
    origins.append(pos)
    kept.append(text[pos:])

    def start(i: int) -> int:
        k = bisect.bisect_right(views, i) - 1
        return origins[k] + i - views[k]

    return "".join(kept), start, lambda i: start(i) + 1


def _url_decoded(line: str, offset: int) -> tuple[str, Offset, Offset]:
    """A line with each run of ``%xx`` decoded (UTF-8, as ``urllib.parse.unquote``), and
    where each character was in the text (``offset``: where the line starts there); the
    characters of a decoded run start at the run's start and end at its end."""
    out: list[str] = []
    spans: list[tuple[int, int, int, bool]] = []  # view start, text start, text end, exact
    pos = at = 0
    for m in _PERCENT.finditer(line):
        if m.start() > pos:
            spans.append((at, pos, m.start(), True))
            out.append(line[pos : m.start()])
            at += m.start() - pos
        chars = unquote(m.group())
        spans.append((at, m.start(), m.end(), False))
        out.append(chars)
        at += len(chars)
        pos = m.end()
    spans.append((at, pos, len(line), True))
    out.append(line[pos:])
    firsts = [v for v, _, _, _ in spans]

    def find(i: int) -> tuple[int, int, int, bool]:
        return spans[bisect.bisect_right(firsts, i) - 1]

    def start(i: int) -> int:
        v, a, _b, exact = find(i)
        return offset + (a + i - v if exact else a)

    def end(i: int) -> int:
        v, a, b, exact = find(i)
        return offset + (a + i - v + 1 if exact else b)

    return "".join(out), start, end


_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
"""A character reference, which markdown (and HTML) shows as its character."""
_JOIN_REACH = 300
"""How far around a markdown mark a secret joined by it is looked for."""


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


_SCAN_SLICE = 2_000_000
"""Characters (bytes, in a written page) the gate scans at a time, up to the next line end."""
_DATA_URI = re.compile(r"data:image/[A-Za-z0-9.+-]{1,40};base64,[A-Za-z0-9+/=]+")
_TAG = re.compile(r"<[^<>]{0,4096}>")
_ISLAND_START = '<script type="application/json"'
_ISLAND = re.compile(r'<script type="application/json"[^<>]*>([^<]*)</script>')
"""A page's data island (its ``<`` are escaped: no tag inside)."""
_UNIT = re.compile(
    r'<span class="badge[^"<>]*"[^<>]*>((?:[^<]|<span class="ctl"[^<>]*>[^<]*</span>){0,4096})'
    r'</span>|<span class="t">'
)
"""A badge (its text, with the marks of hidden characters in it) or the start of a row's
text: units the page shows apart from what is next to them."""
_BLOCK_TAG = re.compile(
    r"</?(?:p|div|pre|li|ul|ol|dl|dt|dd|tr|td|th|table|h[1-6]|summary|details|button|section"
    r"|header|footer|nav|aside|main|blockquote|figure|figcaption|title|script|style|noscript"
    r"|template|textarea|label|form|dialog|svg|caption|thead|tbody)(?:\s[^<>]{0,4096})?>"
    r"|<[bh]r ?/?>"
)
"""The start or end of a block (the page's markup is ours, lower case, and every block it
shows is closed; an SVG and its ``<title>`` are blocks of their own), and line and rule
breaks."""
_ATTRIBUTE = re.compile(r"""\s[\w:.-]{1,64}=(?:"([^"]*)"|'([^']*)')""")
"""A quoted attribute value in one of our tags (the page quotes every one)."""


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
    """Keys of one object of the session's own structure (an entry, its message, a content
    block) that hold ids, pairing or image pixels, not content."""
    keep = skip
    kind = value.get("type")
    if kind == "image" and _BASE64.fullmatch(str(value.get("data", ""))):
        keep = keep | {"data"}  # base64 pixels: no secret reads in them; the mime is scanned
    elif kind == "toolCall":
        keep = keep | {"id"}
    if "toolCallId" in value:
        keep = keep | {"toolCallId"}
    return keep


_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_NOTHING: frozenset[str] = frozenset()


def _redact_value(root: JSON, r: Redactor, skip: frozenset[str]) -> JSON:
    """A copy of a JSON object with every string (values and keys) redacted; a string under a
    key that names a secret is redacted as the pair the page shows. Only the session's own
    structure (the entry, its ``message``, the blocks of its ``content``) keeps ids and image
    pixels: the same shapes inside custom data or tool arguments are content. Iterative: the
    loader accepts nesting deeper than Python's recursion limit."""

    def copy(value: Any, structural: bool = False) -> Any:
        if isinstance(value, str):
            return r.redact_text(value)
        if isinstance(value, dict):
            new: JSON = {}
            stack.append(
                (value, new, _keep(value, _NOTHING) if structural else _NOTHING, structural)
            )
            return new
        if isinstance(value, list):
            items: list[Any] = []
            stack.append((value, items, _NOTHING, structural))
            return items
        return value

    out: JSON = {}
    stack: list[tuple[Any, Any, frozenset[str], bool]] = [(root, out, _keep(root, skip), True)]
    while stack:
        src, dst, keep, structural = stack.pop()
        if isinstance(src, dict):
            for k, v in src.items():
                if k in keep:
                    dst[k] = v
                elif isinstance(k, str) and isinstance(v, str):
                    dst[r.redact_text(k)] = r.redact_pair(k, v)
                else:
                    nested = structural and k in ("message", "content")
                    dst[r.redact_text(k) if isinstance(k, str) else k] = copy(v, nested)
        else:  # the blocks of a structural content list are structure; lists in them are not
            dst.extend(copy(v, structural) for v in src)
    return out


def _blocks_joined(raw: JSON, redactor: Redactor) -> JSON:
    """The entry with a secret split across text blocks of one content list replaced: the
    blocks show as one text (Markdown and titles join them, a page shows them one under the
    other), so a key cut in two by a block boundary is one key. The token goes where the
    secret starts, and the rest of it is left out of the blocks it ran into."""
    message = raw.get("message")
    holder = message if isinstance(message, dict) else raw
    content = holder.get("content")
    if not isinstance(content, list):
        return raw
    texts = [
        (i, b["text"])
        for i, b in enumerate(content)
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    if len(texts) < 2:
        return raw
    joined = "".join(t for _, t in texts)
    starts = list(itertools.accumulate((len(t) for _, t in texts[:-1]), initial=0))
    if not redactor._spans(_fast_normal(joined)):
        return raw
    normal, where = _normalise(joined)
    crossing = []
    for start, end, name in redactor._spans(normal):
        o_start, o_end = (start, end) if where is None else (where[start], where[end - 1] + 1)
        first = bisect.bisect_right(starts, o_start) - 1
        if o_end > starts[first] + len(texts[first][1]):  # runs into the next block
            crossing.append((o_start, o_end, redactor.token(name, _as_shown(normal[start:end]))))
            redactor.counts[name] += 1
    if not crossing:
        return raw
    new = list(content)
    for k, (i, text) in enumerate(texts):
        lo, hi = starts[k], starts[k] + len(text)
        kept, pos = [], lo
        for o_start, o_end, token in crossing:
            if o_end <= lo or o_start >= hi:
                continue
            kept.append(joined[pos : max(pos, o_start)])
            if o_start >= lo:
                kept.append(token)
            pos = max(pos, min(o_end, hi))
        kept.append(joined[pos:hi])
        new[i] = {**content[i], "text": "".join(kept)}
    return (
        {**raw, "message": {**holder, "content": new}}
        if holder is message
        else {
            **raw,
            "content": new,
        }
    )


def unrewritable(session: Session, redactor: Redactor) -> list[str]:
    """Where a secret sits that redaction leaves alone because links, the tree and tool
    pairing depend on it: ``line 4 (id)``, for the gate's message (never the secret)."""
    found: list[str] = []

    def check(obj: Any, line: int, fields: Iterable[str]) -> None:
        if not isinstance(obj, dict):
            return
        for name in fields:
            value = obj.get(name)
            if isinstance(value, str) and redactor._spans(_fast_normal(value)):
                found.append(f"line {line} ({name})")

    header = session.header
    if header is not None:
        check(header.raw, 1, _HEADER_STRUCTURE)
    for e in session.entries:
        check(e.raw, e.line, _ENTRY_STRUCTURE)
        message = e.message
        if message is not None:
            check(message, e.line, ("toolCallId",))
            blocks = message.get("content")
            for block in blocks if isinstance(blocks, list) else ():
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    check(block, e.line, ("id",))
    return found


def gate(
    text: str | Path,
    redactor: Redactor,
    where: object,
    *,
    workers: int = 1,
    session: Session | None = None,
    kind: str = "html",
) -> None:
    """The output gate: raise ``RedactionError`` naming the rules (never the secrets) when
    the rules still find something in an output about to be written (``text``, or a file
    written and not yet in place), read as its reader reads it (``kind``: ``"html"`` for a
    page or Markdown, ``"text"`` for a terminal, JSON or CSV), and the entries of
    ``session`` whose ids hold a secret (redaction never rewrites ids)."""
    left = (
        redactor.scan_file(text, workers, kind)
        if isinstance(text, Path)
        else redactor.scan_text(text, workers, kind)
    )
    if left:
        rules = ", ".join(f"{name} ({n})" for name, n in left)
        msg = f"{where}: not written: the redacted output still matches {rules}"
        places = unrewritable(session, redactor) if session is not None else []
        if places:
            shown = ", ".join(places[:5]) + (", …" if len(places) > 5 else "")
            msg += f"; a secret is in an id, which redaction never rewrites: entry at {shown}"
        raise RedactionError(msg)


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
        replace(e, raw=_redact_value(_blocks_joined(e.raw, redactor), redactor, _ENTRY_STRUCTURE))
        for e in session.entries
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
        redactor=redactor,
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
    redactor: Redactor,
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
        derive=Derive(redactor),
    )
