"""piexport benchmark: prints figures, asserts nothing (targets live in the issues, not in tests).

    .venv/bin/python bench/run.py [--sizes 2000 20000] [--real 1] [--no-sample]
                                  [--pi DIR [--pi DIR ...]] [--node NODE]
                                  [--runs 3] [--opens 3] [--json FILE]
                                  [--no-browser] [--no-archive] [--no-startup] [--warm]
                                  [--redact] [--hostile]

Cases: the 42-line sample session (sample_sessions/), the bench's synthetic sessions of the
given sizes (entries) and ``--real N`` real-shaped 3-4 MB sessions (many small turns, long
reads of source files read again, long bash logs: make_sessions.make_real_session). Inputs are
generated deterministically into bench/.cache and reused.

For each case and each tool (piexport, and every pi given with ``--pi``):

- **export**: the median of ``--runs`` whole processes, timed from outside (interpreter and
  imports included): ``python -m piexport render FILE -o OUT`` with an empty colour cache each
  time, ``node <pi's bin> --export COPY OUT`` on a fresh copy (pi may rewrite what it opens).
  CPU is user + system seconds of the process and everything it waited for (the kernel's
  accounting of the finished child); peak is the largest resident set of one of its processes
  (ditto), and PSS the proportional set size of the process and its forked workers together,
  sampled every 10 ms (piexport renders big pages in several processes).
- **usable**: export + the median of ``--opens`` times Debian's Chromium takes from navigation
  until the page's transcript shows (its first entry is in the DOM, the load event has fired,
  and two animation frames have passed). pi builds its transcript in the page's script;
  piexport's is in the HTML. A page whose transcript never shows is reported ``blank``.

Ratios are against the newest pi given (by version), so with both pi 1.5.2 and 0.73.1 the
ratios are piexport / pi 1.5.2 and 0.73.1 is an extra column. pi 1.5.2 needs Node >= 22.19:
``--node`` names the node binary for every pi (bench/README.md says how to install both pi
versions and Node 22). Everything runs without the farm-* tools.

Then, unless switched off: start-up (best of 10 of ``--version`` and ``info``), and a 500-session
archive (first site build, no-change rebuild, ``--force`` rebuild with a warm colour cache).
``--warm`` adds piexport exports with the colour cache the first export left; ``--redact``
adds ``render --redact``. To measure another version of piexport with the same script, put
its checkout first: PYTHONPATH=/path/to/checkout.

With --hostile, every file of the test suite's hostile corpora (tests/support/hostile_corpus.py for
malformed files, tests/support/hostile_slow.py for time and memory) is exported too, and the seconds
per MB of input of each, and of the slowest, are printed: the cost of a page must stay linear.

piexport's modules are byte-compiled first (``compileall``), as pip does when it installs a
wheel: with PYTHONDONTWRITEBYTECODE=1 a checkout would compile all its Python in every process.

Wall-clock figures mean something only on a quiet machine; on a shared one, compare CPU
seconds (and bench/profile.py's instruction counts) instead.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
sys.path.insert(0, str(HERE))

from make_sessions import (  # noqa: E402
    GENERATOR,
    REAL_GENERATOR,
    make_archive,
    make_real_session,
    make_session,
)

SAMPLE = (
    HERE.parent
    / "sample_sessions"
    / "--home-alice-src-shop--"
    / "2025-03-04T09-02-44-310Z_01955f7c-2b1e-7a41-9c3e-8d24e7a0b6f1.jsonl"
)
"""The sample: 42 lines, a small session of the kind most pages are."""

EXPORT = """
import json, sys, time
from pathlib import Path
t = time.perf_counter()
from piexport import Redactor
from piexport.export.pipeline import export_session
redactor = Redactor.create() if sys.argv[3:] == ["--redact"] else None
export_session(Path(sys.argv[1]), Path(sys.argv[2]), redactor=redactor)
print(json.dumps({"seconds": time.perf_counter() - t}))
"""
"""An export inside one process (the hostile corpus's per-MB figures use it)."""
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def bytecode() -> None:
    """Compile the measured piexport's modules (its precompiled templates included) to
    bytecode first, as pip does when it installs a wheel: a checkout run with
    PYTHONDONTWRITEBYTECODE=1 (as on the shared development machine) would otherwise compile
    all of piexport's Python in every process measured, which no installed copy does."""
    CACHE.mkdir(exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import compileall, pathlib, piexport; "
            "compileall.compile_dir(pathlib.Path(piexport.__file__).parent, quiet=1)",
        ],
        cwd=CACHE,  # not the checkout: PYTHONPATH=<another checkout> must win over ./piexport
        check=True,
    )


