"""The redaction rules: what a secret looks like.

The built-in rules are written from the providers' documented token formats (the same ground
gitleaks' rule file covers; nothing is copied from it), then the shapes secrets take in
commands, headers, URLs and config files. They are kept as source text and compiled on first
use (:func:`builtin_rules`), so the CLI starts without compiling them. A user's own patterns
become rules through :func:`user_rule`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import RedactionError

if TYPE_CHECKING:
    RULES: tuple[Rule, ...]

__all__ = [
    "RULES",
    "WORDS_KEYS",
    "RedactionError",
    "Rule",
    "builtin_rules",
    "is_placeholder",
    "secret_group",
    "user_rule",
]


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
    accept: Callable[[re.Match[str]], bool] | None = None
    """Whether a match is a secret, where the pattern alone cannot say (an assignment's value
    after a lower-case key needs a digit or a symbol; a reference is not one)."""


@dataclass(frozen=True, slots=True)
class _RuleSource:
    """A rule as written: compiled into a :class:`Rule` on first use."""

    name: str
    regex: str
    keywords: str
    """Space-separated (see ``Rule.keywords``)."""
    generic: bool = False
    flags: int = 0
    lines: str | None = None
    accept: str | None = None
    """The name of a function of this module (see ``Rule.accept``)."""

    def compiled(self) -> Rule:
        return Rule(
            self.name,
            re.compile(self.regex, self.flags),
            self.generic,
            tuple(self.keywords.split()),
            None if self.lines is None else re.compile(self.lines),
            None if self.accept is None else _ACCEPT[self.accept],
        )


_END = r"(?![A-Za-z0-9_-])"

# --- the grammar of assignments (issue 35) -------------------------------------------------
# A secret-like KEY, a SEPARATOR one of the common formats uses, and a VALUE that ends where
# that format ends a value. Written once, in parts; the rules below are its few layouts (an
# assignment, an XML element, .netrc, .pgpass, a connection string). Every repeat is bounded
# and no unbounded repeat holds another, so a rule's time grows with the text, not faster.

WORDS_KEYS = (
    "pass secret token api access private credential auth encrypt hmac jwt"
    " signing_key signing-key signingkey session_key session-key sessionkey app_key app-key"
    " appkey master_key master-key masterkey license_key license-key licensekey"
)
"""Every secret word contains one of these (lower-cased)."""

_WORD = (  # its first letter as a set first: a text is scanned for it fast, then the rest
    r"[PpSsTtAaCcKk_](?i:(?<=p)(?:ass(?:word|wd|phrase)|ass(?<![a-z]pass)(?![a-z])"
    r"|rivate[_-]?key)"
    r"|(?<=s)(?:ecret|igning[_-]?key|ession[_-]?key)|(?<=t)oken"
    r"|(?<=a)(?:pi[_-]?key|ccess[_-]?key|pp[_-]?key)|(?<=c)redentials?"
    # a key named for what it encrypts or signs, read from its 'k' back (a rarer letter
    # than their first ones, which every text is full of): ENCRYPTION_KEY, masterKey
    r"|(?<=k)(?:(?<=encryption[_-]k)|(?<=encryptionk)|(?<=encrypt[_-]k)|(?<=master[_-]k)"
    r"|(?<=masterk)|(?<=hmac[_-]k)|(?<=hmack)|(?<=jwt[_-]k)|(?<=jwtk)|(?<=license[_-]k)"
    r"|(?<=licensek))ey"
    r"|(?<=_)(?<![a-z]_)auth|(?<=a)(?<![a-z]a)uth)"
)
"""A secret word, in any case: what makes a key name a secret (``db.password``,
``DB_PASSWORD``, ``client-secret``, ``_authToken``); ``pass`` and ``_auth`` only as a word
of their own (``DB_PASS``, not ``bypass``)."""
_NOT_A_KEY = re.compile(
    r"(?i:invalid|expired|missing|incorrect|revoked|unknown|bad|wrong|no|empty|malformed"
    r"|forgot|show|hide|rotate|require|validate|check|verify)[_.-]"
)
"""``INVALID_API_KEY``, ``EXPIRED_TOKEN``, ``show_password``: an error code or a setting
whose name ends in a secret word, not a key (checked in Python: a pattern that starts with
look-behinds is tried at every position of a text)."""
_NAMES_A_SECRET = (
    r"(?:name|ref|file|path|url|uri|id|type|len|length|endpoint|dir|env|hint|prompt|field"
    r"|header|policy|expires?|expiry|ttl|count|limit|format|version|kind|min|max|size"
    r"|timeout|budget|usage|enabled|required|invalid|expired|missing|revoked|mismatch|error"
    r"|errors|denied|exceeded|rejected|provided|regex|pattern|strength|label|mode"
    r"|location|source|store|manager|helper|cmd|command|var|variable|arn|tag|key[_-]?id)"
)
_KEY = "".join(
    [
        r"(?P<key>",
        _WORD,
        r"(?-i:(?![a-z]))(?![sS](?![A-Za-z]))",  # not tokenizer, tokens, MAX_TOKENS, SECRETS_
        # not password_file, secretName, token_url, api_key_env, PASSWORD_MIN_LENGTH
        rf"(?![\w.-]{{0,30}}?(?:[_.-]|(?-i:(?<=[a-z])(?=[A-Z]))){_NAMES_A_SECRET}"
        r"(?:[_.-]?[a-z0-9]{1,8})?(?![\w.-]))",
        r"[\w.-]{0,30})",  # the rest of the key: DB_PASSWORD_PROD, secret_key_base
    ]
)
"""A key naming a secret, from its secret word on (what is before the word, ``export DB_``,
``$env:``, ``--``, ``- ``, a quote, changes nothing: only the value is replaced)."""
_BARE = r"(?:[^\s\"'`<>,;)\]}\\]|\\(?![nrt\"'\\/]))"
"""A character of a bare value: not a space, a quote, a tag, nor an escape a JSON or C string
writes (``\\n`` ends the value there: the text it was made from had a line end)."""
_VALUE_END = r"[,;)\]}]"
_VALUE = "".join(
    [
        # quoted: up to its closing quote (a value never starts or ends with a space: ``"a:"
        # and "b"`` are two strings)
        r'(?:"""(?P<secret7>[^"]{1,8192})"""'
        r"|'''(?P<secret8>[^']{1,8192})'''"  # TOML's multi-line strings
        r"|\"(?P<secret>[^\"\s](?:[^\"\r\n]{0,8190}[^\"\s])?)\"",
        r"|'(?P<secret2>[^'\s](?:[^'\r\n]{0,8190}[^'\s])?)'",
        r"|`(?P<secret3>[^`\s](?:[^`\r\n]{0,8190}[^`\s])?)`",
        r"|(?P<eq>\\{1,7}[\"'])(?P<secret4>[^\"'\\\r\n]{1,8192})(?P=eq)",  # in a string
        # bare: up to a space, a quote, a tag, or ; , ) ] } that ends it (a comment or
        # anything after a space is not the value)
        rf"|(?!#|//|[(\[{{])(?P<secret5>{_BARE}{{1,8192}}(?:{_VALUE_END}{{1,8}}(?=[^\s\"'`<>]{{0,64}}[A-Za-z0-9]){_BARE}{{1,8192}}){{0,32}}))",
    ]
)
_SPACE = r"[ \t]{0,64}"
_ASSIGNMENT = "".join(
    [
        _KEY,
        r"(?:(?P<kq>\\{0,7}[\"'])\]?)?",  # the key's closing quote (and an index's: ENV["X"])
        r"(?:",
        # an operator: = : => := (a colon not part of :: or a URL's ://)
        rf"{_SPACE}(?P<op>=>|:=|\?=|=|:(?![:/])|,(?=[ \t]{{0,8}}[\"']))",
        r"(?:",
        rf"{_SPACE}\\\r?\n{_SPACE}",  # a shell line continuation
        rf"|{_SPACE}(?:!\w{{1,16}}[ \t]{{1,8}})?(?P<block>[|>][+-]?[1-9]?[+-]?)[ \t]{{0,8}}"
        r"(?:#[^\r\n]{0,256})?\r?\n",  # a YAML block scalar: its body is the value
        rf"|{_SPACE}(?P<nl>\r?\n)[ \t]{{0,32}}",  # the value on the next line
        rf"|{_SPACE})",
        r"|[ \t]{0,8}\r?\n[ \t]{0,32}(?P<split>[=:])(?=[ \t])[ \t]{1,64}",  # INI: key / = v
        r"|(?P<tab>[ \t]{0,8}\t[ \t]{0,64})",  # a tab (.properties, TSV)
        r"|(?P<space>[ \t]{1,64})(?=[^\s=:])",  # a space (.properties): only at a line start
        r")",
        r"(?(block)[ \t]{1,64}(?P<secret6>[^ \t\r\n][^\r\n]{0,8192}"
        r"(?:\r?\n[ \t]{1,64}[^ \t\r\n][^\r\n]{0,8192}){0,256})",
        rf"|{_VALUE})",
    ]
)
"""``KEY sep VALUE`` in every layout the common formats use (see the module's rules)."""
_NAME_VALUE = "".join(
    [
        r"[NnKk](?i:(?<=n)ame|(?<=k)ey)(?![\w-])[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?",
        rf"[\w.-]{{0,40}}?{_KEY}[\"']?",
        # then the value's name: after a comma, spaces (XML attributes) or on the next line
        r"(?:[ \t]{0,8},[ \t]{0,8}|[ \t]{1,8}|[ \t]{0,8}\r?\n[ \t]{0,64}(?:-[ \t]{1,8})?)",
        r"[\"']?(?i:value)[\"']?[ \t]{0,8}(?P<op>[:=])[ \t]{0,8}",
        _VALUE,
    ]
)
"""A name and its value given apart: Kubernetes' and compose's ``- name: DB_PASSWORD`` /
``value: …``, ``{"name": "API_KEY", "value": "…"}`` (ECS, GitHub), .NET's
``<add key="DbPassword" value="…"/>``."""
_XML_ELEMENT = (
    rf"<(?:[\w-]{{1,30}}:)?[\w.-]{{0,30}}?{_KEY}(?:[ \t][^<>\r\n]{{0,256}})?>"
    r"\s{0,64}(?P<secret>[^<\s](?:[^<]{0,8192}[^<\s])?)\s{0,64}</"
)
"""``<password>v</password>`` (Maven's settings.xml, .NET configs), the value trimmed."""
_NETRC = (
    r"(?:[Mm](?<![\w-][Mm])(?i:achine)|[Dd](?<![\w-][Dd])(?i:efault))"
    r"(?:[ \t\r\n]{1,64}(?!(?i:pass(?:word|wd))\b)\S{1,256}){0,8}?"
    r"[ \t\r\n]{1,64}(?i:pass(?:word|wd))[ \t]{1,64}(?P<secret>[^\s\"']{1,256})"
)
"""``machine h login u password p`` (.netrc, on one line or several)."""
_PGPASS = (
    r"^[A-Za-z0-9.*_-]{1,253}:(?:\d{1,5}|\*):[\w.*-]{1,63}:[\w.@*-]{1,63}:"
    r"(?P<secret>[^\s:]\S{2,255})$"
)
"""``host:port:db:user:password`` (.pgpass), a line of its own."""
_CONNECTION = (
    r";[ \t]{0,8}(?i:pwd|password)[ \t]{0,8}=[ \t]{0,8}(?P<secret>[^;\"'\r\n]{1,512})"
    r"|[Pp](?<![^\s\"'][Pp])(?i:wd|assword)=(?P<secret2>[^;\"'\r\n]{1,512});[ \t]{0,8}"
    r"[\w ]{1,40}="
)
"""``Server=…;User Id=…;Password=p w;`` (a connection string: the value may hold spaces)."""
_CLI_PASSWORD = (
    r"(?<![\w-])(?:docker|podman|buildah|skopeo|oras|nerdctl|helm[ \t]{1,8}registry)[ \t]{1,8}"
    r"login(?:[ \t]{1,8}(?!-p\b)\S{1,256}){0,8}?[ \t]{1,8}-p[ \t]{1,8}"
    r"(?P<q>[\"']?)(?P<secret>[^\s\"'`]{1,256})(?P=q)"
)
"""``docker login -u user -p pass`` (and every tool that takes a user and a password so)."""
_HEREDOC = (
    rf"{_KEY}[\"']?[ \t]{{0,64}}(?:[=:][ \t]{{0,64}})?<<[-~]?[ \t]{{0,8}}(?P<hq>[\"']?)"
    r"(?P<tag>[A-Za-z_][A-Za-z0-9_]{0,30})(?P=hq)[ \t]{0,64}\r?\n"
    r"(?P<secret>[^\r\n]{1,8192}(?:\r?\n(?![ \t]{0,64}(?P=tag)\b)[^\r\n]{0,8192}){0,256})"
    r"\r?\n[ \t]{0,64}(?P=tag)\b"
)
"""``password = <<EOF`` / the value / ``EOF`` (HCL, shell, Ruby, PHP heredocs)."""

