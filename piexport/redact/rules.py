"""The redaction rules: what a secret looks like.

The built-in rules are written from the providers' documented token formats (the same ground
gitleaks' rule file covers; nothing is copied from it), then the shapes secrets take in
commands, headers, URLs and config files. They are kept as source text and compiled on first
use (:func:`builtin_rules`), so the CLI starts without compiling them. A user's own patterns
become rules through :func:`user_rule`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import PiexportError

if TYPE_CHECKING:
    RULES: tuple[Rule, ...]

__all__ = [
    "RULES",
    "WORDS_KEYS",
    "RedactionError",
    "Rule",
    "builtin_rules",
    "is_placeholder",
    "user_rule",
]


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

    def compiled(self) -> Rule:
        return Rule(
            self.name,
            re.compile(self.regex, self.flags),
            self.generic,
            tuple(self.keywords.split()),
            None if self.lines is None else re.compile(self.lines),
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
WORDS_KEYS = "pass secret token api access private credential"
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
        r"://[^\s:/?#@\"'<>`]{1,128}:"
        r"(?P<secret>[^\s/?#@\"'<>`]{1,256})@[A-Za-z0-9\[]",
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
        r"(?P<secret>[A-Za-z0-9._~+/=:-]{6,})",
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
        _SECRET_WORDS + r"[A-Z0-9_]{0,20}[ \t]{0,3}(?::=|=|:[ \t])[ \t]{0,3}"
        r"(?P<q>(?:\\{0,7}[\"'])?)(?P<secret>[^\s\"'`\\]{4,8192})(?P=q)",
        WORDS_KEYS,
        generic=True,
    ),
    _RuleSource(
        "secret-assignment",
        r"(?P<kq>[\"'])[\w.-]{0,40}"
        + _SECRET_WORDS_LOWER
        + r"(?P=kq)"
        + _GAP
        + "[:=]>?"
        + _GAP
        + r"(?P<q>\\{0,7}[\"'])(?P<secret>[^\"'\n]{4,8192})(?P=q)",
        WORDS_KEYS,
        generic=True,
        flags=re.IGNORECASE,
    ),
    _RuleSource(  # the same inside a string: {\"password\":\"…\"} (escaped once, twice, thrice)
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
    _RuleSource(
        "secret-assignment",
        _SECRET_WORDS_LOWER
        + r"[ \t]{0,3}[:=][ \t]{0,3}(?P<q>\\{0,7}[\"'])(?P<secret>[^\"'\n]{4,8192})(?P=q)",
        WORDS_KEYS,
        generic=True,
    ),
    _RuleSource(
        "secret-assignment",
        _CONFIG_LINE,
        WORDS_KEYS,
        generic=True,
        flags=re.IGNORECASE | re.MULTILINE,
        lines=_SECRET_WORDS_LOWER + r"[\w.-]{0,20}[ \t]*(?::[ \t]|=)",
    ),
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