def session_file(entries: int) -> Path:
    path = CACHE / f"session-{entries}-g{GENERATOR}.jsonl"
    if not path.exists():
        CACHE.mkdir(exist_ok=True)
        path.write_bytes(make_session(entries, seed=entries))
    return path


def real_file(seed: int) -> Path:
    path = CACHE / f"real-{seed}-r{REAL_GENERATOR}.jsonl"
    if not path.exists():
        CACHE.mkdir(exist_ok=True)
        path.write_bytes(make_real_session(seed))
    return path


def _pss_kb(pid: int) -> int:
    """Proportional set size of one process and everything it forked: shared pages (a
    forked worker's view of the session) count once, not once per process."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError):
            pass  # gone meanwhile
    return total


COLOUR_CACHE = Path(tempfile.mkdtemp(prefix="piexport-bench-cache-"))
"""piexport's cache of coloured blocks for this run: empty at the start, so the first export
of each file is a cold one (never the user's cache); "warm" rows export again with it."""
atexit.register(shutil.rmtree, COLOUR_CACHE, True)


def cold_cache() -> dict[str, str]:
    """An environment whose colour cache is empty."""
    shutil.rmtree(COLOUR_CACHE, ignore_errors=True)
    COLOUR_CACHE.mkdir(parents=True)
    return warm_cache()


def warm_cache() -> dict[str, str]:
    return {**os.environ, "PIEXPORT_CACHE_DIR": str(COLOUR_CACHE)}


@dataclass(frozen=True, slots=True)
class Run:
    """One whole process, measured from outside."""

    wall: float
    cpu: float
    """User + system seconds of the process and of every child it waited for."""
    rss_mb: float
    """The largest resident set of one process of the run (the kernel's own accounting)."""
    pss_mb: float
    """PSS of the process and its children together, sampled every 10 ms (a lower bound)."""
    system: float = 0.0
    """Of ``cpu``, the seconds in the kernel: a few percent normally; a large share is work
    the program makes for itself (Python's frame stack mapped and unmapped: workers.py)."""


def whole(cmd: Sequence[str], env: dict[str, str] | None = None) -> Run:
    """Run a command to its end; its wall time from just before the start to the reaping, and
    the kernel's figures for it (``wait4``, so only this child counts)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(cmd), cwd=CACHE, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    errors: list[bytes] = []
    reader = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)
    reader.start()  # a full stderr pipe must never stall the run being timed
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.01):
            peak[0] = max(peak[0], _pss_kb(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    proc.returncode = os.waitstatus_to_exitcode(status)
    sampler.join()
    reader.join()
    if proc.returncode != 0:  # a figure from a failed run would be a lie
        tail = b"".join(errors).decode("utf-8", "replace")[-2000:]
        sys.exit(f"failed: {' '.join(cmd)}\n{tail}")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(wall, cpu, usage.ru_maxrss / 1024, peak[0] / 1024, usage.ru_stime)


def median_run(runs: Sequence[Run]) -> Run:
    """Each figure's median over the runs (a slow or a lucky run does not move it)."""
    return Run(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.rss_mb for r in runs),
        statistics.median(r.pss_mb for r in runs),
        statistics.median(r.system for r in runs),
    )


@dataclass(frozen=True, slots=True)
class Tool:
    """Something that turns a session file into a page, run as a whole process."""

    name: str
    command: Callable[[Path, Path], list[str]]
    """The command line for (input, page); the input is what ``prepare`` returned."""
    ready: str
    """A JS expression, true once the page's transcript shows its first entry."""
    env: Callable[[], dict[str, str]] = field(default=lambda: dict(os.environ))
    prepare: Callable[[Path, Path], Path] = field(default=lambda src, _page: src)
    version: tuple[int, ...] = ()