_CODE = re.compile(
    r"(?:[!~&*]|\+\+|--)?[A-Za-z_$][A-Za-z_.$]{0,200}"
    r"|[A-Za-z_$]{1,100}(?:\.[A-Za-z_$]{1,100}){0,8}(?<=..)[(\[][\w.$*=(\[\]),{]{0,200}"
)
"""A reference, not a value: a name, a dotted name, a call or an index (``self.token``,
``get_token()``, ``config["x"]``, ``++current``, ``!ok``)."""
_ATTRIBUTE = re.compile(
    r"(?:token|secret|password|credentials?|auth)\.(?!(?:value|key|secret|password|token)$)"
    r"[a-z_]{1,30}"
)
"""``token.markup``, ``secret.name``: the attribute of an object named for a secret."""
_NUMBER = re.compile(r"[+-]?\d{1,5}(?:[.,]\d{1,6})?[a-z%]{0,3}")
"""A number, maybe with a unit: a count, a length, a timeout (a PIN of six or more digits is
still a secret)."""
_A_KEY = re.compile(r"[\w.-]{0,40}(?i:pass|pwd|secret|token|key|auth|credential)[\w.-]{0,40}[=:]")
"""A value that is the next key (``password= passwd=``, a list of keys), not a value."""
_NEXT_KEY = re.compile(
    r"[A-Za-z_][\w.-]{2,80}[ \t]{0,8}(?:[-+*/|&]?=(?:[ \t]|[^=\s])|:(?:[ \t]|$))|-[ \t]"
)
"""The line after a key is the next key (``HOST=x``, ``user: app``, ``- item``), not its
value."""


