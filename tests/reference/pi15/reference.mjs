// Ask pi 1.5 itself what each session file means: for every file, pi's loadEntriesFromFile()
// and migrateSessionEntries(), then for the default leaf and for every leaf (an entry no other
// entry names as its parent), in file order: buildSessionContext() (what the model saw),
// buildSessionProjection()'s source entry ids (which entry each message came from) and
// getCurrentSystemMessage() over the context (the prompt and tools in force there); and the
// session totals pi's /session prints (AgentSession.getSessionStats(), run on a stand-in
// object that holds only the SessionManager: no model, no network, no settings).
//
//   node22 tests/reference/pi15/reference.mjs <pi-coding-agent package dir> FILE...
//
// Needs Node >= 22.19 (pi 1.5's agent-session.js imports what Node 20 lacks). Prints one JSON
// array. Contexts go through JSON.stringify, so undefined fields vanish. Only pi's exported
// functions are called on copies of the files (update.py makes them); nothing of pi is copied
// into this repository.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, ...files] = process.argv.slice(2);
if (!pkg) {
  process.stderr.write("usage: node reference.mjs <pi-coding-agent dir> FILE...\n");
  process.exit(2);
}
const load = (rel) => import(pathToFileURL(join(pkg, rel)).href);
const sm = await load("dist/core/session-manager.js");
const { AgentSession } = await load("dist/core/agent-session.js");
const ai = await import(pathToFileURL(join(pkg, "..", "pi-ai", "dist", "index.js")).href);

function atLeaf(entries, leafId) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const context = sm.buildSessionContext(entries, leafId, byId);
  const projection = sm.buildSessionProjection(entries, leafId, byId);
  const system = ai.getCurrentSystemMessage(context.messages) ?? null;
  return {
    context,
    sources: projection.entries.flatMap((p) => p.messages.map(() => p.sourceEntry.id)),
    system,
  };
}

const out = [];
for (const file of files) {
  const all = sm.loadEntriesFromFile(file);
  sm.migrateSessionEntries(all);
  const entries = all.filter((e) => e.type !== "session");
  const parents = new Set(entries.map((e) => e.parentId).filter((p) => p));
  const session = SessionManager_open(file);
  const stats = AgentSession.prototype.getSessionStats.call({
    sessionManager: session,
    sessionFile: file,
    sessionId: session.getSessionId(),
    getContextUsage: () => undefined,
  });
  out.push({
    file,
    loaded: all.length,
    defaultLeaf: atLeaf(entries, undefined),
    leaves: entries.filter((e) => !parents.has(e.id)).map((e) => ({ id: e.id, ...atLeaf(entries, e.id) })),
    totals: {
      userMessages: stats.userMessages,
      assistantMessages: stats.assistantMessages,
      toolCalls: stats.toolCalls,
      toolResults: stats.toolResults,
      totalMessages: stats.totalMessages,
      tokens: stats.tokens,
      cost: stats.cost,
    },
  });
}
process.stdout.write(JSON.stringify(out));

function SessionManager_open(file) {
  // open() reads the file; update.py hands this script copies, so a repair pi makes never
  // reaches the corpus
  return sm.SessionManager.open(file);
}
