"""Figures about a session (tokens, cost, tool calls, files, errors), for a path or the file.

One definition, used by the page header, the site indexes and ``piexport summary``, so the
numbers a reader sees in one place are the numbers they see in every other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from ..read.figures import UsageSource, usage_is_valid
from ..read.figures import usage_source as _usage_source
from ..read.jsonutil import finite_number
from ..read.model import JSON, Entry, Session
from ..read.tree import timestamp_ms

TOKEN_KEYS = ("input", "output", "cacheRead", "cacheWrite")
EXTRA_TOKEN_KEYS = ("reasoning", "cacheWrite1h")
"""Reported by some providers; counted on their own (pi's ``totalTokens`` already holds
them, so they are not added to the total a second time)."""
IDLE_GAP_MS = 15 * 60 * 1000
"""A gap between two entries longer than this (15 minutes) is idle time, not work: the
reader away, a night between two sittings. Active time (``active_ms``) leaves such gaps out
whole; a session's span (first entry to last) keeps them."""
READ_TOOLS = frozenset({"read"})
WRITE_TOOLS = frozenset({"edit", "write"})


def _number(value: Any) -> float:
    """A figure's value: a usable number, or 0 for anything else (text, ``1e999``, ``NaN``,
    integers past 64 bits): a number no tool could have meant counts as unknown."""
    n = finite_number(value)
    return 0.0 if n is None else float(n)


def _count(value: Any) -> int:
    n = finite_number(value)
    return 0 if n is None else int(n)


def usage_source(entry: Entry) -> UsageSource | None:
    """The usage an entry carries, where pi 1.5 counts one (``read.figures.usage_source``)."""
    return _usage_source(entry.raw)


@dataclass(slots=True)
class Tally:
    """Tokens and cost of one kind of usage."""

    tokens: dict[str, int] = field(default_factory=lambda: dict.fromkeys((*TOKEN_KEYS, "total"), 0))
    cost: float = 0.0
    count: int = 0
    """Usage objects added (messages, entries)."""

    def add(self, other: Tally) -> None:
        for k, v in other.tokens.items():
            self.tokens[k] = self.tokens.get(k, 0) + v
        self.cost += other.cost
        self.count += other.count

    def as_json(self) -> JSON:
        return {"count": self.count, "tokens": dict(self.tokens), "cost": round(self.cost, 6)}