def _line_start(text: str, at: int) -> bool:
    """Only a key's own prefix (indent, a quote, ``export``, a list dash) is before ``at`` on
    its line."""
    floor = max(0, at - _REACH)
    start = text.rfind("\n", floor, at) + 1
    if not start and floor:
        return False  # further than any prefix reaches (and never a scan back to the start)
    return _KEY_PREFIX.fullmatch(text, start, at) is not None


_KEY_PREFIX = re.compile(
    r"[ \t]{0,64}(?:[{\[(,][ \t]{0,8}){0,8}(?:-[ \t]{1,8})?"
    r"(?:(?:export|set|setx|declare -x|ENV)[ \t]{1,8}|\$env:)?"
    r"[\"']?[\w.$/:@-]{0,80}"
)


def _rest_of_line(text: str, at: int) -> str:
    """What follows ``at`` on its line (at most ``_REACH`` characters of it: each match
    looks at a bounded window, so a long line without an end costs no more per match)."""
    end = text.find("\n", at, at + _REACH)
    return text[at : min(len(text), at + _REACH) if end < 0 else end].strip()


_REACH = 512


def secret_group(m: re.Match[str]) -> str | int:
    """The group a match replaces: ``secret``, or in a rule of several forms whichever of
    ``secret2``, ``secret3``… matched; else the whole match (0)."""
    if "secret" not in m.re.groupindex:
        return 0
    for name in m.re.groupindex:
        if name.startswith("secret") and m.group(name) is not None:
            return name
    return 0


