"""What colouring costs: export (and optionally a site build) at several colouring budgets.
Prints figures, asserts nothing.

    .venv/bin/python bench/budget.py [FILE ...] [--budgets 0 100000 400000] [--site]

Each export is a whole process (interpreter included, best of three) with the colour cache
off, at ``RenderOptions(highlight_chars=N)`` for each budget N (400,000 is piexport's):
the part of a page's cost that is colouring code with Pygments, and what a smaller budget
would save. With ``--site``, the bench archive is built once per budget (without the search
index, colour cache off), and its MB/s printed. Without FILEs: the bench's 2,000-entry
session and first real-shaped one (made by bench/run.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
sys.path.insert(0, str(HERE))

from make_sessions import GENERATOR, REAL_GENERATOR  # noqa: E402

EXPORT = """
import sys
from pathlib import Path
from piexport.export.pipeline import export_session
from piexport.page.render import RenderOptions
export_session(Path(sys.argv[1]), Path(sys.argv[2]), RenderOptions(highlight_chars=int(sys.argv[3])))
"""
SITE = """
import sys
from pathlib import Path
from piexport.site.build import build_site
from piexport.page.render import RenderOptions
build_site(Path(sys.argv[1]), Path(sys.argv[2]), options=RenderOptions(highlight_chars=int(sys.argv[3])), search=False)
"""
ENV = {**os.environ, "PIEXPORT_CACHE_DIR": "off"}


def seconds(code: str, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *args], env=ENV, check=True, cwd=CACHE)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument(
        "--budgets", type=int, nargs="+", default=[0, 50_000, 100_000, 200_000, 400_000]
    )
    parser.add_argument(
        "--site", action="store_true", help="also build the bench archive per budget"
    )
    args = parser.parse_args()
    files = [f.resolve() for f in args.files] or [
        CACHE / f"session-2000-g{GENERATOR}.jsonl",
        CACHE / f"real-1-r{REAL_GENERATOR}.jsonl",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "page.html"
        print(f"{'file':<28}" + "".join(f"{b // 1000:>8}k" for b in args.budgets) + "  (export s)")
        for f in files:
            if not f.is_file():
                sys.exit(f"{f}: missing (bench/run.py makes it)")
            row = [
                min(seconds(EXPORT, str(f), str(out), str(b)) for _ in range(3))
                for b in args.budgets
            ]
            print(f"{f.name:<28}" + "".join(f"{s:>9.2f}" for s in row))
        if args.site:
            root = CACHE / f"archive-g{GENERATOR}"
            mb = sum(p.stat().st_size for p in root.rglob("*.jsonl")) / 1e6
            for b in args.budgets:
                site = Path(tmp) / "site"
                shutil.rmtree(site, ignore_errors=True)
                s = seconds(SITE, str(root), str(site), str(b))
                print(f"site of {mb:.0f} MB at {b // 1000}k: {s:.1f} s, {mb / s:.1f} MB/s")


if __name__ == "__main__":
    main()
