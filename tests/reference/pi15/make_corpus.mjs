// Write a corpus of session files with pi 1.5.2's own SessionManager, covering what pi 1.5
// writes that older pi did not: system messages (the prompt and tool loadout, later patched by
// section and by tool), a compaction's system checkpoint, retain-none compactions, context
// edits (omit and replace, on one branch only, before a compaction), usage entries, summary
// usage, a tool result's own usage and nested calls, deferred turns, null content, a file with
// no reply yet, several roots, custom session ids and header fields, subagent children, a fork.
//
//   node tests/reference/pi15/make_corpus.mjs <pi-coding-agent package dir> OUT_DIR
//
// Normally run through update.py. Deterministic: entry ids come from a seeded generator and
// time from a clock that moves one second per entry, so the corpus can be made again byte for
// byte. Only pi's exported API is called; nothing of pi is copied into this repository.
import crypto from "node:crypto";
import { readFileSync, writeFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, out] = process.argv.slice(2);
if (!pkg || !out) {
  process.stderr.write("usage: node make_corpus.mjs <pi-coding-agent dir> OUT_DIR\n");
  process.exit(2);
}

// --- determinism: seeded ids, a clock that ticks once per new Date() ------------------------
let seed = 0x2545f491;
function nextByte() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) & 0xff;
}
crypto.randomUUID = () => {
  const hex = Array.from({ length: 16 }, () => nextByte().toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
syncBuiltinESMExports();
const RealDate = Date;
let clock = RealDate.parse("2026-11-12T09:00:00.000Z");
globalThis.Date = class extends RealDate {
  constructor(...args) {
    if (args.length === 0) {
      clock += 1000;
      super(clock);
    } else super(...args);
  }
  static now() {
    return clock;
  }
};
const now = () => clock;
const later = (seconds) => {
  clock += seconds * 1000;
};

const { SessionManager } = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
let sessionNo = 0;
function sessionId() {
  sessionNo += 1;
  return `019a7e00-0000-7000-8000-${String(sessionNo).padStart(12, "0")}`;
}
function project(cwd) {
  return join(out, `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
}
function create(cwd, options = {}) {
  return SessionManager.create(cwd, project(cwd), { id: sessionId(), ...options });
}

// --- messages ----------------------------------------------------------------------------
const TOOLS = {
  read: { name: "read", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" }, offset: { type: "number" } }, required: ["path"] } },
  bash: { name: "bash", description: "Run a shell command.", parameters: { type: "object", properties: { command: { type: "string" }, timeout: { type: "number" } }, required: ["command"] } },
  edit: { name: "edit", description: "Replace text in a file.", parameters: { type: "object", properties: { path: { type: "string" }, edits: { type: "array" } }, required: ["path", "edits"] } },
  write: { name: "write", description: "Write a file.", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] } },
  grep: { name: "grep", description: "Search files.", parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] } },
  codemode: { name: "codemode", description: "Run a script that calls tools.", parameters: { type: "object", properties: { code: { type: "string" } }, required: ["code"] } },
  subagent: { name: "subagent", description: "Delegate a task to a subagent.", parameters: { type: "object", properties: { agent: { type: "string" }, task: { type: "string" } }, required: ["agent", "task"] } },
};

function system(cwd, tools = ["read", "bash", "edit", "write"], extra = {}) {
  return {
    role: "system",
    content: "You are an expert coding assistant operating inside pi, a coding agent harness.",
    sections: {
      tools: `<tools>\n${tools.map((t) => `- ${t}: ${TOOLS[t].description}`).join("\n")}\n</tools>`,
      guidelines: "Be concise. Show file paths clearly when working with files.",
      cwd: `Current working directory: ${cwd}`,
    },
    toolsAdded: tools.map((t) => TOOLS[t]),
    timestamp: now(),
    ...extra,
  };
}

function systemUpdate(patch) {
  return { role: "system", content: "", timestamp: now(), ...patch };
}

function user(text) {
  return { role: "user", content: text, timestamp: now() };
}

function usage(input, output, cacheRead = 0, cacheWrite = 0, price = { in: 3, out: 15, cr: 0.3, cw: 3.75 }) {
  const cost = {
    input: (input * price.in) / 1e6,
    output: (output * price.out) / 1e6,
    cacheRead: (cacheRead * price.cr) / 1e6,
    cacheWrite: (cacheWrite * price.cw) / 1e6,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

let callNo = 0;
function assistant(blocks, extra = {}) {
  const content = blocks.map((b) => {
    if (typeof b === "string") return { type: "text", text: b };
    if (b.call) {
      callNo += 1;
      const block = { type: "toolCall", id: `call_${String(callNo).padStart(4, "0")}`, name: b.call, arguments: b.args ?? {} };
      if (b.namespace) block.namespace = b.namespace;
      if (b.argumentsError) block.argumentsError = b.argumentsError;
      return block;
    }
    if (b.thinking) return { type: "thinking", thinking: b.thinking, thinkingSignature: "sig-" + b.thinking.length };
    return b;
  });
  const calls = content.some((b) => b.type === "toolCall");
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    responseId: `msg_${String(callNo).padStart(6, "0")}_${now() % 100000}`,
    thinkingLevel: "medium",
    usage: usage(1200 + 37 * callNo, 180 + 11 * callNo, 800 * callNo, 400),
    stopReason: calls ? "toolUse" : "stop",
    timestamp: now(),
    durationMs: 1830,
    ...extra,
  };
}

function result(assistantMessage, index, text, extra = {}) {
  const call = assistantMessage.content.filter((b) => b.type === "toolCall")[index];
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: now(),
    durationMs: 240,
    ...extra,
  };
}

/** Append an assistant turn and the results of its calls (each result text, in order). */
function turn(sm, blocks, results = [], extra = {}) {
  later(3);
  const a = assistant(blocks, extra);
  const id = sm.appendMessage(a);
  const ids = [id];
  results.forEach((r, i) => {
    later(1);
    const [text, more] = Array.isArray(r) ? r : [r, {}];
    ids.push(sm.appendMessage(result(a, i, text, more)));
  });
  return ids;
}

// --- 1. system prompt, a later update, per-message fields of pi 1.5 --------------------------
{
  const cwd = "/home/ana/src/shop";
  const sm = create(cwd);
  sm.appendModelChange("router", "auto");
  sm.appendThinkingLevelChange("high");
  sm.appendMessage(system(cwd));
  sm.appendMessage(user("Why does the cart total drop a cent on 3 x 19.99?"));
  turn(sm, [{ thinking: "Floating point, most likely. Read the cart module." }, { call: "read", args: { path: "src/cart.py" } }], [
    "def total(items):\n    return round(sum(i.price * i.qty for i in items), 2)\n",
  ], { responseModel: "claude-sonnet-4-5-20250929", model: "claude-sonnet-4-5", thinkingLevel: "high", providerThinkingLevel: "high" });
  turn(sm, [{ call: "edit", args: { path: "src/cart.py", edits: [{ oldText: "round(sum(i.price * i.qty for i in items), 2)", newText: "sum(Decimal(i.price) * i.qty for i in items)" }] } }], [
    ["Successfully replaced 1 block(s) in src/cart.py.", { details: { diff: "-2     return round(sum(i.price * i.qty for i in items), 2)\n+2     return sum(Decimal(i.price) * i.qty for i in items)", firstChangedLine: 2 } }],
  ], { model: "claude-haiku-4-5", responseModel: "claude-haiku-4-5-20251001", thinkingLevel: "low" });
  turn(sm, ["Prices are now Decimals: 3 x 19.99 is 59.97 exactly."], [], { endTurn: true });
  later(20);
  sm.appendMessage(systemUpdate({ sections: { skills: "<skills>\n- release: cut a release\n</skills>", guidelines: null }, toolsRemoved: [{ name: "write" }], toolsAdded: [TOOLS.grep] }));
  sm.appendMessage(systemUpdate({ content: "From now on, answer in British English." }));
  sm.appendMessage(user("Add a test for it."));
  turn(sm, [{ call: "grep", args: { pattern: "def test_total" } }], ["tests/test_cart.py:4:def test_total():"]);
  turn(sm, ["There is one already; I extended it with the 3 x 19.99 case."], [], {
    diagnostics: [{ type: "retry", timestamp: now(), error: { name: "OverloadedError", message: "529 overloaded", code: 529 }, details: { attempt: 1 } }],
  });
  sm.appendSessionInfo("Cart rounding");
}

// --- 2. context edits: omit, replace (string and blocks), latest wins, one branch only --------
{
  const cwd = "/home/ana/src/shop";
  const sm = create(cwd);
  sm.appendMessage(system(cwd));
  const u1 = sm.appendMessage(user("Deploy with key sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE-AAAAAAAAAA please"));
  const [a1, r1] = turn(sm, [{ call: "bash", args: { command: "./deploy.sh" } }], ["deploying...\nlots of noisy output\n".repeat(3)]);
  const [a2] = turn(sm, ["Deployed. Note that I saw the key in your message."]);
  const fork = a2;
  later(10);
  sm.appendContextEdit(u1, { content: "Deploy with key [removed by the user] please" });
  sm.appendContextEdit(r1, { content: "deploy output elided" });
  sm.appendContextEdit(a2, null);
  sm.appendContextEdit(u1, { content: [{ type: "text", text: "Deploy please (the key was removed)" }] });
  const cm = sm.appendCustomMessageEntry("reminder", "Remember to tag the release.", true);
  sm.appendContextEdit(cm, { content: "Tag the release." });
  sm.appendMessage(user("Now tag the release."));
  turn(sm, ["Tagged v1.4.2."]);
  // a second branch from before the edits: the original text is what the model saw there
  later(30);
  sm.branch(fork);
  sm.appendMessage(user("Roll it back instead."));
  turn(sm, [{ call: "bash", args: { command: "./rollback.sh" } }], ["rolled back"]);
  turn(sm, ["Rolled back."]);
  sm.appendContextEdit(a1, { content: "I ran the deploy script." });
  // pi normalises a string replacement of an assistant's content to a text block when it
  // writes the edit; an extension writing the line itself may not: pi reads both
  const file = sm.getSessionFile();
  const last = sm.getLeafId();
  later(5);
  const raw = { type: "context_edit", id: "e0e0e0e0", parentId: last, timestamp: new Date().toISOString(), targetId: a1, replacement: { content: "I ran ./deploy.sh." } };
  writeFileSync(file, readFileSync(file, "utf8") + JSON.stringify(raw) + "\n");
}

// --- 3. compactions: system checkpoint, system messages in the kept range, retain-none, usage,
//        an edit on an entry before the compaction -----------------------------------------------
{
  const cwd = "/srv/api";
  const sm = create(cwd);
  sm.appendMessage(system(cwd, ["read", "bash", "codemode"]));
  const u1 = sm.appendMessage(user("Find why /health is slow."));
  turn(sm, [{ call: "bash", args: { command: "curl -s -w '%{time_total}' localhost:8080/health" } }], ["ok 2.31"]);
  const [, r2] = turn(sm, [{ call: "read", args: { path: "api/health.py" } }], ["import time\n\ndef health():\n    time.sleep(2)\n    return 'ok'\n"]);
  const kept = sm.appendMessage(user("Remove the sleep."));
  sm.appendMessage(systemUpdate({ sections: { cwd: "Current working directory: /srv/api (read-only mount)" } }));
  turn(sm, [{ call: "bash", args: { command: "sed -i '/sleep/d' api/health.py" } }], ["(no output)"]);
  turn(sm, ["Removed; /health answers in 4 ms now."]);
  sm.appendContextEdit(r2, { content: "health.py: a handler that sleeps 2 s" });
  later(60);
  sm.appendCompaction(
    "The user asked why /health was slow. A time.sleep(2) in api/health.py was removed; /health answers in 4 ms.",
    kept,
    48210,
    { readFiles: ["api/health.py"], modifiedFiles: ["api/health.py"] },
    false,
    usage(48210, 350, 0, 0),
  );
  sm.appendContextEdit(u1, null); // targets an entry the compaction summarised away: no effect
  sm.appendMessage(user("Now the /ready endpoint."));
  turn(sm, [{ call: "codemode", args: { code: "await tools.read({path:'api/ready.py'})" } }], [
    ["def ready():\n    return db.ping()\n", {
      usage: usage(2100, 90, 0, 0, { in: 1, out: 5, cr: 0.1, cw: 1.25 }),
      nestedCalls: {
        complete: false,
        calls: [
          { id: "n1", name: "read", arguments: { path: "api/ready.py" }, status: "ok", durationMs: 3 },
          { id: "n2", name: "bash", argumentsBytes: 70211, status: "error", durationMs: 1200, error: "exit code 2\nls: cannot access 'x'" },
          { id: "n3", name: "grep", arguments: { pattern: "ping" }, status: "unfinished" },
        ],
      },
    }],
  ]);
  const [ready] = turn(sm, ["/ready pings the database; it is fine."]);
  later(60);
  sm.appendCompaction("Everything so far: /health fixed, /ready checked.", undefined, 9100, undefined, true, usage(9100, 120));
  sm.appendMessage(user("Thanks, that is all."));
  turn(sm, ["Glad to help."]);
  // a branch from before the retain-none compaction: the first compaction counts there
  later(30);
  sm.branch(ready);
  sm.appendMessage(user("Also check /metrics."));
  turn(sm, ["/metrics is served by the exporter; nothing to fix."]);
}

// --- 4. system patches on two branches, usage entries, a deferred turn ------------------------
{
  const cwd = "/home/ana/src/shop";
  const sm = create(cwd);
  sm.appendMessage(system(cwd));
  sm.appendMessage(user("Plan the migration to Postgres."));
  const [a1] = turn(sm, ["First, list the tables and their row counts."]);
  sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(0, 0, 50000, 0), undefined);
  sm.appendMessage(systemUpdate({ sections: { mode: "<mode>plan: read-only, no edits</mode>" }, toolsRemoved: [{ name: "edit" }, { name: "write" }] }));
  sm.appendMessage(user("Go on, plan only."));
  turn(sm, ["1. dump 2. convert 3. load 4. verify"]);
  sm.appendUsage("title_generation", "openai", "gpt-5-mini", usage(400, 12, 0, 0, { in: 0.25, out: 2, cr: 0, cw: 0 }), "session title");
  later(40);
  sm.branch(a1);
  sm.appendMessage(systemUpdate({ sections: { mode: "<mode>build: edits allowed</mode>" }, toolsAdded: [TOOLS.grep] }));
  sm.appendMessage(user("Just do it."));
  turn(sm, ["Queued the migration; the result will arrive later."], [], {
    stopReason: "deferred",
    deferred: { provider: "anthropic", modelId: "claude-sonnet-4-5", api: "anthropic-messages", id: "msgbatch_01HJK|row-7", expiresAt: now() + 86400000, pollAfterMs: 30000 },
    usage: usage(0, 0, 0, 0),
  });
  sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(0, 0, 50000, 0), "extension override");
}

// --- 5. several roots: resetLeaf, branchWithSummary(null), a summary that cost tokens ----------
{
  const cwd = "/home/ana/notes";
  const sm = create(cwd);
  sm.appendMessage(system(cwd, ["read"]));
  sm.appendMessage(user("Summarise notes/2026-10.md"));
  turn(sm, [{ call: "read", args: { path: "notes/2026-10.md" } }], ["# October\n- shipped 1.4\n- hired Bo\n"]);
  turn(sm, ["October: 1.4 shipped, Bo hired."]);
  later(30);
  sm.resetLeaf();
  sm.appendMessage(user("Start over: summarise notes/2026-11.md"));
  turn(sm, ["November has no notes yet."]);
  later(30);
  sm.branchWithSummary(null, "The user asked for the November notes; there were none.", { readFiles: [], modifiedFiles: [] }, false, usage(3000, 80));
  sm.appendMessage(user("And December?"));
  turn(sm, ["December is empty too."]);
}

// --- 6. null content, bash executions, a tool call whose arguments did not parse ---------------
{
  const cwd = "C:\\Users\\bo\\src\\tool";
  const sm = create(cwd);
  sm.appendMessage({ role: "system", content: null, toolsAdded: [TOOLS.bash], timestamp: now() });
  sm.appendMessage({ role: "user", content: null, timestamp: now() });
  sm.appendMessage(user("Build it."));
  turn(sm, [{ call: "bash", args: {}, argumentsError: "Expected ',' or '}' after property value in JSON at position 31: {\"command\": \"npm run build\" \"x\"}" }], [
    ["Validation failed for tool \"bash\": Expected ',' or '}' ...", { isError: true }],
  ]);
  sm.appendMessage({ role: "assistant", content: null, api: "openai-responses", provider: "openai", model: "gpt-5", usage: usage(10, 0), stopReason: "aborted", errorMessage: "Request was aborted", timestamp: now() });
  sm.appendMessage({ role: "bashExecution", command: "npm run build", output: "built in 3.1s", exitCode: 0, cancelled: false, truncated: false, timestamp: now() });
  sm.appendMessage({ role: "bashExecution", command: "cat ~/.npmrc", output: "//registry.npmjs.org/:_authToken=npm_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: now() });
  sm.appendMessage({ role: "toolResult", toolCallId: "call_missing", toolName: "bash", content: null, isError: false, timestamp: now() });
  sm.appendCustomMessageEntry("build-hook", undefined, false, { phase: "post" });
  turn(sm, [{ call: "bash", args: { command: "ls dist" }, namespace: "builtin" }], ["index.js\nindex.d.ts"]);
  turn(sm, ["Built."]);
}

// --- 6b. a compaction whose kept range holds an older compaction -----------------------------
{
  const cwd = "/srv/api";
  const sm = create(cwd);
  sm.appendMessage(system(cwd, ["bash"]));
  sm.appendMessage(user("Tail the error log."));
  turn(sm, [{ call: "bash", args: { command: "tail -n 50 /var/log/api/error.log" } }], ["E timeout talking to db\n".repeat(5)]);
  const keep = sm.appendMessage(user("Why the timeouts?"));
  turn(sm, ["The pool has 2 connections for 40 workers."]);
  later(60);
  sm.appendCompaction("The error log shows db timeouts.", keep, 30100, undefined, false, usage(30100, 200));
  sm.appendMessage(user("Raise the pool to 20."));
  turn(sm, [{ call: "bash", args: { command: "sed -i 's/pool=2/pool=20/' api.ini" } }], ["(no output)"]);
  later(60);
  sm.appendCompaction("Timeouts traced to a 2-connection pool; raised to 20.", keep, 31800, undefined, false, usage(31800, 150));
  sm.appendMessage(user("Restart it."));
  turn(sm, ["Restarted; no timeouts in the last minute."]);
}

// --- 7. a file with no reply yet (pi creates it at the first user message) ---------------------
{
  const cwd = "/home/ana/src/shop";
  const sm = create(cwd);
  sm.appendModelChange("anthropic", "claude-opus-5");
  sm.appendMessage(system(cwd));
  sm.appendMessage(user("Explain the checkout flow."));
}

// --- 8. subagents: a parent whose tool calls start two child sessions, and a fork --------------
{
  const cwd = "/home/ana/src/shop";
  const parent = create(cwd);
  parent.appendMessage(system(cwd, ["read", "bash", "subagent"]));
  parent.appendMessage(user("Review the payment module and the cart module in parallel."));
  const parentFile = parent.getSessionFile();
  // the subagent tool starts children; the first result names its child's session file
  later(2);
  const a = assistant([{ call: "subagent", args: { agent: "reviewer", task: "Review src/payment.py for bugs" } }, { call: "subagent", args: { agent: "reviewer", task: "Review src/cart.py for bugs" } }]);
  parent.appendMessage(a);
  const children = [];
  for (const [task, answer, ok] of [
    ["Review src/payment.py for bugs", "payment.py: refunds are not idempotent (line 88).", true],
    ["Review src/cart.py for bugs", "Could not finish: the model stopped at the output limit.", false],
  ]) {
    later(1);
    const child = create(cwd, { parentSession: parentFile });
    child.appendMessage(system(cwd, ["read"]));
    child.appendMessage(user(task));
    turn(child, [{ call: "read", args: { path: task.split(" ")[1] } }], ["# source elided"]);
    turn(child, [answer], [], ok ? {} : { stopReason: "length" });
    children.push({ file: child.getSessionFile(), id: child.getSessionId(), answer, ok });
  }
  later(1);
  parent.appendMessage(result(a, 0, children[0].answer, { details: { mode: "single", sessionFile: children[0].file, sessionId: children[0].id }, usage: usage(0, 0) }));
  later(1);
  parent.appendMessage(result(a, 1, children[1].answer, { isError: true }));
  turn(parent, ["payment.py has a refund bug; the cart review did not finish."]);
  // a fork of the parent (pi's /fork at an earlier message copies the entries and their ids)
  later(60);
  const source = SessionManager.open(parentFile, project(cwd));
  const forkedPath = source.createBranchedSession(source.getEntries()[1].id);
  // createBranchedSession names its file with a fresh uuidv7: give it a fixed name
  const forked = readFileSync(forkedPath, "utf8").split("\n");
  const header = JSON.parse(forked[0]);
  header.id = sessionId();
  forked[0] = JSON.stringify(header);
  rmSync(forkedPath);
  writeFileSync(join(project(cwd), `2026-11-12T09-59-00-000Z_${header.id}.jsonl`), forked.join("\n"));
}

// --- 9. a custom session id and header fields pi does not define -------------------------------
{
  const cwd = "/srv/ci/build-bot";
  const sm = SessionManager.create(cwd, project(cwd), { id: "nightly-2026-11-12.run_42" });
  sm.appendMessage(system(cwd, ["bash"]));
  sm.appendMessage(user("Run the nightly checks."));
  turn(sm, [{ call: "bash", args: { command: "make check" } }], ["All 412 checks passed."]);
  turn(sm, ["All checks passed."]);
  const file = sm.getSessionFile();
  const lines = readFileSync(file, "utf8").split("\n");
  const header = JSON.parse(lines[0]);
  Object.assign(header, { title: "Nightly checks", runner: { host: "ci-7", job: 42 }, tags: ["nightly", "ci"] });
  lines[0] = JSON.stringify(header);
  writeFileSync(file, lines.join("\n"));
}

// the files name each other (parentSession, a tool result's sessionFile) by absolute path:
// write them as they would read under ~/.pi/agent/sessions, so the corpus does not depend on
// where it was made
const written = [];
for (const dir of readdirSync(out)) {
  for (const f of readdirSync(join(out, dir))) {
    const path = join(out, dir, f);
    writeFileSync(path, readFileSync(path, "utf8").split(`${out}/`).join("/home/ana/.pi/agent/sessions/"));
    written.push(join(dir, f));
  }
}
process.stdout.write(JSON.stringify(written.sort()) + "\n");