def assignment_value(m: re.Match[str]) -> bool:
    """Whether an assignment's value (the rule matched its layout) is one. A quoted value, a
    block's body and the value of an all-capitals key (``.env``) are, unless a placeholder;
    a bare value after a lower-case key, or on the line after its key, needs what no name
    has (a digit, a symbol, mixed case) and is never a reference (``self.token``,
    ``get_token()``) or a small number."""
    text = m.string
    group = secret_group(m)
    value = m.group(group)
    start = m.start()
    while (
        start > m.start() - 80 and start and (text[start - 1].isalnum() or text[start - 1] in "_.-")
    ):
        start -= 1  # the key's start (a key is short: never a scan back over a long word)
    if _NOT_A_KEY.match(text, start, m.start()):
        return False
    key = text[start : m.start("kq") if m.group("kq") else m.end("key")]
    if group == "secret6":  # a block's body
        return True
    if m.group("op") == "," and not (
        m.group("kq") and text[max(0, start - 3) : start].rstrip("\"' ").endswith("(")
    ):
        return False  # a pair of arguments (define('DB_PASSWORD', '…')), not a list of names
    if m.group("op") == "," and _A_KEY.fullmatch(value + "="):
        return False  # ("secret", "secret2"): names
    if start and text[start - 1] in "?&" and m.group("op") == "=":
        return False  # a URL's query: its own rule reads it (the value ends at & there)
    quoted = group != "secret5"
    after = _rest_of_line(text, m.end())
    if not quoted and (_NUMBER.fullmatch(value) or _A_KEY.fullmatch(value)):
        return False
    next_line = m.group("nl") is not None or m.group("split") is not None
    if next_line and not _line_start(text, start):
        return False  # a key inside a line, its line ending in ':': code (if x == 'token':)
    if next_line and not quoted and _NEXT_KEY.match(value + " " + after):
        return False  # on the next line: the next key (HOST=x, user: app, - item)
    spaced = m.group("space") is not None
    if spaced and key.lower() == "pass":
        return False  # a test runner's PASS line
    colon_glued = m.group("op") == ":" and not quoted and text[m.end("op")] not in " \t\r\n"
    if (spaced or colon_glued) and (
        not _line_start(text, start)
        or (
            after[:1] not in ("", "#", "!", ";", ",")
            and not after.startswith("//")
            and not _strong(value)
        )
    ):
        # ``db.password s3cret``, ``db.password:s3cret`` (.properties): a key that starts
        # a line, and the value the rest of it but a comment, or one no word looks like
        # (``password:Zq7!x9 and more``)
        return False
    if group in ("secret7", "secret8") and (m.group("op") != "=" or next_line):
        return False  # """…""" after a colon or on the next line: a docstring
    if _ATTRIBUTE.fullmatch(key) and m.group("op") == "=":
        return False  # token.markup = "…": an object's attribute, not a key
    if quoted and value.lower() in key.lower():
        return False  # token: "Token" (a type annotation), TOKEN_COMMENT: "comment"
    if quoted and key.lower() != "auth" and m.group("op") != ",":
        return len(value.strip()) >= 3
    if len(value) < 3:
        return False
    if ("(" in value or "[" in value) and _reference(value):
        return False  # a call or an index (TOKEN_ADD = intern(…)): code, whatever the key
    capitals = not any(c.islower() for c in key)
    if capitals and not (spaced or m.group("tab") or next_line):
        return True
    return not _reference(value) or _mixed_case(value)


