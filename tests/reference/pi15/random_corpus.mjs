// Random sessions written by pi 1.5's own SessionManager, for a differential check against
// piexport beyond the hand-made corpus: every operation the SessionManager offers, in random
// order (messages of every role, system updates, context edits of random targets on the
// active branch, compactions keeping a random entry or none, branching, branch summaries,
// resets to a new root, usage entries, labels, names, null content).
//
//   node tests/reference/pi15/random_corpus.mjs <pi-coding-agent dir> OUT_DIR SEED COUNT
//
// Then: node22 reference.mjs <pi dir> OUT_DIR/*/*.jsonl > expected.json, and
// python tests/reference/pi15/differential.py OUT_DIR expected.json (update.py's docstring
// says how to install pi 1.5.2).
import crypto from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, out, seedArg = "1", countArg = "50"] = process.argv.slice(2);
let seed = Number(seedArg) >>> 0 || 1;
function rand() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
crypto.randomUUID = () => {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
syncBuiltinESMExports();
const RealDate = Date;
let clock = RealDate.parse("2026-11-20T08:00:00.000Z");
globalThis.Date = class extends RealDate {
  constructor(...args) {
    if (args.length === 0) {
      clock += 1000 + Math.floor(rand() * 4000);
      super(clock);
    } else super(...args);
  }
  static now() {
    return clock;
  }
};
const { SessionManager } = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);

rmSync(out, { recursive: true, force: true });
const dir = join(out, "--random--");
mkdirSync(dir, { recursive: true });

const tools = ["read", "bash", "edit", "grep", "write"].map((name) => ({ name, description: `${name} tool`, parameters: { type: "object" } }));
const usage = () => {
  const input = Math.floor(rand() * 5000), output = Math.floor(rand() * 500), cacheRead = Math.floor(rand() * 20000);
  const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 3e-7, cacheWrite: 0 };
  cost.total = cost.input + cost.output + cost.cacheRead;
  return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost };
};
let callNo = 0;
const ops = [
  (sm) => sm.appendMessage({ role: "user", content: pick(["hi", "go on", null, [{ type: "text", text: "look" }]]), timestamp: clock }),
  (sm) => {
    callNo += 1;
    const call = rand() < 0.5;
    const id = sm.appendMessage({
      role: "assistant",
      content: call ? [{ type: "toolCall", id: `c${callNo}`, name: "bash", arguments: { command: "ls" } }] : pick([[{ type: "text", text: "ok" }], null]),
      api: "anthropic-messages", provider: "anthropic", model: pick(["m1", "m2"]),
      usage: usage(), stopReason: call ? "toolUse" : pick(["stop", "error", "length", "deferred"]), timestamp: clock,
    });
    if (call) sm.appendMessage({ role: "toolResult", toolCallId: `c${callNo}`, toolName: "bash", content: [{ type: "text", text: "a b" }], isError: rand() < 0.2, timestamp: clock, ...(rand() < 0.3 ? { usage: usage() } : {}) });
    return id;
  },
  (sm) => sm.appendMessage({ role: "system", content: pick(["", "more rules", null]), sections: rand() < 0.5 ? { [pick(["a", "b", "c"])]: pick(["text", null]) } : undefined, toolsAdded: rand() < 0.5 ? [pick(tools)] : undefined, toolsRemoved: rand() < 0.5 ? [{ name: pick(tools).name }] : undefined, timestamp: clock }),
  (sm) => sm.appendMessage({ role: "bashExecution", command: "make", output: "done", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: rand() < 0.5, timestamp: clock }),
  (sm) => sm.appendCustomMessageEntry("ext", pick(["note", undefined, [{ type: "text", text: "n" }]]), rand() < 0.5),
  (sm) => {
    const editable = sm.getBranch().filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)));
    if (!editable.length) return;
    sm.appendContextEdit(pick(editable).id, rand() < 0.4 ? null : { content: pick(["replaced", [{ type: "text", text: "blocks" }]]) });
  },
  (sm) => {
    const branch = sm.getBranch();
    if (branch.length < 2) return;
    const kept = rand() < 0.3 ? undefined : pick(branch).id;
    sm.appendCompaction("summary", kept, 1000, undefined, false, rand() < 0.5 ? usage() : undefined);
  },
  (sm) => {
    const entries = sm.getEntries();
    if (entries.length) sm.branch(pick(entries).id);
  },
  (sm) => {
    const entries = sm.getEntries();
    if (entries.length) sm.branchWithSummary(rand() < 0.2 ? null : pick(entries).id, pick(["left it", ""]), undefined, false, rand() < 0.5 ? usage() : undefined);
  },
  (sm) => sm.resetLeaf(),
  (sm) => sm.appendUsage(pick(["cache_warm", "other"]), "anthropic", "m1", usage()),
  (sm) => {
    const entries = sm.getEntries();
    if (entries.length) sm.appendLabelChange(pick(entries).id, pick(["x", undefined]));
  },
  (sm) => sm.appendModelChange("router", pick(["auto", "fast"])),
  (sm) => sm.appendThinkingLevelChange(pick(["low", "high"])),
];
const weights = [6, 8, 2, 1, 1, 3, 1, 2, 1, 1, 1, 1, 1, 1];
const weighted = ops.flatMap((op, i) => Array(weights[i]).fill(op));

const count = Number(countArg);
for (let n = 0; n < count; n++) {
  const sm = SessionManager.create("/random", dir, { id: `random-${String(n).padStart(3, "0")}` });
  sm.appendMessage({ role: "system", content: "base", sections: { a: "A", b: "B" }, toolsAdded: tools.slice(0, 3), timestamp: clock });
  sm.appendMessage({ role: "user", content: "start", timestamp: clock });
  const steps = 5 + Math.floor(rand() * 40);
  for (let i = 0; i < steps; i++) pick(weighted)(sm);
}
