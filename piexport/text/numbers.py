"""How figures are written wherever piexport shows them: token counts (``12.3k``,
``1.20M``), counts of things (``1,234``) and dollars (``$0.0123``, ``$4.56``). An absent
figure is ``—``, never 0."""

from __future__ import annotations

__all__ = ["NONE", "count", "money", "size", "tokens"]

NONE = "—"
"""What an absent figure shows."""


def tokens(n: float | None) -> str:
    """A token count: ``950``, ``12.3k``, ``1.20M``, ``4.09B``; ``—`` when there is none."""
    if n is None:
        return NONE
    if n >= 1_000_000_000:
        return f"{n / 1_000_000_000:.2f}B"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f}M"
    return f"{n / 1000:.1f}k" if n >= 1000 else str(int(n))


def money(cost: float | None) -> str:
    """Dollars, four places under $1 and two from $1; ``—`` when no cost was reported."""
    if cost is None:
        return NONE
    return f"${cost:.2f}" if cost >= 1 else f"${cost:.4f}"


def count(n: int) -> str:
    """A count of things (sessions, messages, calls): ``7``, ``1,234``."""
    return f"{n:,}"


def size(n: int) -> str:
    """A file's size: ``512 B``, ``12.3 KB``, ``4.5 MB``, ``1.2 GB`` (powers of 1,000)."""
    for unit, step in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= step:
            return f"{n / step:.1f} {unit}"
    return f"{n} B"
