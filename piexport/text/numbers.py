"""How figures are written wherever piexport shows them: token counts (``12.3k``,
``1.20M``) and dollars (``$0.0123``, ``$4.56``). An absent figure is ``—``, never 0."""

from __future__ import annotations

__all__ = ["NONE", "money", "tokens"]

NONE = "—"
"""What an absent figure shows."""


def tokens(n: float | None) -> str:
    """A token count: ``950``, ``12.3k``, ``1.20M``; ``—`` when there is none."""
    if n is None:
        return NONE
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f}M"
    return f"{n / 1000:.1f}k" if n >= 1000 else str(int(n))


def money(cost: float | None) -> str:
    """Dollars, four places under $1 and two from $1; ``—`` when no cost was reported."""
    if cost is None:
        return NONE
    return f"${cost:.2f}" if cost >= 1 else f"${cost:.4f}"
