"""Archive search benchmark: prints figures, asserts nothing (the targets are issue #15's).

    .venv/bin/python bench/search.py [--sessions N | --size-mb MB] [--repeats 20]
                                     [--no-browser] [--lunr [--lunr-sessions N]]

On the bench archive (``make_archive``: 500 sessions in 20 projects, about 200 MB; with
``--sessions``/``--size-mb`` a bigger one, made once into bench/.cache):

- index size as a share of the input: ``search/`` (what the site ships) and
  ``.piexport-search/`` (the per-session parts a rebuild merges), apart and together;
- the time the index adds to a first site build: ``piexport site`` against
  ``piexport site --no-search`` on the same archive, each with an empty colour cache;
- a no-change rebuild, beside start-up (``piexport --version``);
- query latency in Debian's Chromium from file://, measured in the page (search.js sets
  ``data-search-ms`` on <html> when a query's first page of results is drawn, and
  ``data-search-screen-ms`` when its first screen, two sessions, was): cold, the query in
  ``?q=`` of a freshly opened page in a new browser context (loading meta, entries, shards
  and texts included; the median of ``--cold`` such runs, first screen and first page);
  warm, the same query typed again ``--repeats`` times.

With ``--lunr``, the same records (read back from the built index) go into a lunr.py index
serialised for lunr.js, on the first ``--lunr-sessions`` sessions (lunr.py is pure Python and
slow): its size and build time beside ours for those sessions, and the time Chromium needs to
load and deserialise it before the first query. lunr (PyPI) is installed into the venv for this
run only and lunr.js is fetched from npm into /tmp: neither is a dependency of piexport.

Targets (500 sessions): index ≤ 35% of the input, ≤ 25% added to a first build, a no-change
rebuild < 1 s beyond start-up, a cold query ≤ 300 ms, a warm one ≤ 50 ms at p95.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
sys.path.insert(0, str(HERE))

from make_sessions import GENERATOR, make_archive  # noqa: E402
from run import ARGS, timed  # noqa: E402

QUERIES = [
    ("1 word", "coupon"),
    ("3 words", "cart total checkout"),
    ("phrase", '"coupon checkout"'),
    ("filtered", "tool:bash pytest"),
    ("rare word", "checkpoint"),
    ("number", "00042"),  # every [000nn] line number shares one big term shard
]
MB_PER_SESSION = 0.386
"""make_archive's average session size (500 sessions ≈ 193 MB): --size-mb → sessions."""


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def archive(sessions: int) -> Path:
    suffix = "" if sessions == 500 else f"-n{sessions}"
    root = CACHE / f"archive-g{GENERATOR}{suffix}"
    done = root / ".complete"
    if not done.exists():
        shutil.rmtree(root, ignore_errors=True)
        start = time.perf_counter()
        make_archive(root, sessions=sessions)
        done.write_text("")
        print(f"made {root.name}: {sessions} sessions in {time.perf_counter() - start:.0f} s")
    return root


def site_cmd(root: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "piexport", "site", str(root), "-o", str(out), "-q", *extra]


def builds(root: Path, out: Path, plain: bool = True) -> dict[str, float]:
    for f in root.rglob("*.jsonl"):  # the same page cache for both builds
        f.read_bytes()
    bare = out.with_name(out.name + "-nosearch")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(bare, ignore_errors=True)
    # each first build starts with an empty colour cache of its own, as a user's first
    # build does: with a warm one, pages cost a fraction and the index looks dear
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        cold = [{**os.environ, "PIEXPORT_CACHE_DIR": d} for d in (a, b)]
        without = timed(site_cmd(root, bare, "--no-search"), cold[0]) if plain else float("nan")
        first = timed(site_cmd(root, out), cold[1])
    again = min(timed(site_cmd(root, out)) for _ in range(3))
    startup = min(timed([sys.executable, "-m", "piexport", "--version"]) for _ in range(3))
    shutil.rmtree(bare, ignore_errors=True)
    return {"plain": without, "first": first, "again": again, "startup": startup}


