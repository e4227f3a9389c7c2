"""Time what issue 16 adds to a page and a site build, on a 20,000-entry synthetic session.

    .venv/bin/python bench/charts.py [ENTRIES]

Prints the context chart's size (bars, SVG elements) and the time of the context chart, the
Files list and the per-session usage the site keeps in its manifest. Printed, never asserted.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from make_sessions import make_session

from piexport.page.charts import context_chart
from piexport.page.render import make_env
from piexport.page.view import build_view
from piexport.read.loader import load_session
from piexport.report.files import files_touched
from piexport.report.usage import session_usage


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        path.write_bytes(make_session(entries))
        session = load_session(path)
        view = build_view(session)
        t0 = time.perf_counter()
        chart = context_chart(view)
        t1 = time.perf_counter()
        files = files_touched(session)
        t2 = time.perf_counter()
        session_usage(session)
        t3 = time.perf_counter()
        html = str(make_env().get_template("macros/charts.html.j2").module.chart(chart))
        t4 = time.perf_counter()
    assert chart is not None
    print(
        f"{len(session.entries)} entries: context chart {1000 * (t1 - t0):.0f} ms, "
        f"{len(chart.bars)} bars, {chart.svg_elements} SVG elements, {len(html) / 1000:.0f} kB "
        f"({1000 * (t4 - t3):.0f} ms to write); files {1000 * (t2 - t1):.0f} ms "
        f"({len(files)} files, {sum(len(f.changes) for f in files)} changes); "
        f"site usage {1000 * (t3 - t2):.0f} ms"
    )


if __name__ == "__main__":
    main()
