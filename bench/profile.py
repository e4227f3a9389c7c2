"""Where each millisecond of one export goes: prints figures, asserts nothing.

    .venv/bin/python bench/profile.py [FILE ...] [--runs 3] [--instructions] [--json FILE]

Without FILEs: the 42-line sample session, the first real-shaped session and the 2,000-entry
one (made by bench/run.py's generators). Each run is a whole ``piexport render FILE -o OUT``
process with an empty colour cache, pinned to one CPU (so a big page renders in that one
process rather than in one per core: the same work, all of it visible here), with timers
around the parts of an export. Every part is counted once, where it happens: Pygments called
from Markdown is Pygments, a lexer compiled while looking it up is lexer compile. Figures are
CPU milliseconds (wall in brackets), the median of ``--runs``; the parts add up to the process's
CPU time, and "start-up" is the interpreter before the first line of Python (the whole
process measured from outside, less what was measured inside).

``--instructions`` also counts each part's instructions in one more run under
``valgrind --tool=callgrind`` (which dumps its counts whenever the part changes): the same
count whatever else the machine runs, so before/after comparisons hold on a busy machine.
That run lifts the colouring and page time limits (under callgrind a process is 30-100x
slower, and the limits would cut colouring short and change the page). Slow: minutes.

To profile another checkout: PYTHONPATH=/path/to/checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import CACHE, SAMPLE, bytecode, real_file, session_file  # noqa: E402

PARTS = [
    ("start-up", "the interpreter, before the first line of Python"),
    ("imports", "modules imported for the first time (not Pygments' lexers)"),
    ("template compile", "the Jinja environment, and templates compiled or loaded"),
    ("lexer lookup", "finding lexers by name or file name, importing their modules"),
    ("lexer compile", "a lexer's regexes, on its first use in the process"),
    ("loading", "reading and parsing the session file"),
    ("view", "shaping the session for the page (build_view)"),
    ("panels", "branch panel, context chart, files panel"),
    ("Pygments", "lexing and formatting code"),
    ("colour cache", "coloured blocks read from or written to the disk cache"),
    ("Markdown", "markdown-it and our renderer around it"),
    ("templates render", "the templates and the Python they call: the rest of the export"),
    ("writing", "the page's file: writes, flush, rename"),
    ("CLI", "click, options, messages: outside the export"),
]

CHILD = r"""
import os
os.getppid()  # under callgrind --dump-before=os_getppid: what came before is start-up
import sys, time, builtins
MARKS = os.environ.get("PIEXPORT_PROFILE_MARKS", "")
ROUND = ("Pygments", "Markdown", "templates render", "writing", "colour cache")
COARSE = {part: "rendering" for part in ROUND} if MARKS == "coarse" else {}
marks = []
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
cpu, wall = time.process_time, time.perf_counter
spent_cpu, spent_wall = {}, {}
stack = ["CLI"]
mark = [cpu(), wall()]
START = tuple(mark)

def _charge(next_top=None):
    c, w = cpu(), wall()
    top = stack[-1]
    spent_cpu[top] = spent_cpu.get(top, 0.0) + c - mark[0]
    spent_wall[top] = spent_wall.get(top, 0.0) + w - mark[1]
    if MARKS and COARSE.get(next_top, next_top) != COARSE.get(top, top):
        os.getppid()  # callgrind dumps its counts: they were this part's
        marks.append(COARSE.get(top, top))
    mark[0], mark[1] = cpu(), wall()

def enter(part):
    _charge(part)
    stack.append(part)

def leave():
    _charge(stack[-2])
    stack.pop()

def timed(part, fn):
    def wrapper(*args, **kwargs):
        enter(part)
        try:
            return fn(*args, **kwargs)
        finally:
            leave()
    wrapper.__wrapped__ = fn
    return wrapper

_import = builtins.__import__
def _timed_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name in sys.modules and not fromlist:
        return _import(name, globals, locals, fromlist, level)
    lexer = name.startswith("pygments.lexers.") and name != "pygments.lexers._mapping"
    enter("lexer lookup" if lexer else "imports")
    try:
        return _import(name, globals, locals, fromlist, level)
    finally:
        leave()
builtins.__import__ = _timed_import

enter("imports")
import jinja2, pygments, pygments.lexer, pygments.lexers, pygments.formatters
leave()

pygments.lexer.RegexLexerMeta.process_tokendef = timed(
    "lexer compile", pygments.lexer.RegexLexerMeta.process_tokendef)