PIEXPORT_READY = "document.querySelector('main [data-entry-id]') !== null"


def piexport_tool(*extra: str, warm: bool = False) -> Tool:
    suffix = " ".join(extra)
    return Tool(
        f"piexport{' ' + suffix if suffix else ''}{' warm' if warm else ''}",
        lambda src, page: [
            sys.executable,
            "-m",
            "piexport",
            "render",
            str(src),
            "-o",
            str(page),
            *extra,
        ],
        PIEXPORT_READY,
        warm_cache if warm else cold_cache,
    )


def pi_tool(folder: Path, node: str) -> Tool:
    """pi's own ``--export``, through its package's ``bin`` (what the ``pi`` command runs)."""
    meta = json.loads((folder / "package.json").read_text())
    version = meta["version"]
    binary = meta["bin"]["pi"] if isinstance(meta["bin"], dict) else meta["bin"]
    need = re.match(r">=\s*(\d+)\.(\d+)", (meta.get("engines") or {}).get("node", ""))
    have = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    got = tuple(int(n) for n in re.findall(r"\d+", have.stdout)[:2])
    if need and got < (int(need[1]), int(need[2])):
        sys.exit(
            f"pi {version} needs Node {need[0]} and {node} is {have.stdout.strip()}: "
            "pass --node with a newer one (bench/README.md says how to install Node 22)"
        )
    home = CACHE / "pi-home"  # pi reads its settings from ~/.pi: none, the same for every run
    home.mkdir(parents=True, exist_ok=True)

    def prepare(src: Path, page: Path) -> Path:
        copy = page.with_suffix(".input.jsonl")  # pi may rewrite its input: give it a copy
        shutil.copy(src, copy)
        return copy

    return Tool(
        f"pi {version}",
        lambda src, page: [node, str(folder / binary), "--export", str(src), str(page)],
        "(() => { const m = document.getElementById('messages'); "
        "return m !== null && m.firstElementChild !== null; })()",
        lambda: {**os.environ, "HOME": str(home)},
        prepare,
        tuple(int(n) for n in re.findall(r"\d+", version)[:3]),
    )


def export_runs(tool: Tool, src: Path, page: Path, runs: int) -> Run:
    measured = []
    for _ in range(runs):
        page.unlink(missing_ok=True)
        source = tool.prepare(src, page)
        measured.append(whole(tool.command(source, page), tool.env()))
    return median_run(measured)


@dataclass(frozen=True, slots=True)
class Opened:
    seconds: float
    """Median time from navigation until the transcript shows (NaN when it never does)."""
    blank: bool
    dom_nodes: int
    reachable: int
    """piexport pages: entries in the DOM or waiting in a part's source (-1: not counted)."""


def open_in_chromium(page: Path, ready: str, opens: int, timeout_s: float = 300.0) -> Opened:
    """Open the page ``opens`` times, each in a fresh browser (no cache of an earlier open),
    until ``ready`` holds after the load event and two animation frames. A page whose
    transcript has not shown once it has loaded and its script has stopped (or after
    ``timeout_s``) is blank."""
    from playwright.sync_api import sync_playwright

    times, blank, nodes, reachable = [], False, 0, -1
    with sync_playwright() as p:
        for _ in range(opens):
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            start = time.perf_counter()
            tab.goto(page.as_uri(), wait_until="load", timeout=timeout_s * 1000)
            shown = tab.evaluate(
                f"""() => new Promise(done => {{
                    const ready = () => {ready};
                    const check = () => ready() ? done(true) : setTimeout(check, 5);
                    // two frames after load: what there is to see has been painted; a page
                    // whose script has finished by then and shows nothing stays blank
                    requestAnimationFrame(() => requestAnimationFrame(() =>
                        ready() ? done(true) : setTimeout(() => ready() ? done(true)
                            : done(false), 1000)));
                    check();
                }})"""
            )
            if shown:
                tab.evaluate(
                    "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
                )
            seconds = time.perf_counter() - start
            if shown:
                times.append(seconds)
            blank = blank or not shown
            nodes = tab.evaluate("document.getElementsByTagName('*').length")
            reachable = tab.evaluate(
                """() => {
                    const ids = new Set();
                    for (const el of document.querySelectorAll('main [data-entry-id]')) ids.add(el.id);
                    const re = /\\sid="([^"]*)"\\sdata-entry-id=/g;
                    for (const ns of document.querySelectorAll('main section.pending > noscript')) {
                        for (const m of ns.textContent.matchAll(re)) ids.add(m[1]);
                    }
                    return ids.size;
                }"""
            )
            browser.close()
            if blank:
                break  # a blank page stays blank
    return Opened(statistics.median(times) if times else float("nan"), blank, nodes, reachable)