def sizes(root: Path, out: Path) -> None:
    given = sum(f.stat().st_size for f in root.rglob("*.jsonl"))
    search, parts = folder_bytes(out / "search"), folder_bytes(out / ".piexport-search")
    from piexport.search.index import read_script

    _, (meta,) = read_script(out / "search" / "meta.js")
    print(
        f"input {given / 1e6:.1f} MB in {len(meta['sessions'])} sessions, "
        f"{meta['records']} records, {meta['shards']} term shards"
    )
    for name, n in [
        ("search/ (shipped)", search),
        ("  meta.js", (out / "search" / "meta.js").stat().st_size),
        ("  entries.js", (out / "search" / "entries.js").stat().st_size),
        ("  t/ (terms)", folder_bytes(out / "search" / "t")),
        ("  d/ (texts)", folder_bytes(out / "search" / "d")),
        (".piexport-search/ (parts)", parts),
        ("together", search + parts),
    ]:
        print(f"  {name:<28}{n / 1e6:>9.1f} MB {100 * n / given:>6.1f}% of the input")
    largest = max((out / "search" / "t").glob("*.js"), key=lambda f: f.stat().st_size)
    print(f"  largest term shard {largest.stat().st_size / 1e3:.0f} KB")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _until_done(tab: object, n: int) -> float:
    tab.wait_for_function(  # type: ignore[attr-defined]
        "(n) => document.documentElement.dataset.searchDone === n", arg=str(n), timeout=120_000
    )
    return float(tab.evaluate("document.documentElement.dataset.searchMs"))  # type: ignore[attr-defined]


def _screen(tab: object) -> float:
    """The last query's time until its first screen (two sessions) was drawn (NaN for a
    page from before search.js timed it)."""
    ms = tab.evaluate("document.documentElement.dataset.searchScreenMs")  # type: ignore[attr-defined]
    return float(ms) if ms else float("nan")


def latency(out: Path, repeats: int, cold_runs: int = 1) -> None:
    from playwright.sync_api import sync_playwright

    page = (out / "search.html").as_uri()
    print(
        f"{'query':<12}{'text':<24}{'screen':>8}{'cold ms':>9}{'(since nav)':>12}"
        f"{'warm p50':>10}{'warm p95':>10}  status"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for name, text in QUERIES:
            colds, sinces, screens = [], [], []
            context = None
            for _ in range(max(1, cold_runs)):  # a new context each time: nothing cached
                if context is not None:
                    context.close()
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                tab = context.new_page()
                tab.goto(page + "?q=" + quote(text))
                colds.append(_until_done(tab, 1))
                screens.append(_screen(tab))
                sinces.append(tab.evaluate("performance.now()"))
            cold, since = statistics.median(colds), statistics.median(sinces)
            screen = statistics.median(screens)
            warm = []
            for i in range(repeats):
                tab.fill("#search-box", text)
                tab.press("#search-box", "Enter")
                warm.append(_until_done(tab, i + 2))
            status = tab.inner_text("#search-status")
            context.close()
            print(
                f"{name:<12}{text:<24}{screen:>8.1f}{cold:>9.1f}{since:>12.1f}{statistics.median(warm):>10.1f}"
                f"{pct(warm, 95):>10.1f}  {status}"
            )
        browser.close()


# ---- lunr, once, for the comparison the issue asks for (never a dependency) -------------
LUNR_PAGE = """<!doctype html><meta charset="utf-8"><title>lunr load</title>
<script src="lunr.js"></script>
<script>var t0 = performance.now();</script>
<script src="lunr-index.js"></script>
<script>
var t1 = performance.now();
var idx = lunr.Index.load(LUNR_INDEX);
var t2 = performance.now();
var hits = idx.search("coupon");
var t3 = performance.now();
document.title = JSON.stringify({parse: t1 - t0, load: t2 - t1, query: t3 - t2, hits: hits.length});
</script>"""


FIRST = 'first query "coupon" (ms)'


def lunr_js() -> Path:
    folder = Path("/tmp/piexport-bench-lunr")
    js = folder / "node_modules" / "lunr" / "lunr.js"
    if not js.exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--silent", "--no-save", "--prefix", str(folder), "lunr@2.3.9"],
            check=True,
        )
    return js


def ours_in_process(root: Path) -> float:
    """Seconds our index takes for these sessions, loading them left out (as for lunr.py)."""
    from piexport import load_session
    from piexport.search.index import IndexedSession, build_index, write_session_index
    from piexport.search.records import FIELDS

    out = CACHE / "out" / "lunr-ours"
    shutil.rmtree(out, ignore_errors=True)
    loaded = [(f"{f.parent.name}/{f.stem}.html", load_session(f)) for f in root.rglob("*.jsonl")]
    start = time.perf_counter()
    for page, session in loaded:
        write_session_index(session, out, page)
    build_index(out, [IndexedSession(p, "", "", None) for p, _ in loaded], FIELDS)
    return time.perf_counter() - start


