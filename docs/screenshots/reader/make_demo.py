"""python make_demo.py OUT.jsonl: a real-shaped reader demo (issue 38): a skill opening,
failed turns on two branches, a night, a compaction, no reported cost (estimates)."""
import sys
from pathlib import Path

import orjson

def at(day, h, m, s=0):
    return f"2025-06-{day:02d}T{h:02d}:{m:02d}:{s:02d}.000Z"

recs = []
def add(eid, parent, t, **kw):
    r = {"type": "message", "id": eid, "parentId": parent, "timestamp": t}; r.update(kw)
    from datetime import datetime
    r["message"]["timestamp"] = int(datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() * 1000)
    recs.append(r); return eid

def user(eid, parent, t, text):
    return add(eid, parent, t, message={"role": "user", "content": text})

USAGE = {"input": 12000, "output": 800, "cacheRead": 30000, "cacheWrite": 2000, "totalTokens": 44800, "cost": {"total": 0}}
def asst(eid, parent, t, text, stop="stop", call=None, err=None):
    content = [{"type": "text", "text": text}]
    if call:
        content.append({"type": "toolCall", "id": call[0], "name": "bash", "arguments": {"command": call[1]}})
    m = {"role": "assistant", "content": content, "stopReason": stop, "usage": USAGE, "provider": "anthropic", "model": "claude-sonnet-4-5"}
    if err: m["errorMessage"] = err
    return add(eid, parent, t, message=m)

def result(eid, parent, t, call, text, error=False):
    return add(eid, parent, t, message={"role": "toolResult", "toolCallId": call, "toolName": "bash", "content": [{"type": "text", "text": text}], "isError": error})

skill_body = "References are relative to /home/alice/.pi/skills/release.\n\n# Release checklist\n\n" + "\n".join(f"{i}. Step {i}: check the {w} before tagging." for i, w in enumerate(["changelog", "version", "tests", "docs", "lockfile", "wheel", "sdist", "tag", "notes", "announcement"] * 4, 1))
user("u1", None, at(1, 9, 0), f'<skill name="release" location="/home/alice/.pi/skills/release/SKILL.md">\n{skill_body}\n</skill>\n\nship version 1.2 of the shop')
asst("a1", "u1", at(1, 9, 1), "Running the tests first.", "toolUse", ("c1", "pytest -q"))
result("t1", "a1", at(1, 9, 3), "c1", "FAILED tests/test_cart.py::test_total - assert 41 == 42\n1 failed, 88 passed", True)
asst("a2", "t1", at(1, 9, 4), "", "error", err="overloaded_error: the model is overloaded, try again")
# side branch from a2
user("u2", "a2", at(1, 9, 10), "try the other fix: round the coupon")
asst("a3", "u2", at(1, 9, 12), "Rounding the coupon.", "toolUse", ("c3", "pytest -q tests/test_cart.py"))
result("t3", "a3", at(1, 9, 14), "c3", "1 failed", True)
asst("a3b", "t3", at(1, 9, 15), "That did not help.")
# current branch from a2: more work, then a night, then compaction and more
prev = "a2"
m = 20
for i in range(12):
    u = user(f"w{i}u", prev, at(1, 9, m), f"step {i}: fix the cart total and rerun")
    a = asst(f"w{i}a", u, at(1, 9, m + 1), f"Step {i}: editing cart.py.", "toolUse", (f"cw{i}", "pytest -q"))
    r = result(f"w{i}r", a, at(1, 9, m + 2), f"cw{i}", "89 passed" if i % 5 else "2 failed", i % 5 == 0)
    prev = asst(f"w{i}b", r, at(1, 9, m + 3), f"Step {i} done.")
    m += 3
# the night: next morning
u = user("n1", prev, at(2, 8, 0), "good morning: now tag the release")
recs.append({"type": "compaction", "id": "cmp1", "parentId": u, "timestamp": at(2, 8, 1), "summary": "Fixed the cart total; tests pass.", "firstKeptEntryId": "n1", "tokensBefore": 98000})
a = asst("n2", "cmp1", at(2, 8, 3), "Tagging.", "toolUse", ("cn", "git tag v1.2"))
r = result("n3", a, at(2, 8, 4), "cn", "")
asst("n4", r, at(2, 8, 20), "Tagged v1.2.", "aborted")
header = {"type": "session", "version": 3, "id": "0197a000-0000-7000-8000-00000000d3e0", "timestamp": at(1, 8, 59), "cwd": "/home/alice/src/shop"}
out = Path(sys.argv[1]); out.parent.mkdir(parents=True, exist_ok=True)
out.write_bytes(b"\n".join(orjson.dumps(x) for x in [header, *recs]) + b"\n")
