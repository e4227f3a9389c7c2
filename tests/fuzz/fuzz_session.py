"""atheris fuzz target: any bytes → loader → page, and nothing but InputError may escape.

    python tests/fuzz/fuzz_session.py -max_total_time=3600 tests/fuzz/corpus

Seeds: the sample sessions and the hostile corpus (written to the corpus folder on first
run). A crash input is saved by libFuzzer as crash-<hash>; keep it under tests/fuzz/crashes/
and it is replayed by the suite from then on.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from piexport import InputError, load_session
    from piexport.page.render import render_session
    from piexport.page.view import build_view

HERE = Path(__file__).resolve().parent


def check(data: bytes) -> None:
    """The property: a page or an InputError, never anything else."""
    try:
        session = load_session(io.BytesIO(data), name="fuzz.jsonl")
    except InputError:
        return
    render_session(build_view(session))


def seed(corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    sys.path.insert(0, str(HERE.parent.parent))
    from tests.support.hostile_corpus import cases

    for case in cases():
        if len(case.data) < 100_000:
            (corpus / case.name).write_bytes(case.data)
    for i, sample in enumerate(sorted((HERE.parent.parent / "sample_sessions").rglob("*.jsonl"))):
        (corpus / f"sample-{i}").write_bytes(sample.read_bytes())


def main() -> None:
    folders = [Path(a) for a in sys.argv[1:] if not a.startswith("-")]
    for folder in folders:
        seed(folder)
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