def lunr_compare(root: Path, sessions: int) -> None:
    try:
        import lunr  # type: ignore[import-not-found]
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "lunr==0.8.0"], check=True)
        import lunr  # type: ignore[import-not-found]
    from piexport.search.local import _site

    sub = CACHE / f"lunr-archive-{sessions}"
    if not sub.exists():  # the first N session files, linked, in their project folders
        for f in sorted(root.rglob("*.jsonl"), key=lambda f: f.name)[:sessions]:
            (sub / f.parent.name).mkdir(parents=True, exist_ok=True)
            os.symlink(f, sub / f.parent.name / f.name)
    out = CACHE / "out" / f"lunr-site-{sessions}"
    given = sum(f.stat().st_size for f in sub.rglob("*.jsonl"))
    builds(sub, out)
    ours = folder_bytes(out / "search")
    indexed = ours_in_process(sub)
    docs = [
        {"id": f"{n}", "text": row["text"]}
        for n, row in enumerate(r for _, _, rows in _site(out) for r in rows)
    ]
    start = time.perf_counter()
    idx = lunr.lunr(ref="id", fields=["text"], documents=docs)
    built = time.perf_counter() - start
    start = time.perf_counter()
    body = json.dumps(idx.serialize(), separators=(",", ":"))
    dumped = time.perf_counter() - start
    page_dir = Path("/tmp/piexport-bench-lunr/page")
    page_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(lunr_js(), page_dir / "lunr.js")
    (page_dir / "lunr-index.js").write_text("var LUNR_INDEX = " + body + ";\n")
    (page_dir / "index.html").write_text(LUNR_PAGE)
    lunr_bytes = (page_dir / "lunr-index.js").stat().st_size

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        tab = browser.new_page()
        start = time.perf_counter()
        tab.goto((page_dir / "index.html").as_uri(), timeout=600_000)
        tab.wait_for_function("document.title.startsWith('{')", timeout=600_000)
        wall = time.perf_counter() - start
        figures = json.loads(tab.title())
        cold_ours = []
        for _ in range(3):
            context = browser.new_context()
            t = context.new_page()
            t.goto((out / "search.html").as_uri() + "?q=coupon")
            cold_ours.append(_until_done(t, 1))
            context.close()
        browser.close()
    print(f"lunr comparison on {sessions} sessions ({given / 1e6:.1f} MB, {len(docs)} records):")
    print(f"  {'':<34}{'piexport':>14}{'lunr':>14}")
    print(
        f"  {'index size (MB, % of input)':<34}"
        f"{f'{ours / 1e6:.1f} ({100 * ours / given:.0f}%)':>14}"
        f"{f'{lunr_bytes / 1e6:.1f} ({100 * lunr_bytes / given:.0f}%)':>14}"
    )
    print(
        f"  {'index build (s)':<34}{indexed:>14.2f}{built + dumped:>14.2f}"
        f"   (ours: records, terms, parts and merge, in one process; lunr.py: index"
        f" {built:.1f} + serialise {dumped:.1f}; sessions already loaded for both)"
    )
    print(
        f"  {'Chromium, before the first query':<34}{'-':>14}"
        f"{figures['parse'] + figures['load']:>12.0f}ms"
        f"   (lunr: script parse {figures['parse']:.0f} ms + Index.load {figures['load']:.0f} ms;"
        f" page load {wall:.1f} s)"
    )
    print(
        f"  {FIRST:<34}{min(cold_ours):>14.1f}{figures['query']:>14.1f}"
        f"   (ours: cold, loads included; lunr: after load, {figures['hits']} hits)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--sessions", type=int, default=500)
    size.add_argument("--size-mb", type=float, help="an archive of about this many MB")
    parser.add_argument("--repeats", type=int, default=20, help="warm queries per query")
    parser.add_argument(
        "--cold", type=int, default=1, help="cold runs per query (the median is printed)"
    )
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-build", action="store_true", help="reuse the last built site")
    parser.add_argument(
        "--no-plain", action="store_true", help="skip the --no-search build (big archives)"
    )
    parser.add_argument("--lunr", action="store_true", help="also measure lunr.py + lunr.js")
    parser.add_argument("--lunr-sessions", type=int, default=50)
    args = parser.parse_args()
    sessions = round(args.size_mb / MB_PER_SESSION) if args.size_mb else args.sessions
    root = archive(sessions)
    out = CACHE / "out" / f"search-site-{sessions}"
    if not args.no_build:
        b = builds(root, out, plain=not args.no_plain)
        added = b["first"] - b["plain"]
        print(
            f"first build {b['first']:.2f} s, --no-search {b['plain']:.2f} s: the index adds "
            f"{added:.2f} s ({100 * added / b['plain']:.1f}%)"
        )
        print(
            f"no-change rebuild {b['again']:.2f} s (best of 3); start-up (--version) "
            f"{b['startup']:.2f} s; beyond start-up {b['again'] - b['startup']:.2f} s"
        )
    sizes(root, out)
    if not args.no_browser:
        latency(out, args.repeats, args.cold)
    if args.lunr:
        lunr_compare(root, args.lunr_sessions)


if __name__ == "__main__":
    main()