for name in ("get_lexer_by_name", "get_lexer_for_filename", "find_lexer_class_for_filename",
             "find_lexer_class", "find_lexer_class_by_name"):
    if hasattr(pygments.lexers, name):
        setattr(pygments.lexers, name, timed("lexer lookup", getattr(pygments.lexers, name)))
pygments.highlight = timed("Pygments", pygments.highlight)
jinja2.Environment._load_template = timed("template compile", jinja2.Environment._load_template)
jinja2.Environment.__init__ = timed("template compile", jinja2.Environment.__init__)

enter("imports")
import piexport.cli
import piexport.output, piexport.read.loader, piexport.page.view, piexport.page.render
import piexport.page.highlight, piexport.page.markdown, piexport.page.colourcache
import piexport.export.pipeline
leave()

def patch(module, name, part):
    if hasattr(module, name):
        setattr(module, name, timed(part, getattr(module, name)))

render = piexport.page.render
if MARKS:  # under callgrind, 30-100x slower: no hang guard may cut colouring or the page short
    piexport.page.highlight.block_seconds = lambda chars: 1e9
    piexport.page.markdown.markdown_seconds = lambda chars: 1e9
    piexport.export.pipeline.page_seconds = lambda size: 1e9
patch(piexport.export.pipeline, "load_session", "loading")
patch(piexport.export.pipeline, "build_view", "view")
patch(render, "build_view", "view")
for name in ("branch_panel", "context_chart", "files_touched"):
    patch(render, name, "panels")
patch(render, "render_markdown", "Markdown")
patch(piexport.page.markdown, "render_markdown", "Markdown")
patch(render, "make_env", "template compile")
patch(piexport.page.highlight, "highlight", "Pygments")
for name in ("get_lexer_by_name", "get_lexer_for_filename", "_by_alias", "_by_filename"):
    patch(piexport.page.highlight, name, "lexer lookup")
for name in ("load", "store"):
    patch(piexport.page.colourcache, name, "colour cache")
patch(piexport.export.pipeline, "render_session_parts", "templates render")
patch(piexport.export.pipeline, "_write", "templates render")

class _Timed:
    def __init__(self, f):
        self._f = f
    def write(self, text):
        enter("writing")
        try:
            return self._f.write(text)
        finally:
            leave()
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        enter("writing")
        try:
            return self._f.__exit__(*exc)
        finally:
            leave()
    def __getattr__(self, name):
        return getattr(self._f, name)

_fdopen = os.fdopen
def _timed_fdopen(*args, **kwargs):
    return _Timed(_fdopen(*args, **kwargs))
piexport.output.os = type(sys)("os_for_output")
piexport.output.os.__dict__.update(os.__dict__)
piexport.output.os.fdopen = _timed_fdopen
for name in ("replace", "chmod"):
    setattr(piexport.output.os, name, timed("writing", getattr(os, name)))
patch(piexport.output, "sweep_stale", "writing")

sys.argv[1:] = ["render", sys.argv[1], "-o", sys.argv[2], sys.argv[3]]
figures = sys.argv.pop()
try:
    piexport.cli.main()
except SystemExit as exc:
    if exc.code not in (0, None):
        raise
finally:
    _charge()
    spent_cpu["_inside"] = cpu() - START[0]
    spent_wall["_inside"] = wall() - START[1]
    with open(figures, "w") as out:
        import json
        json.dump({"cpu": spent_cpu, "wall": spent_wall, "marks": marks}, out)
