"""The file-and-tree part of docs/threats.md#hostile-corpus (items 1-19), as data.

Each case is a whole session file and the ids of the valid entries it holds: every one of
them must come out of the loader, and onto the page, exactly once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import orjson

HEADER = b'{"type":"session","version":3,"id":"corpus","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/c"}'


def rec(eid: str, parent: str | None = None, text: str = "ok") -> bytes:
    return orjson.dumps(
        {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": text},
        }
    )


GOOD = [rec("g1"), rec("g2", "g1"), rec("g3", "g2"), rec("g4", "g3"), rec("g5", "g4")]
GOOD_IDS = ["g1", "g2", "g3", "g4", "g5"]


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    valid: list[str]
    """Ids of the valid entries, each of which must survive."""
    unusable: bool = False
    """The file holds no session data at all: a one-line error is the right answer."""


def file_of(*lines: bytes, end: bytes = b"\n") -> bytes:
    return b"\n".join(lines) + end


def cases() -> list[Case]:
    deep = (
        b'{"type":"message","id":"d1","parentId":"g5","message":{"role":"user","content":'
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}}"
    )
    big = (
        b'{"type":"message","id":"b1","parentId":"g5","message":{"role":"user","content":"'
        + b"x" * 3_000_000
        + b'"}}'
    )
    out = [
        Case(
            "truncated-last-line",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"m9","parentId":"g5","message":{"role":"assistant","content":"hel',
                end=b"",
            ),
            GOOD_IDS,
        ),
        Case(
            "stub-then-record",
            file_of(HEADER, *GOOD, b'{"type":"label","id":"x","prNu' + rec("m5", "g5")),
            [*GOOD_IDS, "m5"],
        ),
        Case("nul-run", file_of(HEADER, *GOOD[:2], b"\x00" * 512, *GOOD[2:]), GOOD_IDS),
        Case(
            "bom-crlf", (b"\xef\xbb\xbf" + file_of(HEADER, *GOOD)).replace(b"\n", b"\r\n"), GOOD_IDS
        ),
        Case(
            "invalid-utf8",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"u8","parentId":"g5","message":{"role":"user","content":"caf\xe9 \xc0\xaf"}}',
            ),
            [*GOOD_IDS, "u8"],
        ),
        Case(
            "lone-surrogate",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"ls","parentId":"g5","message":{"role":"user","content":"a\\ud800b"}}',
            ),
            [*GOOD_IDS, "ls"],
        ),
        Case(
            "line-terminators-in-strings",
            file_of(
                HEADER,
                *GOOD,
                rec("lt", "g5", "a\u2028b\u2029c\u0085d\u000b\u000ce").replace(
                    b'{"type"', b'{\r"type"', 1
                ),
            ),
            [*GOOD_IDS, "lt"],
        ),
        Case(
            "non-object-lines",
            file_of(HEADER, b"[1,2]", *GOOD[:2], b'"hello"', b"42", *GOOD[2:], b"null", b"true"),
            GOOD_IDS,
        ),
        Case("deep-nesting", file_of(HEADER, *GOOD, deep), GOOD_IDS),
        Case("big-line", file_of(HEADER, *GOOD, big), [*GOOD_IDS, "b1"]),
        Case(
            "duplicate-keys",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"a","id":"dk","parentId":"g5","message":{"role":"user","content":"x"}}',
            ),
            [*GOOD_IDS, "dk"],
        ),
        Case(
            "nan-and-big-ints",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":12345678901234567890123,"parentId":"g5","message":{"role":"user","content":"a"}}',
                b'{"type":"message","id":12345678901234567890124,"parentId":"g5","message":{"role":"user","content":"b","n":NaN}}',
            ),
            [*GOOD_IDS, "12345678901234567890123", "12345678901234567890124"],
        ),
        Case("empty", b"", [], unusable=True),
        Case("whitespace-only", b"  \n\n\t \n", [], unusable=True),
        Case(
            "binary-png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10", [], unusable=True
        ),
        Case("not-jsonl", b"hello world\nthis is a readme\n", [], unusable=True),
        Case("no-header", file_of(*GOOD), GOOD_IDS),
        Case("header-at-line-3", file_of(*GOOD[:2], HEADER, *GOOD[2:]), GOOD_IDS),
        Case("two-headers", file_of(HEADER, *GOOD, HEADER), GOOD_IDS),
        Case(
            "duplicate-ids",
            file_of(HEADER, *GOOD, rec("g3", "g5", "second g3")),
            [*GOOD_IDS, "g3~2"],
        ),
        Case("cycle", file_of(HEADER, *GOOD, rec("A", "B"), rec("B", "A")), [*GOOD_IDS, "A", "B"]),
        Case("self-loop", file_of(HEADER, *GOOD, rec("C", "C")), [*GOOD_IDS, "C"]),
        Case(
            "long-cycle",
            file_of(HEADER, *GOOD, *[rec(f"c{i}", f"c{(i + 1) % 50}") for i in range(50)]),
            [*GOOD_IDS, *[f"c{i}" for i in range(50)]],
        ),
        Case("orphan", file_of(HEADER, *GOOD, rec("o1", "ghost")), [*GOOD_IDS, "o1"]),
        Case(
            "no-id-no-parent",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","message":{"role":"user","content":"x"}}',
                b'{"type":"custom"}',
            ),
            [*GOOD_IDS, "line:7", "line:8"],
        ),
        Case(
            "message-is-string",
            file_of(HEADER, *GOOD, b'{"type":"message","id":"w1","parentId":"g5","message":"str"}'),
            [*GOOD_IDS, "w1"],
        ),
        Case(
            "content-is-number",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"w2","parentId":"g5","message":{"role":"user","content":42}}',
            ),
            [*GOOD_IDS, "w2"],
        ),
        Case(
            "image-without-data",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"w3","parentId":"g5","message":{"role":"user","content":[{"type":"image"}]}}',
            ),
            [*GOOD_IDS, "w3"],
        ),
        Case(
            "timestamp-yesterday",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"w4","parentId":"g5","timestamp":"yesterday","message":{"role":"user","content":"x"}}',
            ),
            [*GOOD_IDS, "w4"],
        ),
        Case(
            "parent-is-object",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"w5","parentId":{},"message":{"role":"user","content":"x"}}',
            ),
            [*GOOD_IDS, "w5"],
        ),
        Case(
            "content-wrong-blocks",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"w6","parentId":"g5","message":{"role":"assistant","content":[1,"s",null,{"type":"toolCall"},{"type":"thinking"}]}}',
            ),
            [*GOOD_IDS, "w6"],
        ),
        Case(
            "usage-wrong-types",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"w7","parentId":"g5","message":{"role":"assistant","content":[],"usage":{"input":"many","cost":"lots"}}}',
            ),
            [*GOOD_IDS, "w7"],
        ),
        Case(
            "tool-result-odd",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"w8","parentId":"g5","message":{"role":"toolResult","toolCallId":7,"content":"plain","details":{"diff":5}}}',
            ),
            [*GOOD_IDS, "w8"],
        ),
        Case(
            "compaction-odd",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"compaction","id":"w9","parentId":"g5","summary":7,"tokensBefore":"x","details":{"readFiles":"a"}}',
            ),
            [*GOOD_IDS, "w9"],
        ),
        Case(
            "label-odd",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"label","id":"wa","parentId":"g5","targetId":{"x":1},"label":["l"]}',
            ),
            [*GOOD_IDS, "wa"],
        ),
        Case(
            "v1-with-garbage",
            file_of(
                b'{"type":"session","id":"v1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/c"}',
                b'{"type":"message","message":{"role":"user","content":"a"}}',
                b"garbage",
                b'{"type":"compaction","summary":"s","firstKeptEntryIndex":99}',
            ),
            ["00000002", "00000004"],
        ),
        Case(
            "header-wrong-types",
            file_of(b'{"type":"session","version":"three","id":5,"cwd":["x"]}', *GOOD),
            GOOD_IDS,
        ),
        Case("only-header", file_of(HEADER), []),
        Case(
            "unknown-types",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"checkpoint","id":"u1","parentId":"g5"}',
                b'{"type":"message","id":"u2","parentId":"u1","message":{"role":"alien","content":"x"}}',
            ),
            [*GOOD_IDS, "u1", "u2"],
        ),
        Case(
            "c0-and-bidi",
            file_of(
                HEADER,
                *GOOD,
                rec("bd", "g5", "a\x1b[2J\x07\x00b \u202eevil\u2066 \u200bzw \ufffe\uffff"),
            ),
            [*GOOD_IDS, "bd"],
        ),
        Case(
            "hostile-ids",
            file_of(
                HEADER,
                rec('x" onmouseover="alert(1)'),
                rec("</script><script>alert(1)</script>", 'x" onmouseover="alert(1)'),
                rec("sp ace", "</script><script>alert(1)</script>"),
            ),
            ['x" onmouseover="alert(1)', "</script><script>alert(1)</script>", "sp ace"],
        ),
        Case(
            "bidi-in-markdown",
            file_of(
                HEADER,
                *GOOD,
                *[rec(f"bm{i}", "g5", text) for i, text in enumerate(BIDI_MARKDOWN)],
            ),
            [*GOOD_IDS, *[f"bm{i}" for i in range(len(BIDI_MARKDOWN))]],
        ),
        Case(
            "invisible-in-keys",
            file_of(HEADER, *GOOD, *[rec(f"ik{i}", "g5", t) for i, t in enumerate(INVISIBLE)]),
            [*GOOD_IDS, *[f"ik{i}" for i in range(len(INVISIBLE))]],
        ),
        Case(
            "bidi-in-metadata",
            file_of(
                orjson.dumps(
                    {
                        "type": "session",
                        "version": 3,
                        "id": "id\u202egpj.exe",
                        "timestamp": "2025-01-01T00:00:00.000Z",
                        "cwd": "/home/\u2066evil\u2069/\u3164",
                        "parentSession": "/p/\u202efdp.jsonl",
                    }
                ),
                *GOOD,
                orjson.dumps(
                    {
                        "type": "session_info",
                        "id": "bn",
                        "parentId": "g5",
                        "name": "title \u202e\u200b\u034f\ufe0f end",
                    }
                ),
                orjson.dumps(
                    {
                        "type": "label",
                        "id": "bl",
                        "parentId": "bn",
                        "targetId": "g1",
                        "label": "lab\u202eel\u2800",
                    }
                ),
                orjson.dumps(
                    {
                        "type": "model_change",
                        "id": "bc",
                        "parentId": "bl",
                        "provider": "p\u202e",
                        "modelId": "m\u2066\ufe0f",
                    }
                ),
                orjson.dumps(
                    {
                        "type": "message",
                        "id": "ba",
                        "parentId": "bc",
                        "message": {
                            "role": "assistant",
                            "provider": "p\u202e",
                            "model": "m\u2067",
                            "stopReason": "error",
                            "errorMessage": "e\u202er\u3164",
                            "content": [
                                {"type": "thinking", "thinking": "think \u202e `c\u2066`"},
                                {
                                    "type": "toolCall",
                                    "id": "t\u202e1",
                                    "name": "tool\u202e\u034f",
                                    "arguments": {"k\u202e": "v\u2066\ufe0f"},
                                },
                                {
                                    "type": "toolCall",
                                    "id": "t2",
                                    "name": "read",
                                    "arguments": {"path": "/x/\u202egnp.py"},
                                },
                            ],
                        },
                    }
                ),
                orjson.dumps(
                    {
                        "type": "message",
                        "id": "br",
                        "parentId": "ba",
                        "message": {
                            "role": "toolResult",
                            "toolCallId": "t2",
                            "toolName": "read",
                            "content": [{"type": "text", "text": "x = '\u202e' # \u3164\n"}],
                        },
                    }
                ),
            ),
            [*GOOD_IDS, "bn", "bl", "bc", "ba", "br"],
        ),
    ]
    return out + field_cases() + figure_cases()


def _line(text: str) -> bytes:
    return text.encode()


def _nest(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


WIDE = "123456789012345678901234567890"
"""An integer past 64 bits (orjson reads it as a float; the loader keeps it exact)."""


def field_cases() -> list[Case]:
    """Valid JSON in odd shapes: deep nesting and numbers no double or int64 holds, in every
    field a command reads. None may crash any command (issue 13)."""
    assistant = (
        '{"type":"message","id":"%s","parentId":"g5","timestamp":"2025-01-01T00:00:02.000Z",'
        '"message":{"role":"assistant","content":[%s],"usage":%s,"stopReason":"toolUse",'
        '"provider":"p","model":"m"}}'
    )
    usage_ok = '{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3}'

    def call(eid: str, name: str, args: str, usage: str = usage_ok) -> bytes:
        block = f'{{"type":"toolCall","id":"call-{eid}","name":"{name}","arguments":{args}}}'
        return _line(assistant % (eid, block, usage))

    def result(eid: str, parent: str, name: str, extra: str = "") -> bytes:
        return _line(
            '{{"type":"message","id":"{}","parentId":"{}","message":{{"role":"toolResult",'
            '"toolCallId":"call-{}","toolName":"{}","content":[{{"type":"text","text":"out"}}],'
            '"isError":false{}}}}}'.format(eid + "r", parent, parent, name, extra)
        )

    def entry(eid: str, body: str) -> bytes:
        return _line(f'{{"id":"{eid}","parentId":"g5",{body}}}')

    glued_assistant = _line(
        '{"type":"message","id":"ga","parentId":"g5","message":{"role":"assistant",'
        '"content":[{"type":"text","text":"} {\\"type\\": \\"x\\"}"}],"stopReason":"stop"}}'
    )
    compaction = _line(
        '{"type":"compaction","id":"gc","parentId":"ga","summary":"s",'
        '"firstKeptEntryId":"ga","tokensBefore":5}'
    )
    numbers = [
        "1e999",
        "-1e999",
        "NaN",
        "Infinity",
        "-Infinity",
        WIDE,
        "-" + WIDE,
        "1e308",
        "9" * 5000,  # past the 4,300 digits Python converts
        "1" + "0" * 400 + ".5",
    ]
    out = [
        Case(
            "label-300-deep",
            file_of(
                HEADER, *GOOD, entry("l1", '"type":"label","targetId":"g5","label":' + _nest(300))
            ),
            [*GOOD_IDS, "l1"],
        ),
        Case(
            "label-wide-int",
            file_of(HEADER, *GOOD, entry("l2", f'"type":"label","targetId":"g5","label":{WIDE}')),
            [*GOOD_IDS, "l2"],
        ),
        Case(
            "unknown-tool-255-deep-args",
            file_of(
                HEADER,
                *GOOD,
                call("t1", "mytool", '{"a":' + _nest(255) + "}"),
                result("t1", "t1", "mytool"),
            ),
            [*GOOD_IDS, "t1", "t1r"],
        ),
        Case(
            "unknown-tool-900-deep-args",
            file_of(HEADER, *GOOD, call("t2", "mytool", '{"a":' + _nest(900) + "}")),
            [*GOOD_IDS, "t2"],
        ),
        Case(
            "read-wide-int-args",
            file_of(
                HEADER,
                *GOOD,
                call("t3", "read", f'{{"path":"a.py","offset":{WIDE},"limit":{WIDE}}}'),
                result("t3", "t3", "read"),
                call("t4", "read", '{"path":"a.py","offset":1e999,"limit":NaN}'),
                result("t4", "t4", "read"),
            ),
            [*GOOD_IDS, "t3", "t3r", "t4", "t4r"],
        ),
        Case(
            "wide-int-ids",
            file_of(
                HEADER,
                *GOOD,
                _line(
                    f'{{"type":"message","id":{WIDE},"parentId":"g5","message":{{"role":"user","content":"a"}}}}'
                ),
                _line(
                    f'{{"type":"message","id":"w2","parentId":{WIDE},"message":{{"role":"user","content":"b"}}}}'
                ),
                _line(
                    '{"type":"message","id":1e999,"parentId":NaN,"message":{"role":"user","content":"c"}}'
                ),
                _line(
                    f'{{"type":"message","id":{{"deep":{_nest(300)}}},"parentId":"g5","message":{{"role":"user","content":"d"}}}}'
                ),
            ),
            [*GOOD_IDS, WIDE, "w2", "1e999"],
        ),
        Case(
            "header-version-odd",
            file_of(_line('{"type":"session","version":1e999,"id":"h","cwd":"/c"}'), *GOOD),
            GOOD_IDS,
        ),
        Case(
            "header-version-nan",
            file_of(
                _line(f'{{"type":"session","version":NaN,"id":{WIDE},"cwd":{_nest(300)}}}'),
                *GOOD,
            ),
            GOOD_IDS,
        ),
        Case(
            "v1-compaction-index-odd",
            file_of(
                _line(
                    '{"type":"session","id":"v1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/c"}'
                ),
                _line('{"type":"message","message":{"role":"user","content":"a"}}'),
                _line(
                    '{"type":"compaction","summary":"s","firstKeptEntryIndex":1e999,"tokensBefore":NaN}'
                ),
                _line(f'{{"type":"compaction","summary":"s","firstKeptEntryIndex":{WIDE}}}'),
                _line('{"type":"compaction","summary":"s","firstKeptEntryIndex":NaN}'),
            ),
            ["00000002", "00000003", "00000004", "00000005"],
        ),
        Case(
            "real-world-turn-shapes",
            file_of(
                HEADER,
                *GOOD,
                *(
                    _line(
                        f'{{"type":"message","id":"f{i}","parentId":"{"g5" if i == 0 else f"f{i - 1}"}",'
                        '"message":{"role":"assistant","content":[],"stopReason":"error",'
                        f'"errorMessage":"overloaded {i}",'
                        '"usage":{"input":0,"output":0,"reasoning":0,"cacheWrite1h":0}}}'
                    )
                    for i in range(3)
                ),
                _line(
                    '{"type":"message","id":"rw","parentId":"f2","message":{"role":"assistant",'
                    '"content":[{"type":"thinking","thinking":"t","redacted":true,'
                    '"thinkingSignature":"c2ln"},{"type":"toolCall","id":"n1","name":"bash",'
                    '"arguments":null},{"type":"toolCall","id":"n2","name":"edit","arguments":{},'
                    '"partialJson":"{\\"path\\": \\"a","thoughtSignature":"c2ln"},'
                    '{"type":"toolCall","id":"n3","name":"x","arguments":null}],'
                    '"stopReason":"length","errorMessage":"also this","usage":{"input":5,'
                    '"output":6,"reasoning":3,"cacheWrite1h":2,"cost":{"total":0}}}}'
                ),
                result("n1", "rw", "bash"),
                _line(
                    '{"type":"custom","id":"cm","parentId":"n1r","customType":"c","data":{},'
                    '"message":{"role":"assistant","content":[{"type":"toolCall","id":"n9",'
                    '"name":"bash","arguments":{"command":"ls"}}]}}'
                ),
                result("n9", "cm", "bash"),
            ),
            [*GOOD_IDS, "f0", "f1", "f2", "rw", "n1r", "cm", "n9r"],
        ),
        Case(
            "ansi-parameter-of-5000-digits",
            file_of(
                HEADER,
                *GOOD,
                call("an", "bash", '{"command":"ls"}'),
                _line(
                    '{"type":"message","id":"anr","parentId":"an","message":{"role":"toolResult",'
                    '"toolCallId":"call-an","toolName":"bash","content":[{"type":"text","text":'
                    '"\\u001b[' + "9" * 5000 + ";38;5;" + "7" * 5000 + 'mred\\u001b[0m"}]}}'
                ),
            ),
            [*GOOD_IDS, "an", "anr"],
        ),
        *(
            Case(
                f"assistant-content-is-{kind}",
                file_of(
                    HEADER,
                    *GOOD,
                    _line(
                        '{"type":"message","id":"ac","parentId":"g5","message":{"role":"assistant",'
                        f'"content":{value},"stopReason":"stop"}}}}'
                    ),
                ),
                [*GOOD_IDS, "ac"],
            )
            for kind, value in (("true", "true"), ("a-number", "7"), ("1e999", "1e999"))
        ),
        Case(
            "id-shaped-like-a-hash",
            file_of(
                HEADER,
                *GOOD,
                rec("x" + hashlib.sha1(b"odd id").hexdigest()[:12], "g5"),
                rec("odd id", "g5"),
                rec("x" + hashlib.sha1(b"odd id").hexdigest()[:12] + "~2", "g5"),
            ),
            [
                *GOOD_IDS,
                "x" + hashlib.sha1(b"odd id").hexdigest()[:12],
                "odd id",
                "x" + hashlib.sha1(b"odd id").hexdigest()[:12] + "~2",
            ],
        ),
        Case(
            "glued-message-and-compaction",
            file_of(HEADER, *GOOD, glued_assistant + compaction + rec("gu", "gc")),
            [*GOOD_IDS, "ga", "gc", "gu"],
        ),
        Case(
            "glued-with-stubs-and-nan",
            file_of(
                HEADER,
                *GOOD,
                b'{"type":"message","id":"st'
                + glued_assistant.replace(b'"stop"}', b'"stop","n":NaN}')
                + b"  "
                + compaction
                + b'{"type":"label","id":"x","prNu'
                + rec("gu", "gc"),
            ),
            [*GOOD_IDS, "ga", "gc", "gu"],
        ),
        Case(
            "v1-glued",
            file_of(
                _line('{"type":"session","id":"v1","cwd":"/c"}'),
                _line('{"type":"message","message":{"role":"user","content":"a"}}')
                + _line('{"type":"message","message":{"role":"assistant","content":[]}}'),
                _line('{"type":"compaction","summary":"s","firstKeptEntryIndex":2}'),
            ),
            ["00000002", "00000002-2", "00000003"],
        ),
    ]
    for depth in (300, 900, 1010):
        d = _nest(depth, '"deep"')
        out.append(
            Case(
                f"nesting-{depth}-in-every-field",
                file_of(
                    HEADER,
                    *GOOD,
                    call(f"nb{depth}", "bash", f'{{"command":{d},"timeout":{d}}}'),
                    result(f"nb{depth}", f"nb{depth}", "bash", f',"details":{d}'),
                    call(f"nr{depth}", "read", f'{{"path":{d},"offset":{d},"limit":{d}}}'),
                    result(f"nr{depth}", f"nr{depth}", "read"),
                    call(f"ne{depth}", "edit", f'{{"path":"a","edits":{d},"oldText":{d}}}'),
                    call(f"nw{depth}", "write", f'{{"path":"a","content":{d}}}'),
                    call(f"ng{depth}", "grep", f'{{"pattern":{d},"path":{d}}}'),
                    entry(
                        f"nu{depth}", f'"type":"message","message":{{"role":"user","content":{d}}}'
                    ),
                    entry(
                        f"nt{depth}",
                        '"type":"message","message":{"role":"assistant","content":'
                        '[{"type":"text","text":{0}},{"type":"thinking","thinking":{0}}],'
                        '"usage":{0},"stopReason":{0},"errorMessage":{0},"model":{0}}'.replace(
                            "{0}", d
                        ),
                    ),
                    entry(
                        f"nc{depth}",
                        f'"type":"compaction","summary":{d},"firstKeptEntryId":{d},"details":{d}',
                    ),
                    entry(f"ns{depth}", f'"type":"branch_summary","summary":{d},"fromId":{d}'),
                    entry(f"nm{depth}", f'"type":"model_change","provider":{d},"modelId":{d}'),
                    entry(f"nk{depth}", f'"type":"thinking_level_change","thinkingLevel":{d}'),
                    entry(f"ni{depth}", f'"type":"session_info","name":{d}'),
                    entry(f"nl{depth}", f'"type":"label","targetId":{d},"label":{d}'),
                    entry(
                        f"nx{depth}",
                        f'"type":"custom_message","customType":{d},"content":{d},"display":true',
                    ),
                    entry(
                        f"ny{depth}",
                        '"type":"message","message":{"role":"bashExecution","command":{0},"output":{0},'
                        '"exitCode":{0},"fullOutputPath":{0},"truncated":true}'.replace("{0}", d),
                    ),
                    entry(f"nz{depth}", f'"type":"message","message":{{"role":{d},"content":{d}}}'),
                ),
                [
                    *GOOD_IDS,
                    *(f"n{k}{depth}" for k in "bwgutcsmkilxyz"),
                    f"nr{depth}",
                    f"ne{depth}",
                    f"nb{depth}r",
                    f"nr{depth}r",
                ],
            )
        )
    for i, n in enumerate(numbers):
        usage = (
            '{"input":%s,"output":%s,"cacheRead":%s,"cacheWrite":%s,"totalTokens":%s,'
            '"reasoning":%s,"cacheWrite1h":%s,"cost":{"input":%s,"total":%s}}' % ((n,) * 9)
        )
        out.append(
            Case(
                f"number-{n if len(n) <= 32 else n[:8] + f'…{len(n)}-chars'}-everywhere",
                file_of(
                    HEADER,
                    *GOOD,
                    entry(
                        f"c{i}",
                        f'"type":"compaction","summary":"s","firstKeptEntryId":"g3","tokensBefore":{n},"timestamp":{n}',
                    ),
                    call(f"b{i}", "bash", f'{{"command":"ls","timeout":{n}}}', usage),
                    result(
                        f"b{i}", f"b{i}", "bash", f',"details":{{"exitCode":{n}}},"timestamp":{n}'
                    ),
                    entry(
                        f"x{i}",
                        f'"type":"message","message":{{"role":"bashExecution","command":"ls","output":"o","exitCode":{n},"timestamp":{n}}}',
                    ),
                    entry(f"m{i}", f'"type":"model_change","provider":{n},"modelId":{n}'),
                    entry(f"k{i}", f'"type":"thinking_level_change","thinkingLevel":{n}'),
                    entry(f"s{i}", f'"type":"session_info","name":{n}'),
                    entry(f"l{i}", f'"type":"label","targetId":"g2","label":{n}'),
                    entry(
                        f"u{i}",
                        f'"type":"custom_message","customType":{n},"content":{n},"display":{n},"details":{n}',
                    ),
                    entry(
                        f"d{i}",
                        f'"type":"custom","customType":"c","data":{{"n":{n},"deep":{_nest(400, n)}}}',
                    ),
                    entry(f"z{i}", f'"type":{n},"weird":{n}'),
                ),
                [
                    *GOOD_IDS,
                    f"c{i}",
                    f"b{i}",
                    f"b{i}r",
                    f"x{i}",
                    f"m{i}",
                    f"k{i}",
                    f"s{i}",
                    f"l{i}",
                    f"u{i}",
                    f"d{i}",
                    f"z{i}",
                ],
            )
        )
    return out


def figure_cases() -> list[Case]:
    """Figures a session states that cannot be true (issue 27): times no calendar or chart
    holds, token counts past 64 bits when added up, negative counts and costs, in every
    place pi 1.5.2 writes a usage. Each must cost its session at most, never the site."""
    big = 2**63 - 1

    def usage(n: object, cost: object = 0.5) -> dict[str, object]:
        return {
            "input": n,
            "output": 1,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": n,
            "cost": {"input": cost, "output": 0, "total": cost},
        }

    def assistant(
        eid: str, parent: str, u: object, when: str = "2025-01-01T00:00:02.000Z"
    ) -> bytes:
        return orjson.dumps(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": when,
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "ok"}],
                    "provider": "p",
                    "model": "m",
                    "usage": u,
                    "stopReason": "stop",
                    "timestamp": 1735689602000,
                },
            }
        )

    def entry(eid: str, parent: str, **fields: object) -> bytes:
        return orjson.dumps(
            {"id": eid, "parentId": parent, "timestamp": "2025-01-01T00:00:03.000Z", **fields}
        )

    tool_result = orjson.dumps(
        {
            "type": "message",
            "id": "tr",
            "parentId": "g5",
            "timestamp": "2025-01-01T00:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "x",
                "toolName": "subagent",
                "content": [{"type": "text", "text": "done"}],
                "usage": usage(-7, -1.5),
                "isError": False,
            },
        }
    )
    far_header = HEADER.replace(b"2025-01-01T00:00:00.000Z", b"9999-12-31T23:59:59.999-14:00")
    return [
        Case(
            "year-9999-and-year-1",
            file_of(
                far_header,
                *GOOD,
                assistant("y9", "g5", usage(5), "9999-12-31T23:59:59.000Z"),
                assistant("y10", "y9", usage(5), "9999-12-31T23:59:59.999-14:00"),
                assistant("y1", "y10", usage(5), "0001-01-01T00:00:00.000+14:00"),
                assistant("y0", "y1", usage(5), "1970-01-01T00:00:00.000Z"),
            ),
            [*GOOD_IDS, "y9", "y10", "y1", "y0"],
        ),
        Case(
            "tokens-past-64-bits-when-added",
            file_of(
                HEADER,
                *GOOD,
                assistant("i1", "g5", usage(big)),
                assistant("i2", "i1", usage(big)),
                assistant("i3", "i2", usage(big)),
                assistant("i4", "i3", usage(2**53)),  # the largest a call may report
            ),
            [*GOOD_IDS, "i1", "i2", "i3", "i4"],
        ),
        Case(
            "negative-and-impossible-figures-in-every-usage",
            file_of(
                HEADER,
                *GOOD,
                assistant("n1", "g5", usage(-500, -4.5)),
                assistant("n2", "n1", usage(5, 1e300)),
                tool_result,
                entry(
                    "ue",
                    "g5",
                    type="usage",
                    kind="cache_warm",
                    provider="p",
                    model="m",
                    usage=usage(-1),
                ),
                entry(
                    "ce",
                    "g5",
                    type="compaction",
                    summary="s",
                    firstKeptEntryId="g3",
                    tokensBefore=-9,
                    usage=usage(big),
                ),
                entry(
                    "be",
                    "g5",
                    type="branch_summary",
                    summary="s",
                    fromId="g2",
                    usage=usage(3, -0.01),
                ),
            ),
            [*GOOD_IDS, "n1", "n2", "tr", "ue", "ce", "be"],
        ),
    ]


BIDI_MARKDOWN = [
    "plain paragraph with \u202eevil\u2066 bidi\u2069 and \u200bzero width",
    "inline `code \u202e span` and **bold \u2067** _em\u2068_",
    '[link \u202e](https://example.com "ti\u202etle") and ![alt \u2066](https://e.example/p.png)',
    "| a\u202e | b |\n|---|---|\n| c\u2066 | `d\u2067` |",
    "# heading \u202e\n\n> quote \u2066\n\n- item \u2067",
    "```py\u202e\nx = 1  # \u202e\n```",
    "```\nraw \u202e fence\n```",
    "&#x202e;entity &#8238; bidi",
    '[not a link](javascript:alert(1) "ti\u202etle") [ftp](ftp://x "t\u2066")',
    ">" * 150 + " deep \u202e TAIL",
    "a\x1b[2J\x07 and \r carriage \x00 nul",
    "<https://example.com/\u202e> autolink",
]
"""Bidi controls in every kind of markdown text: paragraphs, code spans, link titles, image
alt text, tables, headings, quotes, fence info and bodies, entities, the plain-text fallback."""

INVISIBLE = [
    "AKIA\u034fIOSFODNN7EXAMPLE ghp_\ufe0fabc \u3164\u115f\u1160\uffa0 fillers",
    "braille\u2800blank, mongolian\u180eseparator, soft\u00adhyphen, vs\U000e0100x",
    "`AKIA\u034fIOSF ghp_\ufe0f\u3164` in code and **A\u3164B** in bold",
    "emoji keep their selectors: \u2764\ufe0f \u26a0\ufe0f 1\ufe0f\u20e3 \u6f22\U000e0100",
    "a selector after a selector: \u2764\ufe0f\ufe0f, at the start: \ufe0f",
]
"""Characters that draw as nothing or as a blank (issue 14); emoji selectors stay."""
