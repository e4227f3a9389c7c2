// Ask pi itself what the model saw: for each session file, pi's own loader, migration and
// buildSessionContext() for the default leaf and for every leaf. The goldens this produces
// are what tests/test_reference.py compares `piexport context` against.
//
//   node tests/reference/pi_context.mjs <pi-coding-agent package dir> FILE...
//
// pi's exported loader only reads; it is SessionManager that rewrites legacy files in place,
// and this script never uses it. Nothing of pi is copied into this repository.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [pkg, ...files] = process.argv.slice(2);
const sm = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);
const out = [];
for (const file of files) {
  const all = sm.loadEntriesFromFile(file);
  sm.migrateSessionEntries(all);
  const entries = all.filter((e) => e.type !== "session");
  const parents = new Set(entries.map((e) => e.parentId).filter((p) => p));
  const leaves = [];
  for (const e of entries) {
    if (!parents.has(e.id)) leaves.push({ id: e.id, context: sm.buildSessionContext(entries, e.id) });
  }
  out.push({ file, loaded: all.length, defaultLeaf: sm.buildSessionContext(entries), leaves });
}
process.stdout.write(JSON.stringify(out));
