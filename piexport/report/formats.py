"""The other ways out of ``piexport render``: readable Markdown, and the normalised model as JSON.

Markdown follows the current path. Message text is Markdown already and goes in as written;
everything a tool or a command produced goes inside code fences longer than any backtick
run in it, folded in ``<details>`` (GitHub, GitLab and most viewers render those).
"""

from __future__ import annotations

from typing import Any

from ..page.outline import pair_tool_results, tool_call_summary
from ..read.context import build_session_context
from ..read.jsonutil import dumps
from ..read.model import JSON, Entry, Session, content_text
from ..share.cut import Derive
from .mdsafe import code_fence, code_span, html_text, inline_text, message_markdown


def _details(summary: str, body: str) -> list[str]:
    """``summary`` is one line made with the session's ``derive``."""
    return ["<details>", f"<summary>{html_text(summary)}</summary>", "", body, "", "</details>", ""]


Pairs = dict[tuple[str, str], Entry]


def _entry_markdown(e: Entry, results: Pairs, shown: set[str], derive: Derive) -> list[str]:
    """One entry's Markdown; every text it joins, cuts or puts on one line is made with
    ``derive`` (the session's: it redacts what it makes when the session was redacted)."""
    msg = e.message
    if e.type == "message" and msg is not None:
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            text = content_text(content, "", derive)
            return ["### User", "", message_markdown(text) or "(no text)", ""]
        if role == "assistant":
            out = ["### Assistant", ""]
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    out += [message_markdown(str(block.get("text", ""))), ""]
                elif block.get("type") == "thinking" and block.get("thinking"):
                    what = (
                        "Thinking (marked redacted by the provider)"
                        if block.get("redacted")
                        else "Thinking"
                    )
                    out += _details(what, code_fence(str(block["thinking"])))
                elif block.get("type") == "toolCall":
                    cid = block.get("id")
                    found = results.get((e.id, cid)) if isinstance(cid, str) else None
                    out += _tool_markdown(block, found, derive)
            stop = msg.get("stopReason")
            if stop == "length":
                out += ["**Stopped: length** (cut off by the output length limit)", ""]
            elif stop in ("error", "aborted"):
                out += [f"**Stopped: {stop}**", ""]
            if msg.get("errorMessage"):
                out += [code_fence(str(msg["errorMessage"])), ""]
            return out
        if role == "toolResult":
            if e.id in shown:
                return []  # shown with its call
            return _details(
                derive.line(f"Result of {msg.get('toolName')}"),
                code_fence(content_text(content, "", derive)),
            )
        if role == "bashExecution":
            body = derive.join([f"$ {msg.get('command', '')}", str(msg.get("output", ""))], "\n")
            what = derive.line(f"User ran: {msg.get('command', '')}")
            return _details(what, code_fence(body, "console"))
        return _details(derive.line(f"{role} message"), code_fence(dumps(msg)))
    if e.type == "compaction":
        tokens = inline_text(derive.line(str(e.raw.get("tokensBefore"))))
        return [
            "---",
            "",
            f"**Compaction** (context was {tokens} tokens):",
            "",
            message_markdown(str(e.raw.get("summary", ""))),
            "",
            "---",
            "",
        ]
    if e.type == "branch_summary":
        return ["**Branch summary:**", "", message_markdown(str(e.raw.get("summary", ""))), ""]
    if e.type == "custom_message":
        return _details(
            derive.line(f"Extension message: {e.raw.get('customType')}"),
            code_fence(content_text(e.raw.get("content"), "", derive)),
        )
    if e.type == "model_change":
        model = derive.line(f"{e.raw.get('provider')}/{e.raw.get('modelId')}")
        return [f"_Model: {inline_text(model)}_", ""]
    if e.type == "thinking_level_change":
        level = derive.line(str(e.raw.get("thinkingLevel")))
        return [f"_Thinking level: {inline_text(level)}_", ""]
    return []


def _tool_markdown(block: JSON, result: Entry | None, derive: Derive) -> list[str]:
    name, args = block.get("name"), block.get("arguments")
    if name == "bash" and isinstance(args, dict):
        call = str(args.get("command", ""))
    else:
        call = dumps(args)
    body = code_fence(call, "bash" if name == "bash" and isinstance(args, dict) else "json")
    if block.get("partialJson"):
        partial = str(block["partialJson"])
        body += "\n\nArguments as far as they were streamed:\n\n" + code_fence(partial, "json")
    if result is not None and result.message is not None:
        error = " (error)" if result.message.get("isError") is True else ""
        output = content_text(result.message.get("content"), "", derive)
        body += f"\n\nResult{error}:\n\n" + code_fence(output)
    else:
        body += "\n\n_No result recorded._"
    return _details(tool_call_summary(name, args, derive), body)


def session_markdown(session: Session, leaf_id: str | None = None) -> str:
    """The conversation along the current path as Markdown."""
    results = pair_tool_results(session)
    path = session.path_entries(leaf_id)
    on_path = {e.id for e in path}
    # a result is shown with its call when that call is on this path, else on its own
    shown = {r.id for (owner, _cid), r in results.items() if owner in on_path}
    title = session.title or "pi session"
    lines = [
        f"# {inline_text(title)}",
        "",
        f"- Project: {code_span(str(session.cwd))}",
        f"- Session: {code_span(str(session.id))}",
        "",
    ]
    for e in path:
        lines += _entry_markdown(e, results, shown, session.derive)
    # our one-line encoders (code spans, headings, <summary>) join lines: read again
    return session.derive.markdown("\n".join(lines).rstrip()) + "\n"


def session_json(session: Session, leaf_id: str | None = None) -> str:
    """The normalised model: migrated entries, the tree, labels, name, context, problems."""
    tree = session.tree
    data: dict[str, Any] = {
        "file": session.path,
        "header": session.header.raw if session.header else None,
        "name": session.name,
        "entries": [
            {"id": e.id, "line": e.line, **{k: v for k, v in e.raw.items() if k != "id"}}
            for e in session.entries
        ],
        "tree": {
            "roots": tree.roots,
            "leaf": tree.leaf_id,
            "path": tree.path,
            "leaves": tree.leaves,
            "branchPoints": tree.branch_points,
            "orphans": tree.orphans,
            "parent": tree.parent,
        },
        "labels": session.labels,
        "context": build_session_context(session, leaf_id),
        "diagnostics": [
            {"line": d.line, "level": d.level, "message": d.message} for d in session.diagnostics
        ],
    }
    return dumps(data) + "\n"
