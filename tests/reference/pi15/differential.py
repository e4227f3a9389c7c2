"""Compare piexport with pi 1.5 on sessions pi wrote (random_corpus.mjs) and pi judged
(reference.mjs): the context, the source entries and the prompt in force on every leaf, and the
session totals of every file. Prints each difference; exits 1 if there is any.

    node tests/reference/pi15/random_corpus.mjs PI /tmp/rand 7 300
    node22 tests/reference/pi15/reference.mjs PI /tmp/rand/--random--/*.jsonl > /tmp/rand.json
    .venv/bin/python tests/reference/pi15/differential.py /tmp/rand.json
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from piexport import build_session_context, load_session
from piexport.read.context import projection
from piexport.read.jsonutil import dumps
from piexport.read.system import current_system
from piexport.report.stats import file_figures


def main() -> int:
    expected = json.loads(Path(sys.argv[1]).read_text())
    problems = leaves = 0
    for item in expected:
        session = load_session(Path(item["file"]))
        wanted = [(None, item["defaultLeaf"]), *((x["id"], x) for x in item["leaves"])]
        for leaf, want in wanted:
            leaves += 1
            ctx = json.loads(dumps(build_session_context(session, leaf)))
            sources = [p.entry.id for p in projection(session, leaf) for _ in p.messages]
            system = json.loads(dumps(current_system(ctx["messages"]).as_message()))
            for what, got, exp in (
                ("context", ctx, want["context"]),
                ("sources", sources, want["sources"]),
                ("system", system, want["system"]),
            ):
                if got != exp:
                    problems += 1
                    print(f"{item['file']} leaf {leaf}: {what} differs")
        f, t = file_figures(session), item["totals"]
        four = {k: f.tokens[k] for k in ("input", "output", "cacheRead", "cacheWrite", "total")}
        if four != t["tokens"] or not math.isclose(f.cost, t["cost"], rel_tol=1e-9, abs_tol=1e-12):
            problems += 1
            print(f"{item['file']}: totals differ: {four} ${f.cost} vs {t['tokens']} ${t['cost']}")
    print(f"{len(expected)} files, {leaves} leaves: {problems} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