@dataclass(slots=True)
class Figures:
    """Counts over a set of entries; ``as_json()`` is the stable shape ``summary`` prints."""

    entries: int = 0
    messages: Counter[str] = field(default_factory=Counter)
    tool_calls: Counter[str] = field(default_factory=Counter)
    tool_errors: int = 0
    tokens: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys((*TOKEN_KEYS, "total", *EXTRA_TOKEN_KEYS), 0)
    )
    cost: float = 0.0
    costed: int = 0
    """Usage objects that reported a cost other than 0 (a model with no price
    reports 0): with none, the cost is unknown and shown as "—", never as $0."""
    models: list[str] = field(default_factory=list)
    files_read: set[str] = field(default_factory=set)
    files_modified: set[str] = field(default_factory=set)
    errors: int = 0
    """Assistant turns that ended in ``error`` or ``aborted``."""
    cost_estimated: float = 0.0
    """Estimated cost of the assistant messages that reported none (``prices``), kept apart
    from ``cost``: shown marked "est.", never added to it. Only with ``estimate=True``."""
    estimated: int = 0
    """Assistant messages that reported no cost and have an estimate."""
    compactions: int = 0
    first_ms: int | None = None
    last_ms: int | None = None
    active_ms: int | None = None
    """Time spent working (``active_ms``): the gaps between consecutive entries in time,
    each longer than ``IDLE_GAP_MS`` left out; None with no timestamp."""
    by_kind: dict[str, Tally] = field(default_factory=dict)
    """Tokens and cost by what they paid for (``read.figures.USAGE_KINDS``, usage entry kinds): the
    totals above are their sum, as pi 1.5's ``/session`` adds them up."""

    @property
    def turns(self) -> Tally:
        """Usage of assistant messages alone: what pi's own HTML export header counts."""
        return self.by_kind.get("turns") or Tally()

    @property
    def beyond_turns(self) -> dict[str, Tally]:
        """The kinds of usage other than the model's turns that add to the totals."""
        return {
            k: t for k, t in self.by_kind.items() if k != "turns" and (t.cost or t.tokens["total"])
        }

    def as_json(self) -> JSON:
        return {
            "entries": self.entries,
            "messages": dict(sorted(self.messages.items())),
            "toolCalls": dict(sorted(self.tool_calls.items())),
            "toolErrors": self.tool_errors,
            "tokens": dict(self.tokens),
            "cost": round(self.cost, 6),
            "models": list(self.models),
            "filesRead": sorted(self.files_read),
            "filesModified": sorted(self.files_modified),
            "errors": self.errors,
            "compactions": self.compactions,
            "usageByKind": {k: t.as_json() for k, t in sorted(self.by_kind.items())},
            "costEstimated": self.known_estimate,
        }

    def add(self, other: Figures) -> None:
        """Add another set's figures to these (entries of several sessions or periods)."""
        self.entries += other.entries
        self.messages.update(other.messages)
        self.tool_calls.update(other.tool_calls)
        self.tool_errors += other.tool_errors
        for k, v in other.tokens.items():
            self.tokens[k] = self.tokens.get(k, 0) + v
        self.cost += other.cost
        self.costed += other.costed
        self.models += [m for m in other.models if m not in self.models]
        self.files_read |= other.files_read
        self.files_modified |= other.files_modified
        self.errors += other.errors
        self.cost_estimated += other.cost_estimated
        self.estimated += other.estimated
        self.compactions += other.compactions
        for kind, tally in other.by_kind.items():
            self.by_kind.setdefault(kind, Tally()).add(tally)
        if other.active_ms is not None:
            # the parts' own active times: a gap between two parts is not counted
            self.active_ms = (self.active_ms or 0) + other.active_ms
        for ms in (other.first_ms, other.last_ms):
            if ms is not None:
                self.first_ms = ms if self.first_ms is None else min(self.first_ms, ms)
                self.last_ms = ms if self.last_ms is None else max(self.last_ms, ms)

    def resum(self, costs: Iterable[tuple[str, float]]) -> None:
        """Set the cost and each kind's cost to these costs added in this order (the order of
        one pass over the entries: float addition depends on it)."""
        self.cost = 0.0
        for tally in self.by_kind.values():
            tally.cost = 0.0
        for kind, paid in costs:
            self.cost += paid
            self.by_kind.setdefault(kind, Tally()).cost += paid

    @property
    def known_cost(self) -> float | None:
        """The cost, or None when no message reported one."""
        return round(self.cost, 6) if self.costed else None

    @property
    def known_estimate(self) -> float | None:
        """The estimated cost of the messages that reported none, or None for no estimate."""
        return round(self.cost_estimated, 6) if self.estimated else None

    @property
    def error_count(self) -> int:
        """Failed entries (``failure``): turns that ended in an error or were stopped, and
        tool results marked as errors. The one error count a reader sees, everywhere."""
        return self.errors + self.tool_errors

    @property
    def message_count(self) -> int:
        return sum(self.messages.values())


def compute_figures(
    entries: Iterable[Entry],
    costs: list[tuple[str, float]] | None = None,
    *,
    estimate: bool = False,
) -> Figures:
    """Add up the figures of the given entries (a path, or every entry in the file).

    ``costs``, when given, receives each cost added (with its kind), in order: figures of
    consecutive runs of entries can then be added (``Figures.add``) and their costs summed
    again in one order (``Figures.resum``), the same floats as a single pass. With
    ``estimate``, assistant messages that reported no cost get one from ``prices`` (in
    ``cost_estimated``, apart from ``cost``)."""
    f = Figures()
    seen_models: set[str] = set()
    times: list[int] = []
    for e in entries:
        f.entries += 1
        ms = timestamp_ms(e.timestamp)
        if ms is not None:
            times.append(ms)
            f.first_ms = ms if f.first_ms is None else min(f.first_ms, ms)
            f.last_ms = ms if f.last_ms is None else max(f.last_ms, ms)
        if e.type == "compaction":
            f.compactions += 1
        source = usage_source(e)
        if source is not None:
            if source.model and source.model not in seen_models:
                seen_models.add(source.model)
                f.models.append(source.model)
            _add_usage(f, source, costs)
        msg = e.message
        if e.type != "message" or msg is None:
            continue
        role = msg.get("role")
        f.messages[role if isinstance(role, str) else "?"] += 1
        failed = failure(e)
        if failed == "tool":
            f.tool_errors += 1
        elif failed is not None:
            f.errors += 1
        if role != "assistant":
            continue
        if estimate:
            _add_estimate(f, msg, e.timestamp)
        content = msg.get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "toolCall":
                _add_tool_call(f, block)
    f.active_ms = active_ms(times) if times else None
    return f


