// Ask pi itself what the model saw. For each session file: pi's own loadEntriesFromFile(),
// migrateSessionEntries() and buildSessionContext(), for the default leaf (leafId undefined) and
// for every leaf (an entry no other entry names as its parent), in file order. Prints one JSON
// array: [{file, loaded, defaultLeaf, leaves: [{id, context}]} | {file, skipped}].
//
//   node tests/reference/pi_context.mjs <pi-coding-agent package dir> FILE...
//
// Normally run through update_goldens.py, which hands it copies of the sessions:
//   python tests/reference/update_goldens.py --pi /path/to/node_modules/@mariozechner/pi-coding-agent
//
// Files pi cannot read the way piexport does are reported as {file, skipped: reason} and not
// built: no header (pi's loader returns nothing), malformed lines (pi drops them silently),
// entries without an id, duplicate ids or a parent cycle (pi's tree walk loops forever on the
// last two). Contexts go through JSON.stringify, so undefined fields vanish and NaN becomes null.
//
// Only pi's exported, read-only functions are called; SessionManager (which rewrites legacy
// files in place) is never used. Nothing of pi is copied into this repository.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, ...files] = process.argv.slice(2);
if (!pkg) {
  process.stderr.write("usage: node pi_context.mjs <pi-coding-agent dir> FILE...\n");
  process.exit(2);
}
const sm = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);

function unreadable(file, all) {
  if (all.length === 0) return "pi's loader returns no entries (no session header)";
  // pi's own split: trim, split on \n, skip blank lines, drop what JSON.parse rejects
  const lines = readFileSync(file, "utf8").trim().split("\n").filter((l) => l.trim());
  if (lines.length !== all.length) return `${lines.length - all.length} malformed line(s) pi skips`;
  if (all.some((e) => e === null || typeof e !== "object" || Array.isArray(e)))
    return "a line that is not a JSON object";
  return null;
}

function untreeable(all) {
  const entries = all.filter((e) => e.type !== "session");
  const ids = new Set();
  for (const e of entries) {
    if (typeof e.id !== "string") return "an entry without an id";
    if (ids.has(e.id)) return `duplicate id ${e.id}`;
    ids.add(e.id);
  }
  const parent = new Map(entries.map((e) => [e.id, e.parentId]));
  for (const start of parent.keys()) {
    const seen = new Set();
    for (let cur = start; cur && parent.has(cur); cur = parent.get(cur)) {
      if (seen.has(cur)) return `parent cycle through ${cur}`;
      seen.add(cur);
    }
  }
  return null;
}

const out = [];
for (const file of files) {
  const all = sm.loadEntriesFromFile(file);
  let reason = unreadable(file, all);
  if (!reason) {
    sm.migrateSessionEntries(all); // in memory only: v1 gets (random) ids, v2 hookMessage -> custom
    reason = untreeable(all);
  }
  if (reason) {
    out.push({ file, skipped: reason });
    continue;
  }
  const entries = all.filter((e) => e.type !== "session");
  const parents = new Set(entries.map((e) => e.parentId).filter((p) => p));
  const leaves = entries
    .filter((e) => !parents.has(e.id))
    .map((e) => ({ id: e.id, context: sm.buildSessionContext(entries, e.id) }));
  out.push({ file, loaded: all.length, defaultLeaf: sm.buildSessionContext(entries), leaves });
}
process.stdout.write(JSON.stringify(out));
