"""What a live archive costs: idle CPU of ``piexport site --watch`` over many sessions, and how
long an appended line takes to reach its page. Prints figures; asserts nothing.

    .venv/bin/python bench/live.py [--sessions 1000] [--projects 20] [--idle 20] [--appends 10] [--poll]

The sessions are small (a header and a few messages), so the first build is quick; the watch
and the incremental build are what is measured. CPU is the watch process's own user+system
time from /proc while nothing is written.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

TICKS = os.sysconf("SC_CLK_TCK")


def session(n: int, project: str) -> bytes:
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": f"bench-{n}",
            "timestamp": "2025-03-03T08:00:00.000Z",
            "cwd": f"/home/bench/{project}",
        }
    ]
    parent = None
    for i in range(4):
        eid = f"e{n}-{i}"
        role = "user" if i % 2 == 0 else "assistant"
        content = (
            f"message {i} of session {n}"
            if role == "user"
            else [{"type": "text", "text": f"answer {i} of session {n}"}]
        )
        lines.append(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": f"2025-03-03T08:00:{i:02d}.000Z",
                "message": {"role": role, "content": content},
            }
        )
        parent = eid
    return b"".join(orjson.dumps(x) + b"\n" for x in lines)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--projects", type=int, default=20)
    ap.add_argument("--idle", type=float, default=20.0)
    ap.add_argument("--appends", type=int, default=10)
    ap.add_argument("--poll", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, out = Path(tmp) / "sessions", Path(tmp) / "site"
        files = []
        for n in range(args.sessions):
            project = f"--home-bench-p{n % args.projects}--"
            path = root / project / f"2025-03-03T08-00-00-000Z_s{n:05d}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(session(n, project))
            files.append(path)
        cmd = [sys.executable, "-m", "piexport", "site", str(root), "-o", str(out), "--watch"]
        if args.poll:
            cmd.append("--poll")
        started = time.perf_counter()
        log = Path(tmp) / "watch.log"
        proc = subprocess.Popen(cmd, stderr=log.open("w"), text=True)
        while not log.read_text():
            time.sleep(0.05)
        print(log.read_text().splitlines()[0])
        print(f"first build: {time.perf_counter() - started:.1f} s for {args.sessions} sessions")
        time.sleep(3)  # past the watch's first wake
        before, t0 = cpu_seconds(proc.pid), time.perf_counter()
        time.sleep(args.idle)
        used, spent = cpu_seconds(proc.pid) - before, time.perf_counter() - t0
        print(
            f"idle: {used:.2f} s CPU in {spent:.1f} s watching {args.sessions} sessions "
            f"({100 * used / spent:.2f} % of one core)"
        )
        target = files[len(files) // 2]
        page = next(out.glob(f"*/{target.stem}.html"))
        delays = []
        for k in range(args.appends):
            text = f"appended line {k}"
            entry = {
                "type": "message",
                "id": f"append-{k}",
                "parentId": f"e{len(files) // 2}-3" if k == 0 else f"append-{k - 1}",
                "timestamp": "2025-03-03T09:00:00.000Z",
                "message": {"role": "user", "content": text},
            }
            t = time.perf_counter()
            with target.open("ab") as f:
                f.write(orjson.dumps(entry) + b"\n")
            while text not in page.read_text(encoding="utf-8"):
                if time.perf_counter() - t > 30:
                    print(f"append {k}: not on the page after 30 s")
                    break
                time.sleep(0.01)
            else:
                delays.append(time.perf_counter() - t)
            time.sleep(0.5)
        delays.sort()
        if not delays:
            delays = [float("nan")]
        print(
            f"append → page: median {delays[len(delays) // 2]:.2f} s, "
            f"max {delays[-1]:.2f} s over {len(delays)} appends"
        )
        proc.send_signal(2)
        proc.wait(60)
        print("watch log:", *log.read_text().splitlines()[-3:], sep="\n  ")


if __name__ == "__main__":
    main()