def reach(name: str, found: int, entries: int) -> str:
    """'all' when every entry of the file is in the page (built or waiting), else the count."""
    if found < 0 or not name.startswith("piexport"):
        return "—"
    return "all" if found == entries else f"{found}/{entries}"


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    return whole(cmd, env).wall


def timed_cpu(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall time and CPU time (of the process and everything it waited for)."""
    r = whole(cmd, env)
    return r.wall, r.cpu


def timed_peak(
    cmd: list[str], env: dict[str, str] | None = None
) -> tuple[float, float, float, float]:
    """Wall time, CPU time, peak memory in MB (PSS of the process and its workers together,
    sampled), and the CPU seconds spent in the kernel."""
    r = whole(cmd, env)
    return r.wall, r.cpu, r.pss_mb, r.system


def export(src: Path, out: Path, *extra: str) -> dict[str, float]:
    """One export inside a process: its own time after interpreter start-up, and the run's
    figures (for the hostile corpus, where start-up would blur seconds per MB)."""
    proc = subprocess.run(
        [sys.executable, "-c", EXPORT, str(src), str(out), *extra],
        env=cold_cache(),
        cwd=CACHE,  # not the checkout: PYTHONPATH=<another checkout> must win over ./piexport
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"export failed: {proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"seconds": result["seconds"]}


def hostile(out_dir: Path) -> None:
    """Export each hostile file; print its time per MB and the slowest (a page's cost must
    grow linearly with its input: a superlinear path shows up as a large s/MB)."""
    sys.path.insert(0, str(HERE.parent))
    from tests.support import hostile_corpus, hostile_slow

    files = [(c.name, c.data) for c in hostile_corpus.cases() if not c.unusable]
    files += [(c.name, c.make()) for c in hostile_slow.cases()]
    folder = CACHE / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{'hostile file':<28}{'input KB':>10}{'export s':>10}{'page MB':>9}{'s/MB':>9}")
    rows = []
    for name, data in files:
        src = folder / f"{name}.jsonl"
        src.write_bytes(data)
        r = export(src, out_dir / f"hostile-{name}.html")
        rows.append((r["seconds"], len(data) / 1e6, name))
        page_mb = (out_dir / f"hostile-{name}.html").stat().st_size / 1e6
        per_mb = f"{r['seconds'] / (len(data) / 1e6):>9.1f}" if len(data) >= BIG else f"{'-':>9}"
        print(f"{name:<28}{len(data) / 1e3:>10.1f}{r['seconds']:>10.2f}{page_mb:>9.2f}{per_mb}")
    # s/MB means something for files of some size; a tiny file's time is start-up and
    # fixed costs, reported as seconds beyond the quickest file
    rate, _, name = max((s / mb, mb, n) for s, mb, n in rows if mb * 1e6 >= BIG)
    base = min(s for s, _, _ in rows)
    extra, _, small = max((s - base, mb, n) for s, mb, n in rows if mb * 1e6 < BIG)
    print(
        f"slowest page per MB (files of {BIG // 1000} KB or more): {name} at {rate:.1f} s/MB; "
        f"slowest small file: {small}, {extra:.2f} s beyond the quickest ({len(rows)} files)"
    )


def startup() -> None:
    """Best of 10 wall times (interpreter included) of ``--version`` and of ``info`` on a
    small session: what every command pays before it does anything."""
    for label, args in (("--version", ["--version"]), ("info", ["info", str(SAMPLE)])):
        runs = [whole([sys.executable, "-m", "piexport", *args]) for _ in range(10)]
        best = min(runs, key=lambda r: r.wall)
        print(f"start-up: piexport {label} {best.wall:.3f} s, {best.cpu:.3f} CPU s (best of 10)")


BIG = 50_000
"""Files at least this big get a seconds-per-MB figure."""


def cases(args: argparse.Namespace) -> list[tuple[str, Path]]:
    found = [("sample", SAMPLE)] if args.sample else []
    found += [
        (f"{size // 1000}k" if size % 1000 == 0 else str(size), session_file(size))
        for size in args.sizes
    ]
    found += [(f"real-{seed}", real_file(seed)) for seed in range(1, args.real + 1)]
    return found


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b and b == b and a == a else "—"


def _s(x: float) -> str:
    return f"{x:.2f} s" if x == x else "—"


def summary(rows: list[dict[str, object]], ref: str | None, others: list[str]) -> None:
    """The table the issue asks for, in Markdown: piexport against the newest pi, the
    others as columns of their own."""
    print()
    head = ["session", "input MB"]
    if ref:
        head += [
            f"{ref} export",
            "piexport export",
            "ratio",
            f"{ref} usable",
            "piexport usable",
            "ratio",
        ]
    else:
        head += ["piexport export", "piexport usable"]
    head += ["piexport CPU s", "piexport peak MB"]
    if ref:
        head += [f"{ref} peak MB"]
    for o in others:
        head += [f"{o} export", f"{o} usable"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for row in rows:
        tools: dict[str, dict[str, float]] = row["tools"]  # type: ignore[assignment]
        ours = tools["piexport"]
        cells = [str(row["case"]), f"{row['input_mb']:.2f}"]
        if ref:
            pi = tools[ref]
            cells += [
                _s(pi["wall"]),
                _s(ours["wall"]),
                _ratio(ours["wall"], pi["wall"]),
                _s(pi["usable"]) if not pi["blank"] else "blank",
                _s(ours["usable"]),
                _ratio(ours["usable"], pi["usable"]) if not pi["blank"] else "—",
            ]
        else:
            cells += [_s(ours["wall"]), _s(ours["usable"])]
        cells += [f"{ours['cpu']:.2f}", f"{max(ours['rss_mb'], ours['pss_mb']):.0f}"]
        if ref:
            cells += [f"{tools[ref]['rss_mb']:.0f}"]
        for o in others:
            t = tools[o]
            cells += [_s(t["wall"]), "blank" if t["blank"] else _s(t["usable"])]
        print("| " + " | ".join(cells) + " |")
    print(
        "\nexport: median of whole processes; usable: export + Chromium until the transcript "
        "shows (median of opens); peak: the larger of the biggest process's max RSS and the "
        "sampled PSS of all its processes; ratios: piexport / " + (ref or "—")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 20000])
    parser.add_argument(
        "--real", type=int, default=1, help="real-shaped 3-4 MB sessions to export (0: none)"
    )
    parser.add_argument("--no-sample", dest="sample", action="store_false")
    parser.add_argument(
        "--pi",
        type=Path,
        action="append",
        default=[],
        help="folder of an installed pi (@earendil-works/pi-coding-agent or "
        "@mariozechner/pi-coding-agent); give it again for another version",
    )
    parser.add_argument("--node", default="node", help="the node binary that runs every pi")
    parser.add_argument("--runs", type=int, default=3, help="whole processes per export")
    parser.add_argument("--opens", type=int, default=3, help="Chromium opens per page")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-startup", action="store_true")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-archive", action="store_true")
    parser.add_argument("--warm", action="store_true", help="also export with a warm colour cache")
    parser.add_argument(
        "--redact", action="store_true", help="also export each session with --redact"
    )
    parser.add_argument(
        "--hostile", action="store_true", help="export the hostile corpora; seconds per MB"
    )
    args = parser.parse_args()
    out_dir = CACHE / "out"
    out_dir.mkdir(parents=True, exist_ok=True)
    bytecode()
    if args.hostile:
        hostile(out_dir)
    if not args.no_startup:
        startup()

    tools = [piexport_tool()]
    if args.warm:
        tools.append(piexport_tool(warm=True))
    if args.redact:
        tools.append(piexport_tool("--redact"))
    pis = sorted((pi_tool(folder, args.node) for folder in args.pi), key=lambda t: t.version)
    tools += pis[::-1]
    ref = pis[-1].name if pis else None

    print(
        f"{'case':<26}{'input MB':>9}{'export s':>9}{'cpu s':>7}{'MB/s':>7}{'peak MB':>9}"
        f"{'PSS MB':>8}{'page MB':>9}{'open s':>8}{'usable s':>9}{'DOM nodes':>11}{'reachable':>11}"
    )
    rows: list[dict[str, object]] = []
    for label, src in cases(args):
        mb = src.stat().st_size / 1e6
        entries = sum(1 for _ in src.open("rb")) - 1  # the header is line 1
        figures: dict[str, dict[str, float]] = {}
        for tool in tools:
            page = out_dir / f"{re.sub(r'[^A-Za-z0-9.]+', '-', tool.name)}-{label}.html"
            if tool.name.endswith("warm"):  # what a cold export leaves in the cache
                whole(piexport_tool().command(src, page), cold_cache())
            r = export_runs(tool, src, page, args.runs)
            opened = Opened(float("nan"), False, 0, -1)
            if not args.no_browser and page.exists() and not tool.name.endswith("warm"):
                opened = open_in_chromium(page, tool.ready, args.opens)
            usable = r.wall + opened.seconds
            page_mb = page.stat().st_size / 1e6 if page.exists() else float("nan")
            shown = "blank" if opened.blank else f"{opened.seconds:.2f}"
            print(
                f"{tool.name + ' ' + label:<26}{mb:>9.2f}{r.wall:>9.2f}{r.cpu:>7.2f}{mb / r.wall:>7.1f}"
                f"{r.rss_mb:>9.0f}{r.pss_mb:>8.0f}{page_mb:>9.1f}{shown:>8}"
                f"{'blank' if opened.blank else f'{usable:.2f}':>9}{opened.dom_nodes:>11}"
                f"{reach(tool.name, opened.reachable, entries):>11}",
                flush=True,
            )
            figures[tool.name] = {
                **asdict(r),
                "open": opened.seconds,
                "usable": usable,
                "blank": opened.blank,
                "page_mb": page_mb,
            }
        rows.append({"case": label, "input_mb": mb, "entries": entries, "tools": figures})
    summary(rows, ref, [t.name for t in pis[:-1]])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))

    if not args.no_archive:
        root = CACHE / f"archive-g{GENERATOR}"
        if not root.exists():
            make_archive(root)
        site = out_dir / "site"
        shutil.rmtree(site, ignore_errors=True)
        cli = [sys.executable, "-m", "piexport", "site", str(root), "-o", str(site), "-q"]
        mb = sum(p.stat().st_size for p in root.rglob("*.jsonl")) / 1e6
        first, first_cpu, first_mb, first_sys = timed_peak(cli, cold_cache())
        again = timed(cli, warm_cache())
        forced, forced_cpu = timed_cpu([*cli, "--force"], warm_cache())
        bare = timed([sys.executable, "-c", "import piexport.cli"])
        print(
            f"archive 500 sessions / 20 projects, {mb:.0f} MB: first build {first:.2f} s "
            f"({mb / first:.1f} MB/s, {first_cpu:.0f} CPU s of which {first_sys:.0f} in the "
            f"kernel, peak {first_mb:.0f} MB), "
            f"no-change rebuild {again:.2f} s "
            f"(interpreter + import alone {bare:.2f} s), --force rebuild with the colour cache "
            f"warm {forced:.2f} s ({mb / forced:.1f} MB/s, {forced_cpu:.0f} CPU s)"
        )


if __name__ == "__main__":
    main()
