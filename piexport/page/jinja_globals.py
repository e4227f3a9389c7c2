"""The functions and names the page's templates call (Jinja globals): an entry's head, tool
output lists, usage lines, and what the templates ask of the session's model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jinja2
from markupsafe import Markup

from ..kinds import kind_of, other_fields
from ..kinds.tools import tool_call_target
from ..read.jsonutil import finite_number
from ..read.model import JSON, Entry, Session, SkillBlock, content_text, skill_block
from ..read.system import current_system, describe_update
from ..read.tooloutput import diff_rows, grep_groups, split_exit, split_notice
from ..report.branches import duration, figures_line, span_differs
from ..report.prices import estimate_message
from ..report.stats import failure
from ..text.ansi import escape_text
from .blocks import PREVIEW_LINES
from .filters import (
    composed,
    cost_text,
    diagnostics_line,
    ms,
    page_derive,
    plain,
    tokens_text,
    when,
)
from .view import SessionView, header_fields


def cost_est(cost: Any, estimated: Any = None) -> Markup:
    """A reported cost and, beside it and marked, the estimate for messages that reported
    none (``report.prices``): ``$0.50 + ~$0.0054 est.``, ``~$0.0054 est.`` or ``—``."""
    shown = cost_text(cost)
    est = finite_number(estimated)
    if est is None or est <= 0:
        return Markup(escape_text(shown))
    mark = (
        '<span class="est" title="Estimated from a price table (genai-prices) for the '
        'messages whose provider reported no cost; not included in the reported cost">'
        f"{'+ ' if shown != '—' else ''}~{escape_text(cost_text(est))} est.</span>"
    )
    return Markup((escape_text(shown) + " " if shown != "—" else "") + mark)


def skill_of(text: Any) -> SkillBlock | None:
    """The skill a user message's text starts with (``read.model.skill_block``), or None."""
    return skill_block(text) if isinstance(text, str) else None


def active_cell(active: Any, span: Any) -> Markup:
    """An index row's time: active time (idle gaps left out, ``report.stats.active_ms``)
    and, under it when longer, the span from the first entry to the last; "—" for none."""
    a, s = finite_number(active), finite_number(span)
    if s is None:
        return Markup("—")
    if a is None or not span_differs(a, s):
        return Markup(escape_text(duration(a if a is not None else s)))
    return Markup(
        f'{escape_text(duration(a))}<span class="span-time">{escape_text(duration(s))} span</span>'
    )


@jinja2.pass_context
def macro_named(context: jinja2.runtime.Context, name: str) -> Any:
    """A macro of the template that asks, by name: an entry kind's (``Kind.macro``)."""
    return context.resolve(name)


def entry_open(e: Entry, v: SessionView, s: Session, kind: str, role_label: str) -> Markup:
    """An entry's opening tag and header line (role, label, compaction mark, time, link):
    every entry has one, so it is built here rather than in a macro."""
    eid = e.id
    dom = v.dom_of(eid)
    dim = " off-context" if eid in v.dimmed else ""
    failed = failure(e)
    fail = f' data-failure="{failed}"' if failed else ""
    head = [
        f'<article class="entry {escape_text(kind)}{dim}" id="{dom}" '
        f'data-entry-id="{escape_text(eid)}" data-parent="{v.parent_dom[eid]}"{fail}>\n'
        f'  <header class="entry-head">\n    <span class="role">{plain(role_label)}</span>\n'
    ]
    if eid in s.labels:
        head.append(f'    <span class="badge label" title="label">{plain(s.labels[eid])}</span>\n')
    c = v.out_of_context.get(eid)
    run = v.context_runs.get(eid) if c is not None else None
    if c is not None and run is not None:  # once per run (issue 38): the rest are framed dashed
        more = f" · {run} entries from here" if run > 1 else ""
        head.append(
            f'    <a class="badge muted" href="#{v.dom_of(c)}" title="Summarised by this '
            "compaction: the model did not see it afterwards (nor the entries after it "
            'framed with dashes)">not in context after compaction '
            f"{v.compaction_no[c]}{more}</a>\n"
        )
    head.append(
        f'    <span class="spacer"></span>\n    <time>{plain(when(e.timestamp))}</time>\n'
        f'    <a class="deeplink" href="#{dom}" title="Link to this entry" '
        'aria-label="Link to this entry">#</a>\n  </header>'
    )
    return Markup("".join(head))


def grep_list(
    groups: Sequence[tuple[str, Sequence[tuple[str, str, str]]]], preview: bool
) -> Markup:
    """grep results grouped by file; a preview stops after PREVIEW_LINES lines."""
    left = PREVIEW_LINES if preview else -1
    out = ['<div class="grep">\n']
    for path, rows in groups:
        if left == 0:
            break
        out.append(
            f'  <div class="grep-file"><code>{plain(path)}</code></div>\n'
            '  <table class="grep-lines">'
        )
        for kind, n, text in rows:
            if left == 0:
                break
            left -= 1
            out.append(
                f'<tr class="{escape_text(kind)}"><td class="n">{escape_text(str(n))}</td>'
                f"<td><code>{plain(text)}</code></td></tr>"
            )
        out.append("</table>\n")
    out.append("</div>\n")
    return Markup("".join(out))


def path_list(items: Sequence[str], dirs: bool, preview: bool) -> Markup:
    """find/ls results, one path a row; folders (ending in /) marked when listing."""
    shown = items[:PREVIEW_LINES] if preview else items
    rows = "".join(
        ('<li class="dir">' if dirs and item.endswith("/") else "<li>")
        + f"<code>{plain(item)}</code></li>"
        for item in shown
    )
    return Markup(f'<ul class="paths{" columns" if dirs else ""}">{rows}</ul>\n')