def _reference(value: str) -> bool:
    """A name or a call, not a value (``self.token``, ``get_token(``, ``t.List[str``): one
    with lower case, capitals and digits all in it reads as a password (``pjT[5I2tG1``)."""
    if not _CODE.fullmatch(value):
        return False
    return not (
        any(c.islower() for c in value)
        and any(c.isupper() for c in value)
        and any(c.isdigit() for c in value)
    )


def _mixed_case(value: str) -> bool:
    """Letters in the mixed case of a generated password (``pYkbWNWaxxZf``), not of a name
    (``SecretStr``, ``getPasswordFromConfig``)."""
    letters = value.translate(_SEPARATORS)
    if len(letters) < 8 or not letters.isalpha() or not letters.isascii():
        return False
    upper = sum(c.isupper() for c in letters)
    if 0.3 <= upper / len(letters) <= 0.75:
        return True
    return upper > 0 and not letters.isupper() and _GENERATED.search(letters) is not None


_GENERATED = re.compile(
    r"[a-z][A-Z]$"  # a capital alone at the end: duyGhnaP (a name's last word has more)
    r"|[A-Z]{2,}[a-z][A-Z]"
    r"|(?i:[bcdfghjklmnpqrstvwxz]{5})"  # five consonants in a row: no word of any name has
    r"|(?:^|[A-Z])[bcdfghjklmnpqrstvwxz]{4}(?:[A-Z]|$)"  # a 4-letter part with no vowel
)
"""Letters no identifier or word is made of (a camelCase or PascalCase name has words with
vowels, a capital before each): what a generated password of letters alone looks like."""


_SEPARATORS = str.maketrans("", "", "_.-~+/")
"""Characters a generated password holds between its letters (``Qdga_NjLgzRbe``)."""


