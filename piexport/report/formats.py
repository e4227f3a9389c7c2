"""The other ways out of ``piexport render``: readable Markdown, and the normalised model as JSON.

Markdown follows the current path first, then every other branch from where it forks, so
every entry of the file is in it once. Message text is Markdown already and goes in as
written; everything a tool or a command produced goes inside code fences longer than any
backtick run in it, folded in ``<details>`` (GitHub, GitLab and most viewers render those).
An entry of a type this version does not know is shown whole, as JSON in a fence.
"""

from __future__ import annotations

from typing import Any

from ..read.context import build_session_context
from ..read.jsonutil import dumps, dumps_shown, output_json
from ..read.model import JSON, Entry, Session, content_text
from ..read.pairing import pair_tool_results
from ..read.system import current_system, describe_update, leading_system_ids
from ..text.cut import PLAIN
from ..text.mdsafe import code_fence, code_span, html_text, inline_text, message_markdown
from .branches import leaf_order
from .outline import tool_call_summary


def _details(summary: str, body: str) -> list[str]:
    return ["<details>", f"<summary>{html_text(summary)}</summary>", "", body, "", "</details>", ""]


Pairs = dict[tuple[str, str], Entry]


def _entry_markdown(e: Entry, results: Pairs, shown: set[str], leading: set[str]) -> list[str]:
    msg = e.message
    if e.type == "message" and msg is not None:
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            return ["### User", "", message_markdown(content_text(content)) or "(no text)", ""]
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
                    out += _tool_markdown(block, found)
            stop = msg.get("stopReason")
            if stop == "deferred":
                handle = _obj(msg.get("deferred"))
                out += [
                    "**Deferred**: the provider answers this request later"
                    + (f" (handle {code_span(str(handle['id']))})" if handle.get("id") else "")
                    + ".",
                    "",
                ]
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
            return _details(f"Result of {msg.get('toolName')}", code_fence(content_text(content)))
        if role == "bashExecution":
            body = f"$ {msg.get('command', '')}\n{msg.get('output', '')}"
            return _details(f"User ran: {msg.get('command', '')}", code_fence(body, "console"))
        if role == "system":
            return _system_markdown(msg, e.id in leading)
        return _details(f"{role} message", code_fence(dumps_shown(e.raw), "json"))
    if e.type == "compaction":
        return [
            "---",
            "",
            f"**Compaction** (context was {inline_text(str(e.raw.get('tokensBefore')))} tokens):",
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
            f"Extension message: {e.raw.get('customType')}",
            code_fence(content_text(e.raw.get("content"))),
        )
    if e.type == "model_change":
        model = f"{e.raw.get('provider')}/{e.raw.get('modelId')}"
        return [f"_Model: {inline_text(model)}_", ""]
    if e.type == "thinking_level_change":
        return [f"_Thinking level: {inline_text(str(e.raw.get('thinkingLevel')))}_", ""]
    if e.type == "context_edit":
        target = e.raw.get("targetId")
        rep = e.raw.get("replacement")
        if rep is None:
            return [
                f"_Context edit: entry {inline_text(str(target))} removed from the model's "
                "context_",
                "",
            ]
        text = content_text(rep.get("content")) if isinstance(rep, dict) else ""
        return _details(
            f"Context edit: what the model saw instead of entry {target}", code_fence(text)
        )
    if e.type == "usage":
        u = _obj(e.raw.get("usage"))
        cost = _obj(u.get("cost"))
        model = f"{e.raw.get('provider')}/{e.raw.get('model')}"
        figures = ", ".join(
            f"{k} {u[k]}" for k in ("input", "output", "cacheRead", "cacheWrite") if u.get(k)
        )
        line = f"Usage ({e.raw.get('kind')}): {model}; {figures or 'no tokens'}"
        if isinstance(cost.get("total"), int | float) and cost["total"]:
            line += f"; ${cost['total']:.4f}"
        return [f"_{inline_text(line)}_", ""]
    if e.type == "label":
        label, target = e.raw.get("label"), str(e.raw.get("targetId"))
        if label:
            return [f"_Label {code_span(str(label))} set on entry {code_span(target)}_", ""]
        return [f"_Label cleared on entry {code_span(target)}_", ""]
    if e.type == "session_info":
        name = e.raw.get("name")
        return [f"_Session named {code_span(str(name))}_" if name else "_Session name cleared_", ""]
    if e.type == "custom":
        return _details(
            f"Extension state: {e.raw.get('customType')} (never sent to the model)",
            code_fence(dumps_shown(e.raw.get("data")), "json"),
        )
    return _details(
        f"Entry of a type this version does not know: {e.type or '(no type)'}",
        code_fence(dumps_shown(e.raw), "json"),
    )


def _obj(value: Any) -> JSON:
    """An object from the file, or an empty one for anything else."""
    return value if isinstance(value, dict) else {}


