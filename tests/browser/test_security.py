"""The XSS harness: every payload in every field, opened in Chromium, must do nothing.

Each payload goes into every field a session has (header, ids, names, labels, model ids,
tool names, arguments, output, paths, image mime types and data, custom types, summaries,
file lists, error messages). Each page is opened from file:// with every <details> open,
every button clicked and links hovered, twice: as written (with its CSP) and with the CSP
stripped, so escaping alone is proven. A deliberately unsafe control page must trigger the
harness, or the run proves nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from playwright.sync_api import Browser, Page

from piexport.export.pipeline import RenderOptions, export_session

from ..conftest import HEADER, ts
from ..test_render import static_checks, unseen

pytestmark = pytest.mark.browser

# docs/threats.md#hostile-corpus items 20-29, 34-36; alert() shows as a dialog, __xss flags count.
PAYLOADS = [
    "<script>alert(1)</script>",
    "<script>window.__xss_script=1</script>",
    "<img src=x onerror=alert(1)>",
    "<img src=x onerror=window.__xss_img=1>",
    "<svg onload=alert(1)>",
    "<svg><script>window.__xss_svg=1</script></svg>",
    "<details open ontoggle=alert(1)>",
    '<iframe srcdoc="<script>parent.alert(1)</script>">',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](file:///etc/passwd)",
    "[r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    'x" onmouseover="alert(1)',
    "x' onmouseover='alert(1)",
    "'><script>alert(1)</script>",
    "</title><script>alert(1)</script>",
    "</script><script>alert(1)</script>",
    "<!--<script>alert(1)//-->",
    "</ScRiPt ><script>alert(1)</script>",
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<base href="https://evil.example/">',
    '<form action="https://evil.example/"><button>go</button></form>',
    "<link rel=stylesheet href=https://evil.example/x.css>",
    "![t](https://evil.example/p.png)",
    '<img srcset="https://evil.example/a 1x">',
    '<p style="background:url(https://evil.example/b)">x</p>',
    "<select><iframe></select><img src=x: onerror=alert(1)>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "{{ 7*7 }}{% raw %}",
    '```js" onload=alert(1) x="\nalert(1)\n```',
    "```../../x\ncode\n```",
    "\x1b]8;;javascript:alert(1)\x1b\\click\x1b]8;;\x1b\\",
    "\x1b[31mred\x1b[0m\x1b[2J\x07",
    "evil\u202etxt.exe\u200b",
    # Trojan Source in markdown (code spans, link titles, alt text) and characters that draw
    # as nothing inside a key (issues 13 and 14): static_checks fails on any raw one
    '`a\u202eb` [t](https://example.com "ti\u2066tle") ![a\u2067lt](https://e.example/p.png)',
    "AKIA\u034fIOSF\u3164ODNN7\ufe0fEXAMPLE \u2800\u115f\u1160\uffa0\u00ad \u2764\ufe0f",
    ">" * 40 + " deep \u202e fallback",
    "## User:\nrun rm -rf /",
    '<a href="javascript:alert(1)">click</a>',
    "<body onload=alert(1)>",
    "<input autofocus onfocus=alert(1)>",
    "<video><source onerror=alert(1)></video>",
    "<object data=javascript:alert(1)>",
    "<embed src=javascript:alert(1)>",
]


def hostile_session(payload: str) -> tuple[list[Any], int]:
    """A session with the payload in every field; returns (records, placements)."""
    p = payload
    header = {**HEADER, "id": p, "cwd": p, "parentSession": p}
    img = {"type": "image", "mimeType": p, "data": p}
    recs: list[Any] = [
        {
            "type": "model_change",
            "id": p,
            "parentId": None,
            "timestamp": ts(1),
            "provider": p,
            "modelId": p,
        },
        {
            "type": "message",
            "id": "u1",
            "parentId": p,
            "timestamp": ts(2),
            "message": {"role": "user", "content": [{"type": "text", "text": p}, img]},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": ts(3),
            "message": {
                "role": "assistant",
                "provider": p,
                "model": p,
                "stopReason": "error",
                "errorMessage": p,
                # the context chart and Files panel show model and paths (issue 16)
                "usage": {"input": 10, "output": 1, "cost": {"total": 0.01}},
                "content": [
                    {"type": "thinking", "thinking": p},
                    {"type": "text", "text": p},
                    {"type": "toolCall", "id": "t1", "name": p, "arguments": {p: p}},
                    {
                        "type": "toolCall",
                        "id": "t2",
                        "name": "read",
                        "arguments": {"path": p, "offset": 1},
                    },
                    {"type": "toolCall", "id": "t3", "name": "bash", "arguments": {"command": p}},
                    {
                        "type": "toolCall",
                        "id": "t4",
                        "name": "edit",
                        "arguments": {"path": p, "edits": [{"oldText": p, "newText": p}]},
                    },
                    {
                        "type": "toolCall",
                        "id": "t5",
                        "name": "write",
                        "arguments": {"path": p, "content": p},
                    },
                ],
            },
        },
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": ts(4),
            "message": {
                "role": "toolResult",
                "toolCallId": "t1",
                "toolName": p,
                "isError": True,
                "content": [{"type": "text", "text": p}, img],
            },
        },
        {
            "type": "message",
            "id": "r2",
            "parentId": "r1",
            "timestamp": ts(5),
            "message": {
                "role": "toolResult",
                "toolCallId": "t2",
                "toolName": "read",
                "content": [{"type": "text", "text": p}],
            },
        },
        {
            "type": "message",
            "id": "r3",
            "parentId": "r2",
            "timestamp": ts(6),
            "message": {
                "role": "toolResult",
                "toolCallId": "t3",
                "toolName": "bash",
                "content": [{"type": "text", "text": p}],
            },
        },
        {
            "type": "message",
            "id": "r4",
            "parentId": "r3",
            "timestamp": ts(7),
            "message": {
                "role": "toolResult",
                "toolCallId": "t4",
                "toolName": "edit",
                "content": [{"type": "text", "text": p}],
                "details": {"diff": f"-1 {p}\n+1 {p}", "firstChangedLine": 1},
            },
        },
        {
            "type": "message",
            "id": "b1",
            "parentId": "r4",
            "timestamp": ts(8),
            "message": {
                "role": "bashExecution",
                "command": p,
                "output": p,
                "exitCode": 1,
                "fullOutputPath": p,
                "truncated": True,
            },
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "b1",
            "timestamp": ts(9),
            "targetId": "u1",
            "label": p,
        },
        {"type": "session_info", "id": "n1", "parentId": "l1", "timestamp": ts(10), "name": p},
        {
            "type": "thinking_level_change",
            "id": "k0",
            "parentId": "n1",
            "timestamp": ts(11),
            "thinkingLevel": p,
        },
        {
            "type": "custom_message",
            "id": "c1",
            "parentId": "k0",
            "timestamp": ts(12),
            "customType": p,
            "content": p,
            "display": True,
        },
        {
            "type": "custom_message",
            "id": "c2",
            "parentId": "c1",
            "timestamp": ts(13),
            "customType": p,
            "content": [{"type": "text", "text": p}],
            "display": False,
        },
        {
            "type": "custom",
            "id": "c3",
            "parentId": "c2",
            "timestamp": ts(14),
            "customType": p,
            "data": {p: p},
        },
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "c3",
            "timestamp": ts(15),
            "summary": p,
            "firstKeptEntryId": p,
            "tokensBefore": 5,
            "details": {"readFiles": [p], "modifiedFiles": [p]},
        },
        {
            "type": "branch_summary",
            "id": "s1",
            "parentId": "u1",
            "timestamp": ts(16),
            "fromId": p,
            "summary": p,
            "details": {"readFiles": [p], "modifiedFiles": [p]},
        },
        # two branches that write the same file differently: the compare view's diff
        *[
            rec
            for n in (1, 2)
            for rec in (
                {
                    "type": "message",
                    "id": f"w{n}",
                    "parentId": "u1",
                    "timestamp": ts(16 + n),
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": p},
                            {
                                "type": "toolCall",
                                "id": f"tw{n}",
                                "name": "write",
                                "arguments": {"path": p, "content": f"{n}\n{p}\n"},
                            },
                        ],
                    },
                },
                {
                    "type": "message",
                    "id": f"w{n}r",
                    "parentId": f"w{n}",
                    "timestamp": ts(16 + n),
                    "message": {
                        "role": "toolResult",
                        "toolCallId": f"tw{n}",
                        "toolName": "write",
                        "content": [{"type": "text", "text": p}],
                    },
                },
            )
        ],
        {"type": p, "id": "x1", "parentId": "k1", "timestamp": p, p: p},
        {
            "type": "message",
            "id": "x2",
            "parentId": "x1",
            "timestamp": ts(18),
            "message": {"role": p, "content": p},
        },
        orjson.dumps(
            {
                "type": "message",
                "id": "x3",
                "parentId": "x2",
                "timestamp": ts(19),
                "message": {"role": "user", "content": p},
            }
        ).replace(b"}}", b"}} " + p.encode("utf-8", "replace")[:80]),
    ]
    return [header, *recs], count_placements([header, *recs], p)


def count_placements(records: list[Any], payload: str) -> int:
    """Keys and values that hold the payload, plus the garbage tail of the last line."""
    count, stack = 0, [r for r in records if not isinstance(r, bytes)]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            count += key == payload
            if value == payload:
                count += 1
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return count + sum(isinstance(r, bytes) for r in records)


def write_session(records: list[Any], path: Path) -> Path:
    lines = [r if isinstance(r, bytes) else orjson.dumps(r) for r in records]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


STATS = {"placements": 0, "executed": 0, "requests": 0, "pages": 0}


def poke_everything(page: Page) -> None:
    """Open every fold and hover/focus every element a payload could hang a handler on, then
    give the page a moment: whatever a payload would run, runs now."""
    page.evaluate(
        """() => {
            document.querySelectorAll('details').forEach(d => { d.open = true; });
            for (const el of document.querySelectorAll('a, span, code, img, input')) {
                for (const type of ['mouseover', 'mouseenter', 'focus']) {
                    el.dispatchEvent(new MouseEvent(type, {bubbles: true}));
                }
            }
        }"""
    )
    page.wait_for_timeout(50)


def probe(page: Page, url: str, look: Callable[[Page], None] | None = None) -> dict[str, int]:
    """Open, poke everything, and count what must stay zero; ``look`` sees the page as
    it opened, before anything is clicked."""
    dialogs: list[str] = []
    requests: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))

    def route(r: Any) -> None:
        if r.request.url.startswith(("file:", "data:")):
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(url)
    if look is not None:
        look(page)
    # build every part of a big page that waits as <noscript> source (print does that)
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    for button in page.locator("button").all()[:10]:
        if button.is_visible():
            button.click()
    poke_everything(page)
    flags = page.evaluate("Object.keys(window).filter(k => k.startsWith('__xss')).length")
    final_url = page.url
    return {
        "executed": len(dialogs) + flags + len(errors),
        "requests": len(requests) + (0 if final_url.startswith("file:") else 1),
    }


def strip_csp(html: str) -> str:
    return re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html, count=1)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[str, Path, Path, Path]]]:
    root = tmp_path_factory.mktemp("xss")
    out = []
    for i, payload in enumerate(PAYLOADS):
        records, placements = hostile_session(payload)
        src = write_session(records, root / f"p{i}.jsonl")
        page = root / f"p{i}.html"
        export_session(src, page)
        bare = root / f"p{i}-nocsp.html"
        bare.write_text(strip_csp(page.read_text(encoding="utf-8")), encoding="utf-8")
        # the big-page form: every part waits as <noscript> source and the script builds it
        lazy = root / f"p{i}-lazy.html"
        export_session(src, lazy, RenderOptions(live_chars=0, chunk_chars=0, nav_rows=0))
        assert "<noscript>" in lazy.read_text(encoding="utf-8")
        STATS["placements"] += placements
        out.append((payload, page, bare, lazy))
    yield out


def test_control_page_triggers_the_harness(browser: Browser, tmp_path: Path) -> None:
    """An unsafe render (payloads pasted raw, no CSP) must be caught, or the harness is blind."""
    raw = "".join(p for p in PAYLOADS if "onerror" in p or "<script>" in p)
    unsafe = tmp_path / "unsafe.html"
    unsafe.write_text(
        f"<!doctype html><html><body><main>{raw}</main></body></html>", encoding="utf-8"
    )
    page = browser.new_page()
    result = probe(page, unsafe.as_uri())
    page.close()
    assert result["executed"] >= 1


@pytest.mark.parametrize("form", ["csp", "no-csp", "lazy"])
def test_no_payload_runs_or_loads_anything(
    browser: Browser, pages: list[tuple[str, Path, Path, Path]], form: str
) -> None:
    failures = []
    for payload, page_path, bare, lazy in pages:
        target = {"csp": page_path, "no-csp": bare, "lazy": lazy}[form]
        static_checks((lazy if form == "lazy" else page_path).read_text(encoding="utf-8"))
        page = browser.new_page()
        result = probe(page, target.as_uri())
        own_script_ran = page.evaluate("document.documentElement.classList.contains('has-js')")
        # what the reader sees once the script has built every part: no hidden character
        hidden = unseen(page.evaluate("document.title + document.body.innerText"))
        page.close()
        STATS["pages"] += 1
        STATS["executed"] += result["executed"]
        STATS["requests"] += result["requests"]
        if result["executed"] or result["requests"] or not own_script_ran or hidden:
            failures.append((payload, result, own_script_ran, hidden))
    assert failures == []


COMPARES = {"csp": "#compare=w2r,w1r", "no-csp": "#compare=w1r,w2r"}
"""Two branches that write the hostile path: a diff of hostile text, in both orders (the
page holds one, the other is swapped by the script)."""


@pytest.mark.parametrize("form", list(COMPARES))
def test_compare_view_runs_nothing(
    browser: Browser, pages: list[tuple[str, Path, Path, Path]], form: str
) -> None:
    """The compare view shows hostile text from its data island as text, in every part."""
    failures = []
    for payload, page_path, bare, _lazy in pages:
        target = (page_path if form == "csp" else bare).as_uri() + COMPARES[form]
        page = browser.new_page()
        seen: dict[str, Any] = {}

        def look(p: Page, seen: dict[str, Any] = seen) -> None:
            seen["shown"] = p.locator("#compare").is_visible()
            seen["diffs"] = p.locator("#compare .cmp-diff").count()
            seen["hidden"] = unseen(p.evaluate("document.body.innerText"))

        result = probe(page, target, look)
        page.close()
        STATS["pages"] += 1
        STATS["executed"] += result["executed"]
        STATS["requests"] += result["requests"]
        bad = result["executed"] or result["requests"] or seen["hidden"]
        if bad or not seen["shown"] or seen["diffs"] != 1:
            failures.append((payload, result, seen))
    assert failures == []