def _strong(value: str) -> bool:
    """A value no name or word looks like: eight characters or more with letters and digits
    or a password's symbols, or letters in a password's mixed case (never a reference, a
    number or a next key, which :func:`assignment_value` has ruled out already)."""
    if len(value) < 8:
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(c in "!@#$%^&*+=~" for c in value)
    return (letters and (digits or symbols)) or _mixed_case(value)


def pair_value(m: re.Match[str]) -> bool:
    """Whether the value of a name given apart is one: quoted, or bare and not a reference
    or a small number."""
    group = secret_group(m)
    value = m.group(group)
    if group != "secret5":
        return len(value.strip()) >= 3
    return (
        len(value) >= 3
        and not _NUMBER.fullmatch(value)
        and not (_reference(value) and not _mixed_case(value) and not value.isupper())
    )


_ACCEPT = {"assignment": assignment_value, "pair": pair_value}

_BUILTIN = (
    # provider formats first: when two rules cover one span, the first names it
    _RuleSource(
        "private-key",
        r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,16384}?-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
        r"|[A-Za-z0-9+/=\s:,.-]{0,16384})",
        "private",
    ),
    _RuleSource(
        "aws-access-key",
        r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])",
        "a3t akia asia abia acca",
    ),
    _RuleSource(
        "aws-secret-key",
        r"(?i:aws)[\w.-]{0,20}?(?i:secret|sk)[\w.-]{0,20}(?:\\{0,7}[\"'])?[ \t]{0,3}[:=]{1,2}>?"
        r"[ \t]{0,3}(?:\\{0,7}[\"'])?"
        # named as an AWS secret: a value cut short (a label, a preview) is still most of
        # one, and one longer than 40 is not a shorter key
        r"(?P<secret>[A-Za-z0-9/+]{16,128})(?![A-Za-z0-9+])",
        "aws",
    ),
    _RuleSource(
        "github-token",
        # the literal first, then the look-behind: the regex searches for 'gh' as fast as a
        # keyword would, and one keyword stands for five
        r"gh(?<![A-Za-z0-9]gh)[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])",
        "gh",
    ),
    _RuleSource(
        "github-token",
        r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9])",
        "github_pat_",
    ),
    _RuleSource(
        "gitlab-token",
        r"gl(?<![A-Za-z0-9]gl)(?:pat|dt|rt|ptt|cbt|ft|imt|agent|soat|oas)-"
        r"[A-Za-z0-9_-]{20,}" + _END,
        "gl",
    ),
    _RuleSource("gitlab-token", r"(?<![A-Za-z0-9])GR1348941[A-Za-z0-9_-]{20,}" + _END, "gr1348941"),
    _RuleSource(
        "anthropic-key",
        r"(?<![A-Za-z0-9])sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}" + _END,
        "sk-ant-",
    ),
    _RuleSource(
        "openai-key",
        r"(?<![A-Za-z0-9])sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"
        + _END
        + r"|(?<![A-Za-z0-9])sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?![A-Za-z0-9])"
        r"|(?<![A-Za-z0-9])sk-[A-Za-z0-9]{48}(?![A-Za-z0-9])",
        "sk-",
    ),
    _RuleSource("google-api-key", r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}" + _END, "aiza"),
    _RuleSource(
        "google-oauth-secret", r"(?<![A-Za-z0-9])GOCSPX-[A-Za-z0-9_-]{28}" + _END, "gocspx-"
    ),
    _RuleSource(
        "huggingface-token",
        r"(?<![A-Za-z0-9])(?:hf_[A-Za-z0-9]{30,40}|api_org_[A-Za-z0-9]{30,40})(?![A-Za-z0-9])",
        "hf_ api_org_",
    ),
    _RuleSource(
        "slack-token", r"(?<![A-Za-z0-9])xox[abposre]-(?:\d+-)?[0-9A-Za-z-]{10,}" + _END, "xox"
    ),
    _RuleSource(
        "slack-token",
        r"(?<![A-Za-z0-9])xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+(?![A-Za-z0-9])",
        "xapp-",
    ),
    _RuleSource(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
        "hooks.slack.com",
    ),
    _RuleSource(
        "stripe-key",
        r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,99}(?![A-Za-z0-9])"
        r"|(?<![A-Za-z0-9])whsec_[0-9A-Za-z]{24,}(?![A-Za-z0-9])",
        "k_live_ k_test_ whsec_",
    ),
    _RuleSource("npm-token", r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", "npm_"),
    _RuleSource(
        "pypi-token", r"(?<![A-Za-z0-9])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}" + _END, "pypi-"
    ),
    _RuleSource(
        "sendgrid-key",
        r"(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _END,
        "sg.",
    ),
    _RuleSource(
        "digitalocean-token",
        r"(?<![A-Za-z0-9])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])",
        "_v1_",
    ),
    _RuleSource(
        "jwt",
        r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        "eyj",
    ),
    _RuleSource(
        "telegram-bot-token",
        r"\b\d{8,10}:AA[A-Za-z0-9_-]{32,33}"
        + _END
        + r"|(?<=/bot)\d{3,15}:[A-Za-z0-9_-]{20,64}"
        + _END,
        ":aa /bot",
    ),
    # shapes
    _RuleSource(
        "url-credentials",
        r"://[^\s:/?#@\"'<>`]{0,128}:"
        # a '/' a password did not percent-encode stays in it (base64 has one), but a port
        # and a path before an '@' are no password (https://h:8080/users/@alice)
        r"(?P<secret>(?!\d{1,5}(?:/|$))[^\s/?#@\"'<>`][^\s?#@\"'<>`]{0,255})@[A-Za-z0-9\[]",
        "://",
        generic=True,
    ),
    _RuleSource(  # user:pass@host without a scheme (git remotes, rsync, proxies); ':' comes first
        "url-credentials",
        r":(?<=[A-Za-z0-9._%+-]:)(?<!mailto:)(?<!sip:)(?<!tel:)(?<!xmpp:)(?<!data:)"
        r"(?P<secret>[^\s:/?#@\"'<>`]{3,256})@"
        r"(?:localhost|[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8})(?![\w-])",
        "@",
        generic=True,
    ),
    _RuleSource(
        "auth-header",
        r"(?<![A-Za-z0-9-])(?i:(?:proxy-)?authorization)"
        r"(?:\\{0,7}[\"'])?[ \t]{0,3}[:=][ \t]{0,3}"
        r"(?:\\{0,7}[\"'])?(?i:(?:bearer|basic|token|digest|bot|negotiate)[ \t]+)?"
        r"(?!(?i:bearer|basic|token|digest|bot|negotiate)(?![\w-]))"  # a scheme, not a value
        r"(?P<secret>[A-Za-z0-9._~+/=:!@#%^&*-]{6,})",
        "authorization",
        generic=True,
    ),
    _RuleSource(
        "auth-header",
        r"(?<![A-Za-z0-9-])(?i:x-api-key|x-auth-token|api-key|private-token|x-access-token)"
        r"(?:\\{0,7}[\"'])?[ \t]{0,3}:[ \t]{0,3}(?:\\{0,7}[\"'])?"
        r"(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
        "x-api-key x-auth-token api-key private-token x-access-token",
        generic=True,
    ),
    _RuleSource(  # Cookie: / Set-Cookie: headers (the keyword, not a look-behind, comes first)
        "cookie",
        r"cookie(?:(?<![A-Za-z0-9-]cookie)|(?<=set-cookie)(?<![\w]set-cookie))"
        r"(?:\\{0,7}[\"'])?:[ \t]{0,3}(?:\\{0,7}[\"'])?"
        r"(?P<secret>[^\s;=\"'\\]{1,256}=[^\r\n\"'\\]{3,8192})",
        "cookie: cookie\": cookie': cookie\\",
        generic=True,
        flags=re.IGNORECASE,
    ),
    _RuleSource(  # curl -b 'name=value', --cookie "name=value"
        "cookie",
        r"-(?<![\w-]-)(?:b|-cookie)[ \t]+[\"']"
        r"(?P<secret>[^\s;=\"']{1,256}=[^\n\"']{3,8192})[\"']",
        "-b --cookie",
        generic=True,
    ),
    _RuleSource(  # --password=…, --db-password …, --api-key …, --client-secret …
        "cli-secret",
        r"--(?<![\w-]--)(?:[A-Za-z0-9]{1,20}[-_]){0,2}"
        r"(?i:password|passwd|pass|token|secret|api-key|api_key|apikey|secret-key|access-key)"
        r"(?:=|[ \t]+)(?P<q>[\"']?)(?!-)(?P<secret>[^\s\"'`]{3,512})(?P=q)",
        "--",
        generic=True,
    ),
    _RuleSource(  # mysql -pSECRET, sshpass -p SECRET, redis-cli -a SECRET
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
    _RuleSource(  # curl -u user:password, --user, --proxy-user
        "cli-secret",
        r"-(?<![\w-]-)(?:u|-user|-proxy-user)(?:[ \t]+|=)(?P<q>[\"']?)"
        r"(?!\d{1,10}:\d{1,10}(?![^\s\"'`]))[^\s:\"'`]{1,128}:(?P<secret>[^\s\"'`]{1,256})(?P=q)",
        "-u",
        generic=True,
    ),
    _RuleSource(  # tokens in URL queries: ?access_token=…, &api_key=…, ?X-Amz-Signature=…
        "url-token",
        r"[?&](?i:access_token|refresh_token|id_token|auth_token|token|api_key|apikey|api-key"
        r"|secret|client_secret|password|passwd|pwd|x-amz-signature|x-amz-security-token"
        r"|x-goog-signature|sessionid|session_id)=(?P<secret>[^\s&#\"'`<>\\]{4,4096})",
        "? &",  # one character is looked for faster than nine names
        generic=True,
    ),
    _RuleSource(  # names that are often not secrets: only a long value is one
        "url-token",
        r"[?&](?i:key|code|sig|signature|auth|pass|session|sid)="
        r"(?P<secret>[A-Za-z0-9_.~+/%=-]{16,4096})(?![^\s&#\"'`<>\\])",
        "? &",
        generic=True,
    ),
    _RuleSource(  # form bodies and arguments: -d 'user=admin&password=…', … password=…
        "url-token",
        r"(?<![^\s'\"])(?i:password|passwd|pwd|access_token|refresh_token|client_secret|api_key"
        r"|apikey)=(?P<secret>(?=[^\s&#\"'`<>(){}\[\],;\\]{0,512}[0-9!@%^*+/~-])"
        r"[^\s&#\"'`<>(){}\[\],;\\]{4,512})",
        "password= passwd= pwd= access_token= refresh_token= client_secret= api_key= apikey=",
        generic=True,
    ),
    _RuleSource(
        "secret-assignment",
        _ASSIGNMENT,
        WORDS_KEYS,
        generic=True,
        flags=re.IGNORECASE,
        accept="assignment",
    ),
    _RuleSource(
        "secret-assignment",
        _NAME_VALUE,
        WORDS_KEYS,
        generic=True,
        accept="pair",
    ),
    _RuleSource(
        "secret-assignment",
        _XML_ELEMENT,
        WORDS_KEYS,
        generic=True,
        flags=re.IGNORECASE,
    ),
    _RuleSource("secret-assignment", _NETRC, "machine default", generic=True),
    _RuleSource("secret-assignment", _PGPASS, ":", generic=True, flags=re.MULTILINE),
    _RuleSource("secret-assignment", _CONNECTION, "pwd password", generic=True),
    _RuleSource("cli-secret", _CLI_PASSWORD, "login", generic=True),
    _RuleSource("secret-assignment", _HEREDOC, "<<", generic=True, flags=re.IGNORECASE),
)
"""The built-in rules as written, in order: when two rules cover one span, the first names it."""


@cache
def builtin_rules() -> tuple[Rule, ...]:
    """The built-in rules, compiled on first use: the CLI starts without compiling them."""
    return tuple(source.compiled() for source in _BUILTIN)


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
      | (?:value|foo|bar|baz|example|test|secret|password|token)  # what a doc writes
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


def is_placeholder(value: str) -> bool:
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


def user_rule(name: str, regex: str) -> Rule:
    """A user's own pattern as a rule (its name made a short lower-case word); a bad regex
    raises :class:`RedactionError` naming it."""
    try:
        compiled = re.compile(regex)
    except re.error as exc:
        msg = f"bad redaction pattern {regex!r}: {exc}"
        raise RedactionError(msg) from exc
    if compiled.match(""):
        msg = f"bad redaction pattern {regex!r}: it matches the empty string"
        raise RedactionError(msg)
    return Rule(_rule_name(name), compiled)


def _rule_name(name: str) -> str:
    cleaned = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:40]
    return cleaned or "custom"