def _system_markdown(msg: JSON, leading: bool) -> list[str]:
    """A system message: the prompt that starts a branch, or what an update changes."""
    state = current_system([msg])
    parts = ["\n\n".join(state.content)] if state.content else []
    parts += [f"[section {name}]\n{body}" for name, body in state.sections.items()]
    removed = (
        [str(n) for n, v in (msg.get("sections") or {}).items() if v is None]
        if isinstance(msg.get("sections"), dict)
        else []
    )
    parts += [f"[section {name} removed]" for name in removed]
    if state.tools:
        parts.append("[tools] " + ", ".join(state.tools))
    if leading:
        summary = "System prompt"
    else:
        summary = "System prompt update: " + (", ".join(describe_update(msg)) or "no change")
    return _details(summary, code_fence("\n\n".join(parts)))


def _tool_markdown(block: JSON, result: Entry | None) -> list[str]:
    name, args = block.get("name"), block.get("arguments")
    if name == "bash" and isinstance(args, dict):
        call = str(args.get("command", ""))
    else:
        call = dumps_shown(args)
    body = code_fence(call, "bash" if name == "bash" and isinstance(args, dict) else "json")
    if block.get("partialJson"):
        partial = str(block["partialJson"])
        body += "\n\nArguments as far as they were streamed:\n\n" + code_fence(partial, "json")
    if result is not None and result.message is not None:
        error = " (error)" if result.message.get("isError") is True else ""
        body += f"\n\nResult{error}:\n\n" + code_fence(content_text(result.message.get("content")))
        nested = _nested_text(result.message.get("nestedCalls"))
        if nested:
            body += "\n\nNested calls:\n\n" + code_fence(nested)
    else:
        body += "\n\n_No result recorded._"
    return _details(tool_call_summary(name, args, PLAIN), body)


_STATUS = {"ok": "ok", "error": "error", "unfinished": "unfinished"}


def _nested_text(nested: Any) -> str:
    """Calls a tool made to other tools, one a line: status, name, time, arguments, error."""
    calls = nested.get("calls") if isinstance(nested, dict) else None
    if not isinstance(calls, list):
        return ""
    lines = []
    for c in calls:
        if not isinstance(c, dict):
            continue
        args = c.get("arguments")
        shown = (
            dumps(args, indent=False)  # one line, as pi's export shows it
            if isinstance(args, dict)
            else f"[arguments omitted, {c.get('argumentsBytes')} bytes]"
        )
        took = f" {c['durationMs']} ms" if isinstance(c.get("durationMs"), int | float) else ""
        lines.append(f"{_STATUS.get(str(c.get('status')), '?')} {c.get('name')} {shown}{took}")
        if c.get("error"):
            lines.append("    " + str(c["error"]).replace("\n", "\n    "))
    if nested.get("complete") is False:
        lines.append("(incomplete record)")
    return "\n".join(lines)


Section = tuple[str | None, str | None, list[Entry]]


def _branches(session: Session, leaf_id: str | None) -> list[Section]:
    """The current path, then each other leaf's entries not shown yet, in the tree's order:
    ``(leaf, fork, entries)``, where ``fork`` is the entry shown already that its first
    entry follows (None under another root). Each entry once: linear in the file."""
    tree = session.tree
    current = session.path_entries(leaf_id)
    out: list[Section] = [(None, None, current)]
    done = {e.id for e in current}
    for leaf in leaf_order(session):
        own: list[str] = []
        cur: str | None = leaf
        while cur is not None and cur not in done and cur in session.by_id:
            own.append(cur)
            done.add(cur)
            cur = tree.parent.get(cur)
        if own:
            out.append((leaf, cur, [session.by_id[i] for i in reversed(own)]))
    rest = [e for e in session.entries if e.id not in done]  # none, unless the tree lost one
    if rest:
        out.append((None, None, rest))
    return out


def _branch_heading(session: Session, leaf: str | None, fork: str | None) -> list[str]:
    if leaf is None:
        return ["## Entries on no branch", ""]
    label = session.labels.get(leaf)
    head = f"## Branch ending at {code_span(leaf)}" + (f" ({inline_text(label)})" if label else "")
    where = (
        f"It forks from entry {code_span(fork)}, shown above."
        if fork is not None
        else "It shares no entry with the branches above."
    )
    return ["---", "", head, "", where, ""]


def session_markdown(session: Session, leaf_id: str | None = None) -> str:
    """The conversation along the current path as Markdown, then every other branch."""
    results = pair_tool_results(session)
    sections = _branches(session, leaf_id)
    # a result is shown with its call (every call is shown, on one branch or another)
    shown = {r.id for r in results.values()}
    title = session.title or "pi session"
    lines = [
        f"# {inline_text(title)}",
        "",
        f"- Project: {code_span(str(session.cwd))}",
        f"- Session: {code_span(str(session.id))}",
        "",
    ]
    if len(sections) > 1:
        current = sections[0][2][-1].id if sections[0][2] else None
        lines += [
            f"The current branch{f' (ending at {code_span(current)})' if current else ''} "
            f"comes first, then {len(sections) - 1} other branch"
            f"{'es' if len(sections) > 2 else ''} from where each forks.",
            "",
        ]
    leading = leading_system_ids(session)
    for i, (leaf, fork, entries) in enumerate(sections):
        if i:
            lines += _branch_heading(session, leaf, fork)
        for e in entries:
            lines += _entry_markdown(e, results, shown, leading)
    # everything above joins, cuts or puts session text on one line: it is read again as it
    # shows, with the session's derive (outside code a line at a time, each code block whole)
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
    return output_json(data) + "\n"