_ENDED_OK = (None, "stop", "toolUse", "error", "aborted", "length", "deferred")


def has_usage(u: Any) -> bool:
    """A usage object that counted something (tokens or a cost)."""
    if not isinstance(u, dict):
        return False
    cost = u.get("cost")
    counts = [u.get(k) for k in ("input", "output", "cacheRead", "cacheWrite")]
    counts.append(cost.get("total") if isinstance(cost, dict) else None)
    return any(finite_number(n) for n in counts)


def usage_brief(u: Any, estimated: float | None = None) -> Markup:
    """`` · in 1.2k · out 180 · cache read 50.0k · $0.0150``: one usage object's figures;
    ``estimated``: the estimate of a message that reported no cost, marked, in its place."""
    if not isinstance(u, dict) or not u:
        return Markup("")
    out = [f" · in {tokens_text(u.get('input'))} · out {tokens_text(u.get('output'))}"]
    if u.get("cacheRead"):
        out.append(f" · cache read {tokens_text(u.get('cacheRead'))}")
    if u.get("cacheWrite"):
        out.append(f" · cache write {tokens_text(u.get('cacheWrite'))}")
    if u.get("cacheWrite1h"):
        out.append(f" · cache write 1h {tokens_text(u.get('cacheWrite1h'))}")
    if u.get("reasoning"):
        out.append(f" · reasoning {tokens_text(u.get('reasoning'))}")
    cost = u.get("cost")
    if estimated is not None:
        out.append(f" · {cost_est(None, estimated)}")
    elif isinstance(cost, dict):
        out.append(f" · {cost_text(cost.get('total'))}")
    return Markup("".join(out))


def usage_line(msg: JSON) -> Markup:
    """The model (and the one that answered, when a router chose another), the thinking level
    asked for, tokens, cost and time under an assistant message."""
    model = _jinja_str(msg.get("model") or "?")
    out = [f'<div class="usage">{plain(_jinja_str(msg.get("provider") or ""))}/{plain(model)}']
    answered = msg.get("responseModel")
    if isinstance(answered, str) and answered and answered != model:
        out.append(
            f' <span title="The model the provider reports answering">→ {plain(answered)}</span>'
        )
    level = msg.get("thinkingLevel")
    if isinstance(level, str) and level:
        out.append(f" · thinking {plain(level)}")
    effort = msg.get("providerThinkingLevel")
    if isinstance(effort, str) and effort and effort != level:
        out.append(f" (provider effort {plain(effort)})")
    out.append(usage_brief(msg.get("usage"), estimate_message(msg)))
    if isinstance(msg.get("durationMs"), int | float) and not isinstance(
        msg.get("durationMs"), bool
    ):
        out.append(f" · took {ms(msg.get('durationMs'))}")
    stop = msg.get("stopReason")
    if stop not in _ENDED_OK:
        out.append(f" · stop: {plain(_jinja_str(stop))}")
    out.append("</div>")
    return Markup("".join(out))


USAGE_KIND_NAMES = {"cache_warm": "cache warming"}


def usage_kind_name(kind: str) -> str:
    """A kind of usage in words (``stats.Figures.by_kind`` keys, usage entry kinds)."""
    return USAGE_KIND_NAMES.get(kind, kind)


def usage_kind(kind: Any) -> Markup:
    """A usage entry's line head: what it paid for, in words where there are some."""
    if isinstance(kind, str) and kind in USAGE_KIND_NAMES:
        return Markup(USAGE_KIND_NAMES[kind].capitalize())
    return Markup("Usage: ") + plain(_jinja_str(kind))


def replacement_preview(edit: Entry) -> str:
    """The text a context edit puts in place of its target, on one line, cut short (made
    with the page's derive)."""
    rep = edit.raw.get("replacement")
    derive = page_derive.get()
    text = content_text(rep.get("content"), " ", derive) if isinstance(rep, dict) else ""
    return derive.line(text, 200) or "(no text)"


def removed_sections(msg: Any) -> list[str]:
    """The names of the prompt sections a system message removes (``null``)."""
    sections = msg.get("sections") if isinstance(msg, dict) else None
    if not isinstance(sections, dict):
        return []
    return [str(name) for name, value in sections.items() if value is None]


def _jinja_str(value: Any) -> str:
    """str() as a template shows a value (None → "None", True → "True")."""
    return value if isinstance(value, str) else str(value)


GLOBALS: dict[str, Any] = {
    "composed": composed,
    "diagnostics_line": diagnostics_line,
    "diff_rows": diff_rows,
    "split_notice": split_notice,
    "split_exit": split_exit,
    "grep_groups": grep_groups,
    "tool_call_target": tool_call_target,
    "entry_open": entry_open,
    "grep_list": grep_list,
    "path_list": path_list,
    "usage_line": usage_line,
    "usage_brief": usage_brief,
    "has_usage": has_usage,
    "usage_kind": usage_kind,
    "usage_kind_name": usage_kind_name,
    "header_fields": header_fields,
    "replacement_preview": replacement_preview,
    "system_of": current_system,
    "describe_update": describe_update,
    "own_removed_sections": removed_sections,
    "figures_line": figures_line,
    "active_cell": active_cell,
    "failure_of": failure,
    "skill_of": skill_of,
    "other_fields": other_fields,
    "kind_of": kind_of,
    "macro_named": macro_named,
    "cost_est": cost_est,
}
"""Every global the templates call, by the name they call it (``render.environment``)."""