def failure(entry: Entry) -> str | None:
    """How an entry failed, the one definition every error count and mark uses (the index's
    Errors column, the header's, the branch cards, the errors-only view, the tree's marks):
    ``"error"`` for an assistant turn that ended in an error, ``"aborted"`` for one that was
    stopped, ``"tool"`` for a tool result marked ``isError``; None for anything else."""
    msg = entry.message
    if entry.type != "message" or msg is None:
        return None
    role = msg.get("role")
    if role == "toolResult":
        return "tool" if msg.get("isError") is True else None
    if role == "assistant":
        stop = msg.get("stopReason")
        return stop if stop in ("error", "aborted") else None
    return None


def active_ms(times: Iterable[int], idle_ms: int = IDLE_GAP_MS) -> int:
    """Time spent working over these moments (entries' times, in any order): the sum of the
    gaps between consecutive ones, a gap longer than ``idle_ms`` counted as idle (left out
    whole). Never negative, never more than the span from the first to the last."""
    ordered = sorted(times)
    return sum(gap for a, b in pairwise(ordered) if (gap := b - a) <= idle_ms)


def _add_usage(
    f: Figures, source: UsageSource, costs: list[tuple[str, float]] | None = None
) -> None:
    """Add one usage object, as pi's ``addUsageToTotals`` does: the four token counts (their
    sum is the total, as pi's ``/session`` gives it) and ``cost.total``."""
    usage = source.usage
    if not usage_is_valid(usage):  # not an object, or a figure no call could have (reported)
        return
    tally = f.by_kind.setdefault(source.kind, Tally())
    tally.count += 1
    parts = {k: _count(usage.get(k)) for k in TOKEN_KEYS}
    for k, v in parts.items():
        f.tokens[k] += v
        tally.tokens[k] += v
    for k in EXTRA_TOKEN_KEYS:
        f.tokens[k] += _count(usage.get(k))
    f.tokens["total"] += sum(parts.values())
    tally.tokens["total"] += sum(parts.values())
    cost = usage.get("cost")
    if isinstance(cost, dict):
        paid = _number(cost.get("total"))
        f.cost += paid
        tally.cost += paid
        if costs is not None:
            costs.append((source.kind, paid))
        f.costed += paid != 0  # a model with no price reports 0


def _add_estimate(f: Figures, msg: JSON, timestamp: Any) -> None:
    from .prices import estimate_message  # the price table loads only when one is needed

    value = estimate_message(msg, timestamp)
    if value is not None:
        f.cost_estimated += value
        f.estimated += 1


def _add_tool_call(f: Figures, block: JSON) -> None:
    name = block.get("name")
    name = name if isinstance(name, str) and name else "?"
    f.tool_calls[name] += 1
    args = block.get("arguments")
    if not isinstance(args, dict):
        return
    path = args.get("path", args.get("file_path"))
    if not isinstance(path, str) or not path:
        return
    if name in READ_TOOLS:
        f.files_read.add(path)
    elif name in WRITE_TOOLS:
        f.files_modified.add(path)


def path_figures(session: Session, leaf_id: str | None = None) -> Figures:
    return compute_figures(session.path_entries(leaf_id), estimate=True)


def file_figures(session: Session) -> Figures:
    return compute_figures(session.entries, estimate=True)