"""


def profile_once(src: Path, out: Path) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="piexport-profile-") as tmp:
        figures = Path(tmp) / "figures.json"
        env = {**os.environ, "PIEXPORT_CACHE_DIR": str(Path(tmp) / "colour")}
        before = os.times()
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(src), str(out), str(figures)],
            cwd=CACHE,
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
        after = os.times()
        if done.returncode != 0:
            sys.exit(f"profile of {src} failed:\n{done.stderr[-3000:]}")
        inside = json.loads(figures.read_text())
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    result: dict[str, dict[str, float]] = {"cpu": {}, "wall": {}}
    for kind, whole in (("cpu", cpu), ("wall", wall)):
        parts = inside[kind]
        result[kind]["start-up"] = max(0.0, whole - parts.pop("_inside"))
        result[kind].update(parts)
        result[kind]["total"] = whole
    return result


FINE_BYTES = 200_000
"""Bigger sessions switch between Pygments, Markdown, templates and writing thousands of
times, one callgrind dump each: their instructions are counted together, as "rendering"."""


def instructions_by_part(src: Path, out: Path) -> dict[str, int]:
    """Instructions per part: the timed process under callgrind, which dumps its counts
    each time the part changes (the child calls ``os.getppid`` there); the instructions of
    the timers themselves are in the parts, a few per change."""
    with tempfile.TemporaryDirectory(prefix="piexport-callgrind-") as tmp:
        figures = Path(tmp) / "figures.json"
        env = {**os.environ, "PIEXPORT_CACHE_DIR": str(Path(tmp) / "colour")}
        env["PIEXPORT_PROFILE_MARKS"] = "fine" if src.stat().st_size <= FINE_BYTES else "coarse"
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--dump-before=os_getppid",
                f"--callgrind-out-file={tmp}/cg.out",
                sys.executable,
                "-c",
                CHILD,
                str(src),
                str(out),
                str(figures),
            ],
            cwd=CACHE,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            sys.exit(f"callgrind of {src} failed:\n{done.stderr[-3000:]}")
        marks = json.loads(figures.read_text())["marks"]
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        if len(dumps) != len(marks) + 1:
            sys.exit(f"callgrind wrote {len(dumps)} dumps for {len(marks)} changes of part")
        parts = ["start-up", *marks, "CLI"]  # the last: from the last change to the exit
        counts: dict[str, int] = {}
        for part, dump in zip(parts, [*dumps, Path(tmp) / "cg.out"], strict=True):
            found = re.search(r"^(?:summary|totals): (\d+)", dump.read_text(), re.MULTILINE)
            counts[part] = counts.get(part, 0) + (int(found[1]) if found else 0)
        counts["total"] = sum(counts.values())
        return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="*")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--instructions", action="store_true", help="count with callgrind")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    files = [(f.stem[-16:], f.resolve()) for f in args.files] or [
        ("sample", SAMPLE),
        ("real-1", real_file(1)),
        ("2k", session_file(2000)),
    ]
    out_dir = CACHE / "out"
    out_dir.mkdir(parents=True, exist_ok=True)
    bytecode()
    report: dict[str, dict[str, object]] = {}
    columns: list[tuple[str, dict[str, float], dict[str, float]]] = []
    for label, src in files:
        out = out_dir / f"profile-{label}.html"
        runs = [profile_once(src, out) for _ in range(args.runs)]
        cpu = {k: statistics.median(r["cpu"].get(k, 0.0) for r in runs) for k in _keys(runs)}
        wall = {k: statistics.median(r["wall"].get(k, 0.0) for r in runs) for k in _keys(runs)}
        columns.append((label, cpu, wall))
        report[label] = {"cpu_ms": _ms(cpu), "wall_ms": _ms(wall)}
        if args.instructions:
            report[label]["instructions"] = instructions_by_part(src, out)
    width = 26
    print(f"{'CPU ms (wall ms), median of ' + str(args.runs):<{width}} ", end="")
    for label, _, _ in columns:
        print(f"{label:>18}", end="")
    print()
    for part, _what in [*PARTS, ("total", "")]:
        print(f"{part:<{width}}", end="")
        for _, cpu, wall in columns:
            cell = f"{cpu.get(part, 0.0) * 1000:.0f} ({wall.get(part, 0.0) * 1000:.0f})"
            print(f"{cell:>18}", end="")
        print()
    if args.instructions:
        print(f"\n{'instructions, millions':<{width}}", end="")
        for label, _, _ in columns:
            print(f"{label:>18}", end="")
        print()
        shown = [p for p, _ in PARTS]
        shown.insert(shown.index("Pygments"), "rendering")
        counted: dict[str, dict[str, int]] = {
            label: report[label]["instructions"]  # type: ignore[misc]
            for label, _, _ in columns
        }
        for part in [*shown, "total"]:
            if any(part in counts for counts in counted.values()):
                cells = "".join(f"{c.get(part, 0) / 1e6:>18.1f}" for c in counted.values())
                print(f"{part:<{width}}{cells}")
    print()
    for part, what in PARTS:
        print(f"  {part}: {what}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


def _keys(runs: list[dict[str, dict[str, float]]]) -> list[str]:
    return sorted({k for r in runs for k in r["cpu"]})


def _ms(figures: dict[str, float]) -> dict[str, float]:
    return {k: round(v * 1000, 1) for k, v in figures.items()}


if __name__ == "__main__":
    main()
