"""Fuzz every Pygments lexer for superlinear time: prints the lexers and inputs that slow down
more than linearly, and those that run past a limit. Asserts nothing.

    .venv/bin/python bench/lexers.py [--sizes 500 2000] [--limit 2] [--only NAME ...]

Each input is a run of one shape (blanks, tabs, newlines, quotes, brackets, a key followed by
blanks, ...) at two sizes; a lexer whose time grows faster than the size ratio to the power
1.5 (and takes more than 50 ms at the larger size) is reported, as is one the limit stops.
piexport shows a block with a long run of blanks or of one character as plain text, counted
(``colourable`` in piexport/page/highlight.py), and keeps a hang guard for any other shape
(piexport/deadline.py); this script finds shapes for tests/support/hostile_slow.py and for
that count.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_all_lexers, get_lexer_by_name

SHAPES = {
    "spaces": lambda n: "a" + " " * n + "b",
    "tabs": lambda n: "\t" * n,
    "blank-lines": lambda n: "\n" * n + "x",
    "space-lines": lambda n: " \n" * (n // 2) + "x",
    "quotes": lambda n: '"' * n,
    "backslashes": lambda n: "\\" * n,
    "brackets": lambda n: "(" * n,
    "key-blanks": lambda n: "key=" + " " * n + "\n",
    "comment-stars": lambda n: "/*" + "*" * n,
    "words": lambda n: "a " * (n // 2),
}


class Stopped(Exception):
    pass


def _stop(*_: object) -> None:
    raise Stopped


def timed(lexer: object, code: str, limit: float) -> float:
    signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        highlight(code, lexer, HtmlFormatter(nowrap=True))
        return time.perf_counter() - start
    except Stopped:
        return float("inf")
    except Exception:
        return 0.0  # a lexer that fails is not slow; piexport shows such a block plain
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[500, 2000])
    parser.add_argument("--limit", type=float, default=2.0)
    parser.add_argument("--only", nargs="*", help="lexer aliases to try (default: all)")
    args = parser.parse_args()
    small, big = args.sizes
    names = args.only or [aliases[0] for _, aliases, _, _ in get_all_lexers() if aliases]
    found = 0
    for name in names:
        try:
            lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False)
        except Exception:
            continue
        for shape, make in SHAPES.items():
            t_small = timed(lexer, make(small), args.limit)
            t_big = float("inf") if t_small == float("inf") else timed(lexer, make(big), args.limit)
            # a few milliseconds are noise: floor the small time, and look only at lexers
            # that take a while at the bigger size and grow by more than size^1.5
            grows = t_big / max(t_small, 0.002)
            if t_big == float("inf") or (t_big > 0.05 and grows > (big / small) ** 1.5):
                found += 1
                print(f"{name:<24}{shape:<14}{t_small:>8.3f} s{t_big:>8.3f} s", flush=True)
    print(f"{found} lexer/shape pairs superlinear or stopped ({len(names)} lexers tried)")


if __name__ == "__main__":
    main()
