"""The other ways out of ``piexport render``: readable Markdown, and the normalised model as JSON.

Markdown follows the current path. Message text is Markdown already and goes in as written;
everything a tool or a command produced goes inside code fences longer than any backtick
run in it, folded in ``<details>`` (GitHub, GitLab and most viewers render those).
"""

from __future__ import annotations

from typing import Any

from .context import build_session_context
from .jsonutil import dumps
from .model import JSON, Entry, Session, content_text
from .outline import tool_call_summary
from .redact import shorten
from .summary import code_fence


def _details(summary: str, body: str) -> list[str]:
    safe = summary.replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")
    return ["<details>", f"<summary>{safe}</summary>", "", body, "", "</details>", ""]


def _entry_markdown(e: Entry, results: dict[str, Entry]) -> list[str]:
    msg = e.message
    if e.type == "message" and msg is not None:
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            return ["### User", "", content_text(content) or "(no text)", ""]
        if role == "assistant":
            out = ["### Assistant", ""]
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    out += [str(block.get("text", "")), ""]
                elif block.get("type") == "thinking" and block.get("thinking"):
                    out += _details("Thinking", code_fence(str(block["thinking"])))
                elif block.get("type") == "toolCall":
                    out += _tool_markdown(block, results)
            if msg.get("stopReason") in ("error", "aborted", "length"):
                out += [f"**Stopped: {msg.get('stopReason')}**", ""]
                if msg.get("errorMessage"):
                    out += [code_fence(str(msg["errorMessage"])), ""]
            return out
        if role == "toolResult":
            cid = msg.get("toolCallId")
            if isinstance(cid, str) and results.get(cid) is e:
                return []  # shown with its call
            return _details(f"Result of {msg.get('toolName')}", code_fence(content_text(content)))
        if role == "bashExecution":
            body = f"$ {msg.get('command', '')}\n{msg.get('output', '')}"
            return _details(f"User ran: {msg.get('command', '')}", code_fence(body, "console"))
        return _details(f"{role} message", code_fence(dumps(msg)))
    if e.type == "compaction":
        return [
            "---",
            "",
            f"**Compaction** (context was {e.raw.get('tokensBefore')} tokens):",
            "",
            str(e.raw.get("summary", "")),
            "",
            "---",
            "",
        ]
    if e.type == "branch_summary":
        return [f"**Branch summary:** {e.raw.get('summary', '')}", ""]
    if e.type == "custom_message":
        return _details(
            f"Extension message: {e.raw.get('customType')}",
            code_fence(content_text(e.raw.get("content"))),
        )
    if e.type == "model_change":
        return [f"_Model: {e.raw.get('provider')}/{e.raw.get('modelId')}_", ""]
    if e.type == "thinking_level_change":
        return [f"_Thinking level: {e.raw.get('thinkingLevel')}_", ""]
    return []


def _tool_markdown(block: JSON, results: dict[str, Entry]) -> list[str]:
    name, args = block.get("name"), block.get("arguments")
    cid = block.get("id")
    result = results.get(cid) if isinstance(cid, str) else None
    call = dumps(args) if name not in ("bash",) else str((args or {}).get("command", ""))
    body = code_fence(call, "bash" if name == "bash" else "json")
    if result is not None and result.message is not None:
        error = " (error)" if result.message.get("isError") is True else ""
        body += f"\n\nResult{error}:\n\n" + code_fence(content_text(result.message.get("content")))
    else:
        body += "\n\n_No result recorded._"
    return _details(tool_call_summary(name, args), body)


def session_markdown(session: Session, leaf_id: str | None = None) -> str:
    """The conversation along the current path as Markdown."""
    results: dict[str, Entry] = {}
    for e in session.entries:
        msg = e.message
        if (
            msg is not None
            and msg.get("role") == "toolResult"
            and isinstance(msg.get("toolCallId"), str)
        ):
            results.setdefault(msg["toolCallId"], e)
    title = session.name or (session.first_user_text() or "pi session").split("\n")[0]
    title = shorten(title, 80, "")
    lines = [f"# {title}", "", f"- Project: `{session.cwd}`", f"- Session: `{session.id}`", ""]
    for e in session.path_entries(leaf_id):
        lines += _entry_markdown(e, results)
    return "\n".join(lines).rstrip() + "\n"


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
