"""piexport benchmark: prints figures, asserts nothing (targets live in the notes, not in tests).

    .venv/bin/python bench/run.py [--sizes 2000 20000 100000] [--real 3] [--pi PATH]
                                  [--no-browser] [--no-archive] [--no-startup] [--redact]
                                  [--hostile]

Per session size: export wall time, CPU time, MB/s, peak memory (PSS of the exporting
process and the workers it forks, sampled; for pi, the max RSS of its one process), page
size, and the time Debian's Chromium needs until the page is usable (load event plus two
animation frames) with its DOM node count. Then a 500-session archive: first site build and a
no-change rebuild. ``--real N`` adds N real-shaped sessions of 3-4 MB (many small turns, long
reads of source files read again, long bash logs: make_sessions.make_real_session). The start-up
figure is the best of 10 wall times of ``piexport --version`` and of ``piexport info`` on a
small session. With --pi (the folder of an installed @mariozechner/pi-coding-agent), pi's
own `--export` runs on the same files, so ratios come from one run. Inputs are generated
deterministically into bench/.cache (reused between runs). To measure another version of
piexport with the same script, put its checkout first: PYTHONPATH=/path/to/checkout.

With --hostile, every file of the test suite's hostile corpora (tests/hostile_corpus.py for
malformed files, tests/hostile_slow.py for time and memory) is exported too, and the seconds
per MB of input of each, and of the slowest, are printed: the cost of a page must stay linear.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
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

EXPORT = """
import json, sys, time
from pathlib import Path
t = time.perf_counter()
from piexport import Redactor
from piexport.page.export import export_session
redactor = Redactor.create() if sys.argv[3:] == ["--redact"] else None
export_session(Path(sys.argv[1]), Path(sys.argv[2]), redactor=redactor)
print(json.dumps({"seconds": time.perf_counter() - t}))
"""
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


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


def cold_cache() -> dict[str, str]:
    """An environment whose colour cache is empty."""
    shutil.rmtree(COLOUR_CACHE, ignore_errors=True)
    COLOUR_CACHE.mkdir(parents=True)
    return warm_cache()


def warm_cache() -> dict[str, str]:
    return {**os.environ, "PIEXPORT_CACHE_DIR": str(COLOUR_CACHE)}


def export(src: Path, out: Path, *extra: str, warm: bool = False) -> dict[str, float]:
    """Wall time (after interpreter start-up), CPU time of every process it used, and peak
    memory: all its processes together, sampled every 100 ms. Cold colour cache unless
    ``warm`` (then: what the exports before it left)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(
        [sys.executable, "-c", EXPORT, str(src), str(out), *extra],
        env=warm_cache() if warm else cold_cache(),
        cwd=CACHE,  # not the checkout: PYTHONPATH=<another checkout> must win over ./piexport
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _pss_kb(proc.pid))
        time.sleep(0.1)
    stdout, stderr = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"export failed: {stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result = json.loads(stdout.strip().splitlines()[-1])
    return {"seconds": result["seconds"], "cpu": cpu, "rss_mb": peak / 1024}


def pi_export(pi: Path, src: Path, out: Path) -> dict[str, float]:
    copy = out.with_suffix(".input.jsonl")  # pi may rewrite its input: give it a copy
    shutil.copy(src, copy)
    start = time.perf_counter()
    done = subprocess.run(
        [
            "/usr/bin/time",
            "-f",
            "%M %U %S",
            "node",
            str(pi / "dist" / "cli.js"),
            "--export",
            str(copy),
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    rss = cpu = float("nan")
    if done.returncode == 0:
        kb, user, system = done.stderr.strip().splitlines()[-1].split()
        rss, cpu = float(kb) / 1024, float(user) + float(system)
    return {"seconds": seconds, "cpu": cpu, "rss_mb": rss}


def open_in_chromium(page: Path) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 900})
        start = time.perf_counter()
        tab.goto(page.as_uri(), wait_until="load", timeout=600_000)
        tab.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        seconds = time.perf_counter() - start
        nodes = tab.evaluate("document.getElementsByTagName('*').length")
        # every entry must be reachable: built already, or waiting in a part's source
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
    return {"open_s": seconds, "dom_nodes": nodes, "reachable": reachable}


