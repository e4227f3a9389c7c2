"""What a subagent session did, as its parent's page and the indexes tell it: the task it was
given, how it ended, and what it cost (its own figures, never mixed into the parent's)."""

from __future__ import annotations

from dataclasses import dataclass

from ..read.model import Session, content_text, short_title
from .stats import file_figures

OUTCOMES = {
    "stop": "finished",
    "toolUse": "ended during a tool call",
    "length": "stopped at the output limit",
    "aborted": "aborted",
    "deferred": "waiting for a deferred answer",
}


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    task: str
    """The first request it was given (its name, if it has one)."""
    outcome: str
    """How its current branch ended, in words."""
    ok: bool
    """It finished on an answer (no error, abort or cut-off)."""
    cost: float | None
    """Its own cost, all sources counted (None: no model reported one)."""
    tokens: int


def session_outcome(session: Session) -> SessionOutcome:
    """The task, the end and the cost of a session, as a parent's page lists its subagents."""
    figures = file_figures(session)
    task = session.name or short_title(session.first_user_text() or "") or "(no request)"
    stop, error = None, ""
    for entry in reversed(session.path_entries()):
        if entry.role == "assistant":
            message = entry.message or {}
            stop = message.get("stopReason")
            said = message.get("errorMessage")
            error = said if isinstance(said, str) else ""
            if not error and stop in ("error", "aborted"):
                error = content_text(message.get("content"))
            break
    if stop is None:
        outcome, ok = "no answer yet", False
    elif stop == "error":
        outcome, ok = "failed" + (f": {short_title(error, 120)}" if error else ""), False
    else:
        outcome, ok = OUTCOMES.get(str(stop), f"ended ({stop})"), stop == "stop"
    return SessionOutcome(task, outcome, ok, figures.known_cost, figures.tokens["total"])