def reach(name: str, found: int, entries: int) -> str:
    """'all' when every entry of the file is in the page (built or waiting), else the count."""
    if found < 0 or not name.startswith("piexport"):
        return "—"
    return "all" if found == entries else f"{found}/{entries}"


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    return timed_cpu(cmd, env)[0]


def timed_cpu(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall time and CPU time (of the process and everything it waited for)."""
    wall, cpu, _peak = timed_peak(cmd, env)
    return wall, cpu


def timed_peak(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall time, CPU time, and peak memory in MB (PSS of the process and its workers
    together, sampled every 100 ms)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=CACHE, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)
    reader.start()  # a full stderr pipe must never stall the run being timed
    peak, sampled = 0, 0.0
    while proc.poll() is None:  # polled every 2 ms: a 0.1 s sleep made short runs 0.1 s
        if time.perf_counter() - sampled >= 0.1:
            peak = max(peak, _pss_kb(proc.pid))
            sampled = time.perf_counter()
        time.sleep(0.002)
    wall = time.perf_counter() - start
    reader.join()
    if proc.returncode != 0:  # a figure from a failed run would be a lie
        sys.exit(f"failed: {' '.join(cmd)}\n{''.join(errors)[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak / 1024


def hostile(out_dir: Path) -> None:
    """Export each hostile file; print its time per MB and the slowest (a page's cost must
    grow linearly with its input: a superlinear path shows up as a large s/MB)."""
    sys.path.insert(0, str(HERE.parent))
    from tests import hostile_corpus, hostile_slow

    files = [(c.name, c.data) for c in hostile_corpus.cases() if not c.unusable]
    files += [(c.name, c.make()) for c in hostile_slow.cases()]
    folder = CACHE / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"{'hostile file':<28}{'input KB':>10}{'export s':>10}{'peak MB':>9}{'page MB':>9}{'s/MB':>9}"
    )
    rows = []
    for name, data in files:
        src = folder / f"{name}.jsonl"
        src.write_bytes(data)
        r = export(src, out_dir / f"hostile-{name}.html")
        rows.append((r["seconds"], len(data) / 1e6, name))
        page_mb = (out_dir / f"hostile-{name}.html").stat().st_size / 1e6
        per_mb = f"{r['seconds'] / (len(data) / 1e6):>9.1f}" if len(data) >= BIG else f"{'-':>9}"
        print(
            f"{name:<28}{len(data) / 1e3:>10.1f}{r['seconds']:>10.2f}{r['rss_mb']:>9.0f}{page_mb:>9.2f}{per_mb}"
        )
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
    sample = next((HERE.parent / "sample_sessions").rglob("*.jsonl"))
    for label, args in (("--version", ["--version"]), ("info", ["info", str(sample)])):
        best = min(timed([sys.executable, "-m", "piexport", *args]) for _ in range(10))
        print(f"start-up: piexport {label} {best:.3f} s (best of 10)")


BIG = 50_000
"""Files at least this big get a seconds-per-MB figure."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 20000, 100000])
    parser.add_argument(
        "--real", type=int, default=3, help="real-shaped 3-4 MB sessions to export (0: none)"
    )
    parser.add_argument("--no-startup", action="store_true")
    parser.add_argument("--pi", type=Path, help="folder of @mariozechner/pi-coding-agent")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-archive", action="store_true")
    parser.add_argument(
        "--redact", action="store_true", help="also export each session with --redact"
    )
    parser.add_argument(
        "--hostile", action="store_true", help="export the hostile corpora; seconds per MB"
    )
    args = parser.parse_args()
    out_dir = CACHE / "out"
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.hostile:
        hostile(out_dir)
    if not args.no_startup:
        startup()

    print(
        f"{'case':<22}{'input MB':>9}{'export s':>9}{'cpu s':>7}{'MB/s':>7}{'peak MB':>9}{'page MB':>9}{'open s':>8}{'DOM nodes':>11}{'reachable':>11}"
    )
    inputs = [(str(size), session_file(size)) for size in args.sizes]
    inputs += [(f"real-{seed}", real_file(seed)) for seed in range(1, args.real + 1)]
    for size, src in inputs:
        mb = src.stat().st_size / 1e6
        entries = sum(1 for _ in src.open("rb")) - 1  # the header is line 1
        tools = [
            ("piexport", lambda s, o: export(s, o)),
            ("piexport warm", lambda s, o: export(s, o, warm=True)),
        ]
        if args.redact:
            tools.append(("piexport --redact", lambda s, o: export(s, o, "--redact")))
        if args.pi:
            tools.append(("pi --export", lambda s, o: pi_export(args.pi, s, o)))
        figures: dict[str, dict[str, float]] = {}
        for name, run in tools:
            page = out_dir / f"{name.replace(' --', '-').split()[0]}-{size}.html"
            r = run(src, page)
            opened = {"open_s": float("nan"), "dom_nodes": 0, "reachable": -1}
            if not args.no_browser and page.exists() and "warm" not in name:
                opened = open_in_chromium(page)
            page_mb = page.stat().st_size / 1e6 if page.exists() else float("nan")
            print(
                f"{name + ' ' + str(size):<22}{mb:>9.1f}{r['seconds']:>9.2f}{r['cpu']:>7.1f}{mb / r['seconds']:>7.1f}"
                f"{r['rss_mb']:>9.0f}{page_mb:>9.1f}{opened['open_s']:>8.2f}{opened['dom_nodes']:>11}"
                f"{reach(name, opened['reachable'], entries):>11}"
            )
            figures[name] = {**r, "open_s": opened["open_s"]}
        if "pi --export" in figures:
            ours, pi = figures["piexport"], figures["pi --export"]
            print(
                f"{'  piexport / pi':<22}{'':>9}{ours['seconds'] / pi['seconds']:>9.2f}"
                f"{ours['cpu'] / pi['cpu']:>7.2f}{'':>7}{ours['rss_mb'] / pi['rss_mb']:>9.2f}{'':>9}"
                f"{ours['open_s'] / pi['open_s']:>8.2f}  (ratios; usable = export + open: "
                f"{(ours['seconds'] + ours['open_s']) / (pi['seconds'] + pi['open_s']):.2f}; "
                f"warm export {figures['piexport warm']['seconds'] / pi['seconds']:.2f})"
            )

    if not args.no_archive:
        root = CACHE / f"archive-g{GENERATOR}"
        if not root.exists():
            make_archive(root)
        site = out_dir / "site"
        shutil.rmtree(site, ignore_errors=True)
        cli = [sys.executable, "-m", "piexport", "site", str(root), "-o", str(site), "-q"]
        mb = sum(p.stat().st_size for p in root.rglob("*.jsonl")) / 1e6
        first, first_cpu, first_mb = timed_peak(cli, cold_cache())
        again = timed(cli, warm_cache())
        forced, forced_cpu = timed_cpu([*cli, "--force"], warm_cache())
        bare = timed([sys.executable, "-c", "import piexport.cli"])
        print(
            f"archive 500 sessions / 20 projects, {mb:.0f} MB: first build {first:.2f} s "
            f"({mb / first:.1f} MB/s, {first_cpu:.0f} CPU s, peak {first_mb:.0f} MB), "
            f"no-change rebuild {again:.2f} s "
            f"(interpreter + import alone {bare:.2f} s), --force rebuild with the colour cache "
            f"warm {forced:.2f} s ({mb / forced:.1f} MB/s, {forced_cpu:.0f} CPU s)"
        )


if __name__ == "__main__":
    main()
