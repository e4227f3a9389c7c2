/* piexport archive search: runs on search.html from file:// with nothing else running.
 *
 * The index is data: every search/*.js file calls piexportSearch.<kind>(json). Only the
 * files a query needs are loaded (meta and entries once, a term shard per word, one
 * session's texts per session on screen). Results are built with createElement and
 * textContent only; session text never becomes markup.
 *
 * The rules (fold, tokens, shards, query language, ranking) are piexport/search/*.py's;
 * a browser test runs both on one archive and compares. Their limits come from Python
 * (PIEXPORT, written by piexport/search/script.py); folding is the "fold" part's.
 */
(function () {
  "use strict";
  var box = document.getElementById("search-box");
  var out = document.getElementById("results");
  var status = document.getElementById("search-status");
  if (!box || !out || !status) return;

  // ---- loading index files (classic scripts: file:// allows them, fetch is blocked)
  var policy = {
    createScriptURL: function (u) {
      if (!/^search\/(meta|entries|t\/\d+|d\/[0-9a-f]{16}-\d+)\.js$/.test(u)) throw new Error("not an index file: " + u);
      return u;
    }
  };
  if (window.trustedTypes && window.trustedTypes.createPolicy) {
    policy = window.trustedTypes.createPolicy("piexport-search", policy);
  }
  var data = { meta: null, entries: null, terms: {}, docs: {} };
  var loading = {};
  window.piexportSearch = {
    meta: function (m) { data.meta = m; },
    entries: function (e) { data.entries = e; },
    terms: function (n, t) { data.terms[n] = t; },
    docs: function (k, d) { data.docs[k] = d; }
  };
  // A site folder may come from someone else (a CI artifact): every index file is checked
  // as it comes, and one that is cut short, edited or damaged is named, never read as "no
  // matches" (index.py's meta_problem, entries_problem and unpack_docs check the same).
  function damaged(name, why) { return new Error("search/" + name + ".js is damaged (" + why + "): build the site again"); }
  function arrived(name) {  // a script cut short runs nothing: its data never comes
    var m;
    if (name === "meta") return data.meta !== null;
    if (name === "entries") return data.entries !== null;
    if ((m = /^t\/(\d+)$/.exec(name))) return Object.prototype.hasOwnProperty.call(data.terms, m[1]);
    if ((m = /^d\/(.+)$/.exec(name))) return Object.prototype.hasOwnProperty.call(data.docs, m[1]);
    return true;
  }
  function load(name) {
    if (loading[name]) return loading[name];
    loading[name] = new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = policy.createScriptURL("search/" + name + ".js");
      s.onload = function () {
        if (arrived(name)) { resolve(); return; }
        delete loading[name];
        reject(damaged(name, "it holds no index data: cut short?"));
      };
      s.onerror = function () { delete loading[name]; reject(new Error("search/" + name + ".js is missing: build the site again")); };
      document.head.appendChild(s);
    });
    return loading[name];
  }
  function isInt(v, low, high) { return typeof v === "number" && Math.floor(v) === v && v >= low && v < high; }
  function ints(list, low, high) {
    if (!Array.isArray(list)) return false;
    for (var i = 0; i < list.length; i++) if (!isInt(list[i], low, high)) return false;
    return true;
  }
  var KEY = /^[0-9a-f]{16}$/, MAX_SHARDS = PIEXPORT.maxShards, MAX_DOC_BYTES = PIEXPORT.maxDocBytes;
  function metaProblem(m) {  // index.meta_problem
    if (!m || typeof m !== "object" || Array.isArray(m)) return "it holds no object";
    if (!isInt(m.shards, 1, MAX_SHARDS + 1)) return "it says there are " + m.shards + " term shards";
    if (!isInt(m.records, 0, Infinity)) return "it says there are " + m.records + " records";
    var names = ["tools", "models", "labels", "roles"];
    for (var i = 0; i < names.length; i++) {
      var list = m[names[i]];
      if (!Array.isArray(list) || !list.length || !list.every(function (n) { return typeof n === "string"; })) return "its " + names[i] + " are not a list of names";
    }
    var split = m.split || {};
    if (typeof split !== "object" || Array.isArray(split) || !Object.keys(split).every(function (k) { return ints(split[k], 0, m.shards); })) return "its split prefixes are not prefixes with shards";
    if (!Array.isArray(m.sessions)) return "its sessions are not a list";
    var at = 0;
    for (i = 0; i < m.sessions.length; i++) {
      var s = m.sessions[i];
      var ok = s && typeof s === "object" && typeof s.h === "string" && typeof s.t === "string" &&
        (s.p === null || s.p === undefined || typeof s.p === "string") &&
        (s.d === null || s.d === undefined || isInt(s.d, -9007199254740992, 9007199254740992)) &&
        typeof s.k === "string" && KEY.test(s.k) && isInt(s.n, at, m.records + 1) &&
        ints(s.c, 0, m.records + 1) && s.c[0] === 0 && s.c.every(function (v, j) { return !j || v > s.c[j - 1]; });
      if (!ok) return "its session " + (i + 1) + " is not one";
      at = s.n;
    }
    return null;
  }
  function entriesProblem(e, m) {  // index.entries_problem
    if (!e || typeof e !== "object" || Array.isArray(e)) return "it holds no object";
    var limits = { k: 2 * m.roles.length, t: m.tools.length, m: m.models.length, l: m.labels.length };
    for (var key in limits) {
      if (!ints(e[key], 0, limits[key]) || e[key].length !== m.records) return "its '" + key + "' column is not " + m.records + " numbers below " + limits[key];
    }
    if (!ints(e.w, -9007199254740992, 9007199254740992) || e.w.length !== m.records) return "its times are not " + m.records + " numbers";
    return null;
  }

  // ---- words (tokens.py)
  var NS = NOSPACE_CLASS;
  var NOSPACE_START = new RegExp("^[" + NS + "]", "u");
  var MAX_WORD = PIEXPORT.maxWord;
  function runs(folded) {
    var re = new RegExp("[" + NS + "]+|(?:(?![" + NS + "])[\\p{L}\\p{N}])+", "gu");
    var list = [], m;
    while ((m = re.exec(folded))) list.push([m[0], NOSPACE_START.test(m[0])]);
    return list;
  }
  function runTerms(run, spaceless) {
    var cps = Array.from(run);
    if (!spaceless) return cps.length <= MAX_WORD ? [run] : [];
    if (cps.length === 1) return [run];
    var t = [];
    for (var i = 0; i + 1 < cps.length; i++) t.push(cps[i] + cps[i + 1]);
    return t;
  }
  function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }
  function shardKey(cps, split) {  // tokens.shard_key, over code points
    var k = 2;
    while (cps.length > k && has(split, cps.slice(0, k).join(""))) k++;
    return cps.slice(0, k);
  }
  function termShard(term, shards, split) {  // tokens.term_shard
    var h = 0x811c9dc5, cps = shardKey(Array.from(term), split || {});
    for (var i = 0; i < cps.length; i++) h = Math.imul(h ^ cps[i].codePointAt(0), 0x01000193) >>> 0;
    return h % shards;
  }
  function prefixShards(stem, shards, split) {  // tokens.prefix_shards
    var cps = Array.from(stem);
    if (shardKey(cps, split).length === cps.length && has(split, stem)) return split[stem];
    return [termShard(stem, shards, split)];
  }

  // ---- the query language (query.py)
  var FILTERS = PIEXPORT.filters;
  // a link is input too: a query is read up to MAX_QUERY_CHARS code points and MAX_ITEMS
  // words, phrases and filters (query.py's), and says what it left out
  var MAX_QUERY_CHARS = PIEXPORT.maxQueryChars, MAX_ITEMS = PIEXPORT.maxItems, MAX_TERMS = PIEXPORT.maxTerms, SPACE = PIEXPORT.space;
  function shownValue(value) { var cps = Array.from(value); return cps.length <= 80 ? value : cps.slice(0, 79).join("") + "\u2026"; }
  function codePoints(text, from, to) {  // how many characters (code points) in text[from:to]
    var n = 0;
    for (var i = from; i < to; i++) { var c = text.charCodeAt(i); if (c < 0xdc00 || c >= 0xe000 || i === from || !(text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) < 0xdc00)) n++; }
    return n;
  }
  function cutQuery(text) {  // query._cut: [the query as far as it is read, or text; the note]
    if (text.length <= MAX_QUERY_CHARS) return [text, null];  // fewer units: fewer characters
    var end = 0, n = 0;  // the unit where the MAX_QUERY_CHARS-th character ends
    while (end < text.length && n < MAX_QUERY_CHARS) { end += text.codePointAt(end) > 0xffff ? 2 : 1; n++; }
    if (end >= text.length) return [text, null];
    var kept = end;
    if (SPACE.indexOf(text.charAt(end)) < 0) {
      for (var i = end - 1; i > 0; i--) if (SPACE.indexOf(text.charAt(i)) >= 0) { kept = i; break; }
    }
    return [text.slice(0, kept), "the query is cut at " + MAX_QUERY_CHARS + " characters: " + codePoints(text, kept, text.length).toLocaleString("en-US") + " characters after them are left out"];
  }
  function cut(text, q) {
    var got = cutQuery(text);
    if (got[1]) q.errors.push(got[1]);
    return got[0];
  }
  function dayMs(text) {
    var m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(text);
    if (!m) return null;
    var y = +m[1], mo = m[2] ? +m[2] : 1, d = m[3] ? +m[3] : 1;
    if (mo < 1 || mo > 12 || d < 1) return null;
    var ms = Date.UTC(y, mo - 1, d);
    if (new Date(ms).getUTCDate() !== d) return null;
    return ms;
  }
  function parse(text) {
    var q = { words: [], filters: {}, errors: [] }, lastCan = -1, lookedUp = new Set();
    text = cut(text, q);
    var re = /(-?)(?:([A-Za-z]+):)?(?:"([^"]*)"?|(\S+))/g, m, items = [];
    while ((m = re.exec(text))) { items.push(m); if (m[0] === "") re.lastIndex++; }
    if (items.length > MAX_ITEMS) {
      q.leftOut = "only the first " + MAX_ITEMS + " words, phrases and filters are searched: " + (items.length - MAX_ITEMS).toLocaleString("en-US") + " more left out";
      items = items.slice(0, MAX_ITEMS);
    }
    items.forEach(function (m) {
      var minus = m[1], key = m[2], quoted = m[3], bare = m[4];
      var value = quoted !== undefined ? quoted : bare;
      if (key !== undefined && FILTERS.indexOf(key.toLowerCase()) >= 0 && !minus) {
        key = key.toLowerCase();
        if ((key === "after" || key === "before") && dayMs(value) === null) {
          q.errors.push(key + ": wants a date like 2025-03-04, not '" + value + "'"); return;
        }
        if (key === "is" && fold(value) !== "error") { q.errors.push("is: knows only is:error, not '" + value + "'"); return; }
        (q.filters[key] = q.filters[key] || []).push(fold(value));
        return;
      }
      if (key !== undefined) {
        value = m[0].slice(minus.length);
        if (value.charAt(0) === '"') value = value.replace(/^"+|"+$/g, "");
      }
      var rs = runs(fold(value));
      if (!rs.length) return;
      if (rs.some(function (r) { return !r[1] && Array.from(r[0]).length > MAX_WORD; })) {
        q.errors.push("'" + shownValue(value) + "' is left out: words over " + MAX_WORD + " characters (hashes, base64) are not indexed");
        lastCan = -1;
        return;
      }
      var can = quoted === undefined && !minus && rs.length === 1 && !rs[0][1];
      var w = word(rs, can && Array.from(rs[0][0]).length >= 2, !!minus, spaced(fold(value)).replace(/^ +| +$/g, ""));
      var more = w.terms.filter(function (t, i) { return !lookedUp.has(t) && w.terms.indexOf(t) === i; });
      if (lookedUp.size + more.length > MAX_TERMS) {  // each term may be a shard file to load
        q.errors.push("'" + shownValue(value) + "' is left out: a query looks up at most " + MAX_TERMS + " terms in the index");
        lastCan = -1;
        return;
      }
      more.forEach(function (t) { lookedUp.add(t); });
      q.words.push(w);
      lastCan = can ? q.words.length - 1 : -1;
    });
    if (q.leftOut) q.errors.push(q.leftOut);
    // only the last word is a prefix, and only while it is still being typed
    var endsInSpace = /\s$/.test(text);
    q.words.forEach(function (w, i) { if (w.prefix && (i !== lastCan || endsInSpace)) w.prefix = false; });
    return q;
  }
  function word(rs, prefix, exclude, text) {
    var terms = [];
    rs.forEach(function (r) { terms = terms.concat(runTerms(r[0], r[1])); });
    var phrase = rs.length > 1 || rs.some(function (r) { return r[1] && Array.from(r[0]).length > 2; });
    return { runs: rs, prefix: prefix, exclude: exclude, terms: terms, phrase: phrase,
      text: text || rs.map(function (r) { return r[0]; }).join(" ") };
  }

  // ---- phrases (query.py's spaced, has_phrase, spaced_spans): a phrase is found in the
  // folded text read as if each run of separators were one space, by Knuth-Morris-Pratt:
  // the work is linear in the text whatever the query, and nothing as big as the text is
  // made (no regular expression is built from a query)
  var SEPARATORS = /[^\p{L}\p{N}]+/gu, ALNUM = /[\p{L}\p{N}]/u;
  function spaced(folded) { return folded.replace(SEPARATORS, " "); }  // a query's words
  var KIND = new Uint8Array(65536);  // per UTF-16 unit: 1 a letter or digit, 2 not, 0 not known
  function isWordChar(text, i) {
    var c = text.charCodeAt(i);
    if (c >= 0xd800 && c < 0xe000) {  // a surrogate: the character of its pair (rare: not kept)
      var at = c >= 0xdc00 && i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) < 0xdc00 ? i - 1 : i;
      return ALNUM.test(String.fromCodePoint(text.codePointAt(at)));
    }
    var k = KIND[c];
    if (!k) k = KIND[c] = ALNUM.test(String.fromCharCode(c)) ? 1 : 2;
    return k === 1;
  }
  // characters and postings the matching reads for a query (data-search-work on <html>):
  // what a test bounds, by count, where a clock would only say how busy the machine was
  var work = 0;
  function borders(p) {  // t[k]: the longest proper border of p's first k units
    var t = new Int32Array(p.length + 1), k = 0;
    work += p.length;
    for (var i = 1; i < p.length; i++) {
      while (k > 0 && p.charCodeAt(i) !== p.charCodeAt(k)) k = t[k];
      if (p.charCodeAt(i) === p.charCodeAt(k)) k++;
      t[i + 1] = k;
    }
    return t;
  }
  function needle(p) { return { p: p, t: borders(p), at: new Int32Array(Math.max(1, p.length)) }; }
  function wordNeedle(w) { if (!w.needle) w.needle = needle(w.text); return w.needle; }
  function findSpaced(text, n, from) {  // [start, end) of text where n.p is next found, or null
    var p = n.p, t = n.t, at = n.at, m = p.length, k = 0, v = 0, inRun = false;
    if (!m) return null;
    for (var i = from; i < text.length; i++) {
      var c;
      if (isWordChar(text, i)) { c = text.charCodeAt(i); inRun = false; }
      else if (inRun) continue;
      else { c = 32; inRun = true; }
      while (k > 0 && p.charCodeAt(k) !== c) k = t[k];
      if (p.charCodeAt(k) === c) k++;
      at[v % m] = i;  // where each of the last m characters read is in the text
      v++;
      if (k === m) { work += i + 1 - from; return [at[(v - m) % m], i + 1]; }
    }
    work += text.length - from;
    return null;
  }
  function hasPhrase(row, w) {  // row: a text's [.., .., .., text], its folded form kept
    if (row.folded === undefined) { row.folded = fold(row[3]); work += row.folded.length; }
    return findSpaced(row.folded, wordNeedle(w), 0) !== null;
  }
  function spacedSpans(folded, n, cap) {  // where n.p is found, one after another, in folded
    var found = [], span = findSpaced(folded, n, 0);
    while (span && found.length < cap) { found.push(span); span = findSpaced(folded, n, span[1]); }
    return found;
  }

  // ---- matching
  function shardOf(n) {  // a term shard that came (load checked that), shaped as one
    var shard = data.terms[n];
    if (!shard || typeof shard !== "object" || Array.isArray(shard)) throw damaged("t/" + n, "it holds no terms");
    return shard;
  }
  function postings(text, n) {
    if (typeof text !== "string" || !/^[0-9a-z]+(?:,[0-9a-z]+)*$/.test(text)) throw damaged("t/" + n, "a term's records are not numbers");
    var out = [], at = 0, parts = text.split(",");
    work += parts.length;
    for (var i = 0; i < parts.length; i++) { at += parseInt(parts[i], 36); out.push(at); }
    return out;
  }
  var postingCache = new Map();
  function termSet(term) {  // record numbers holding one term
    var key = "=" + term;
    if (postingCache.has(key)) return postingCache.get(key);
    var n = termShard(term, data.meta.shards, data.meta.split), shard = shardOf(n);
    var set = Object.prototype.hasOwnProperty.call(shard, term) ? postings(shard[term], n) : [];
    postingCache.set(key, set);
    return set;
  }
  function prefixSet(stem) {
    var key = "*" + stem;
    if (postingCache.has(key)) return postingCache.get(key);
    var all = new Set();
    prefixShards(stem, data.meta.shards, data.meta.split || {}).forEach(function (n) {
      var shard = shardOf(n);
      Object.keys(shard).forEach(function (t) {
        if (t.lastIndexOf(stem, 0) === 0) postings(shard[t], n).forEach(function (x) { all.add(x); });
      });
    });
    var list = Array.from(all).sort(function (a, b) { return a - b; });
    postingCache.set(key, list);
    return list;
  }
  function wordSet(w) {  // records with every term of the word, ascending (phrases are checked on text later)
    if (w.prefix) return prefixSet(w.runs[0][0]);
    var sets = w.terms.map(termSet).sort(function (a, b) { return a.length - b.length; });
    var result = sets[0];
    for (var i = 1; i < sets.length; i++) {
      var next = new Set(sets[i]);
      result = result.filter(function (n) { return next.has(n); });
    }
    return result;
  }
  function shardsFor(q) {
    var need = {};
    q.words.forEach(function (w) {
      var m = data.meta, split = m.split || {};
      if (w.prefix) prefixShards(w.runs[0][0], m.shards, split).forEach(function (n) { need[n] = true; });
      else w.terms.forEach(function (t) { need[termShard(t, m.shards, split)] = true; });
    });
    return Object.keys(need).map(function (n) { return "t/" + n; });
  }
  var sessionOf = null, times = null;
  function prepare() {  // per-record session and absolute minute, once
    if (sessionOf) return;
    var m = data.meta, e = data.entries, n = m.records;
    var why = entriesProblem(e, m);  // before anything is made as big as meta says
    if (why) throw damaged("entries", why);
    sessionOf = new Int32Array(n); times = new Float64Array(n);
    for (var s = 0; s < m.sessions.length; s++) {
      var end = s + 1 < m.sessions.length ? m.sessions[s + 1].n : n;
      for (var r = m.sessions[s].n; r < end; r++) sessionOf[r] = s;
    }
    var at = 0;
    for (var i = 0; i < n; i++) { at += e.w[i]; times[i] = at * 60000; }
  }
  function passes(r, f) {
    var e = data.entries, m = data.meta;
    for (var key in f) {
      var vs = f[key];
      if (key === "project") { var p = fold(m.sessions[sessionOf[r]].p || ""); if (!vs.some(function (v) { return p.indexOf(v) >= 0; })) return false; }
      else if (key === "model") { var mo = fold(m.models[e.m[r]]); if (!vs.some(function (v) { return mo.indexOf(v) >= 0; })) return false; }
      else if (key === "label") { var l = fold(m.labels[e.l[r]]); if (!vs.some(function (v) { return l.indexOf(v) >= 0; })) return false; }
      else if (key === "role") { if (vs.indexOf(m.roles[e.k[r] >> 1]) < 0) return false; }
      else if (key === "tool") { var ts = fold(m.tools[e.t[r]]).split(" "); if (!vs.some(function (v) { return ts.indexOf(v) >= 0; })) return false; }
      else if (key === "is") { if (!(e.k[r] & 1)) return false; }
      else if (key === "after") { var a = Math.max.apply(null, vs.map(dayMs)); if (!times[r] || times[r] < a) return false; }
      else if (key === "before") { var b = Math.min.apply(null, vs.map(dayMs)); if (!times[r] || times[r] >= b) return false; }
    }
    return true;
  }
  function run(q) {  // hits before any phrase is checked on text
    prepare();
    var pos = q.words.filter(function (w) { return !w.exclude; });
    var neg = q.words.filter(function (w) { return w.exclude; });
    var n = data.meta.records, r, counts = new Uint16Array(n), touched = [];
    if (pos.length) {  // how many of the words each record has: one pass per word's records
      pos.forEach(function (w) {
        wordSet(w).forEach(function (x) { if (counts[x]++ === 0) touched.push(x); });
      });
      touched.sort(function (a, b) { return a - b; });
    } else {
      for (r = 0; r < n; r++) touched.push(r);
    }
    var negSets = neg.map(function (w) { return { w: w, set: new Set(wordSet(w)) }; });
    var hits = [];
    touched.forEach(function (rec) {
      var c = counts[rec];
      if (!passes(rec, q.filters)) return;
      var maybeOut = [];
      for (var i = 0; i < negSets.length; i++) {
        if (negSets[i].set.has(rec)) {
          if (!negSets[i].w.phrase) return;
          maybeOut.push(negSets[i].w);
        }
      }
      hits.push({ r: rec, s: sessionOf[rec], words: c, time: times[rec] || 0, adjacent: false, check: maybeOut });
    });
    var full = hits.filter(function (h) { return h.words === pos.length; });
    var complete = full.length > 0 || !pos.length;
    return { groups: group(complete ? full : hits), complete: complete };
  }
  function group(hits) {
    var by = new Map();
    hits.forEach(function (h) { if (!by.has(h.s)) by.set(h.s, []); by.get(h.s).push(h); });
    var groups = Array.from(by.values());
    groups.forEach(sortHits);
    var best = new Map();  // each group's most words and newest time, once (not per comparison)
    groups.forEach(function (g) { best.set(g, [maxOf(g, "words"), maxOf(g, "time")]); });
    groups.sort(function (a, b) {
      var x = best.get(a), y = best.get(b);
      return y[0] - x[0] || y[1] - x[1] || a[0].s - b[0].s;
    });
    return groups;
  }
  function maxOf(g, k) { var m = -Infinity; for (var i = 0; i < g.length; i++) if (g[i][k] > m) m = g[i][k]; return m; }
  function sortHits(g) {
    g.sort(function (a, b) { return (b.adjacent - a.adjacent) || (b.words - a.words) || (b.time - a.time) || (a.r - b.r); });
  }

  // ---- session texts: parts of deflated JSON, opened with the browser's DecompressionStream
  var docCache = {};
  function docs(key) {  // one part: "<session key>-<n>"
    if (docCache[key]) return docCache[key];
    docCache[key] = load("d/" + key).then(function () {
      var bytes, packed = data.docs[key];
      delete data.docs[key];
      try {
        if (Uint8Array.fromBase64) bytes = Uint8Array.fromBase64(packed);
        else {
          var bin = atob(packed);
          bytes = new Uint8Array(bin.length);
          for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        }
      } catch (err) { throw damaged("d/" + key, "its text is not base64"); }
      return inflated(bytes, key);
    }).then(function (text) {
      var rows;
      try { rows = JSON.parse(text); } catch (err) { throw damaged("d/" + key, "its text is not JSON"); }
      if (!Array.isArray(rows) || !rows.every(function (r) { return Array.isArray(r) && r.length === 4 && typeof r[0] === "string" && typeof r[1] === "string" && typeof r[3] === "string"; })) throw damaged("d/" + key, "it holds rows that are not records");
      return rows;
    });
    docCache[key].catch(function () { delete docCache[key]; delete loading["d/" + key]; });  // may be tried again
    return docCache[key];
  }
  function inflated(bytes, key) {
    // At most MAX_DOC_BYTES, and no more work than that: the deflated text goes in a few KB
    // at a time (a browser inflates each piece it is given at once, so a 1 MB bomb given
    // whole is a gigabyte made in one task), each piece once the output so far is read.
    var stream = new DecompressionStream("deflate");
    var writer = stream.writable.getWriter(), reader = stream.readable.getReader();
    var chunks = [], size = 0, at = 0, STEP = 4096, stopped = false;
    function feed() {
      if (stopped) return undefined;
      if (at >= bytes.length) return writer.close();
      var piece = bytes.subarray(at, at + STEP);
      at += STEP;
      return writer.write(piece).then(feed);
    }
    var fed = feed().catch(function () { /* the reading side says why */ });
    function next() {
      return reader.read().then(function (r) {
        if (r.done) return fed.then(function () { return new Blob(chunks).text(); });
        size += r.value.length;
        if (size > MAX_DOC_BYTES) {
          stopped = true;
          reader.cancel().catch(function () {});
          writer.abort().catch(function () {});
          throw damaged("d/" + key, "its text inflates to more than " + MAX_DOC_BYTES / 1048576 + " MB");
        }
        chunks.push(r.value);
        return next();
      }, function () { stopped = true; throw damaged("d/" + key, "its text is cut short"); });
    }
    return next();
  }
  function adjacentWord(q) {  // query.joined: the positive words as one phrase, once per query
    if (q.adjacent !== undefined) return q.adjacent;
    var pos = q.words.filter(function (w) { return !w.exclude; });
    if (pos.length < 2) return (q.adjacent = null);
    var all = [];
    pos.forEach(function (w) { all = all.concat(w.runs); });
    return (q.adjacent = word(all, false, false, pos.map(function (w) { return w.text; }).join(" ")));
  }
  function partOf(starts, off) {  // which part of a session's texts holds record offset off
    var i = starts.length - 1;
    while (i > 0 && starts[i] > off) i--;
    return i;
  }
  function rowOf(rows, at, key) {
    if (at >= rows.length) throw damaged("d/" + key, "record " + (at + 1) + " of its part is missing");
    return rows[at];
  }
  function withRows(s, hits) {  // load the parts holding these hits' texts; set h.row
    var starts = s.c || [0], need = {};
    hits.forEach(function (h) { if (!h.row) need[partOf(starts, h.r - s.n)] = true; });
    return Promise.all(Object.keys(need).map(function (i) {
      return docs(s.k + "-" + i).then(function (rows) {
        hits.forEach(function (h) { var off = h.r - s.n; if (partOf(starts, off) === +i) h.row = rowOf(rows, off - starts[i], s.k + "-" + i); });
      });
    }));
  }
  // check phrases on the texts of one group's session: drop what fails, rank phrase first.
  // Without phrases, exclusions or adjacency to check, only the hits on screen need texts.
  // Otherwise texts are loaded a part at a time, for the next hits in their order (most
  // words, newest), and every hit in a loaded part is checked. What is shown is exact
  // where it can be cheaply: with phrases or exclusions, the kept hits of the checked
  // prefix of the order (rounds go on until five hold, or one does after the first round);
  // with only adjacency to rank by, the parts of the first five hits are read once and the
  // hits in them that form the phrase rank first (the rest are ranked by "show all").
  // The kept hits carry the unchecked rest as .rest; .sure says every one of them holds
  // (only their rank was unknown), so the count is exact.
  function verify(g, q) {
    var s = data.meta.sessions[g[0].s];
    var phrases = q.words.filter(function (w) { return !w.exclude && w.phrase; });
    var adj = adjacentWord(q);
    var sure = !phrases.length && !g.some(function (h) { return h.check.length; });
    function passes(h) {
      var row = h.row;  // its folded and spaced forms are kept: once per record
      if (phrases.some(function (w) { return !w.prefix && !hasPhrase(row, w); })) return false;
      if (h.check.some(function (w) { return hasPhrase(row, w); })) return false;
      h.adjacent = adj ? hasPhrase(row, adj) : false;
      return true;
    }
    function check(hits) { return withRows(s, hits).then(function () { return hits.filter(passes); }); }
    if (sure && !adj) {
      return withRows(s, g.slice(0, SHOWN_PER_SESSION)).then(function () { g.rest = []; g.sure = true; g.check = check; return g; });
    }
    var starts = s.c || [0], loaded = {}, kept = [], at = 0, rounds = 0;
    function enough() {
      if (at >= g.length) return true;
      if (sure) return rounds >= 1;
      return kept.length >= SHOWN_PER_SESSION || (rounds >= 1 && kept.length > 0);
    }
    function more() {
      while (at < g.length && loaded[partOf(starts, g[at].r - s.n)]) {  // the checked prefix
        if (passes(g[at])) kept.push(g[at]);
        at++;
      }
      if (enough()) {
        var rest = [];
        g.slice(at).forEach(function (h) {  // checked out of order: ranked now only if all hold
          if (sure && h.row) { passes(h); kept.push(h); } else rest.push(h);
        });
        sortHits(kept);
        kept.rest = rest;
        kept.sure = sure;
        kept.check = check;
        return kept;
      }
      // the parts of the next hits: few files for a screenful, few rounds for all
      var want = {}, n = Math.max(SHOWN_PER_SESSION - kept.length, 4, 3 * at);
      g.slice(at, at + n).forEach(function (h) { want[partOf(starts, h.r - s.n)] = true; });
      rounds++;
      return Promise.all(Object.keys(want).map(function (i) {
        return docs(s.k + "-" + i).then(function (rows) {
          loaded[i] = true;
          g.forEach(function (h) { var off = h.r - s.n; if (!h.row && partOf(starts, off) === +i) h.row = rowOf(rows, off - starts[i], s.k + "-" + i); });
        });
      })).then(more);
    }
    return more();
  }

  // ---- showing results
  var PAGE = 20, SCREEN = 2, SHOWN_PER_SESSION = 5;
  var current = 0;  // which query is on screen: a newer one stops older ones
  // ---- snippets (query.py's snippet/window, textsafe's marks): DOM nodes, never markup
  var WIDTH = PIEXPORT.snippetWidth, SPAN_CAP = PIEXPORT.spanCap;
  function codeClass(ranges) {  // "202a-202e 2066" → a character class; from textsafe's tables
    var parts = (ranges || "").split(" ").filter(Boolean).map(function (r) {
      return r.split("-").map(function (h) { return "\\u{" + h + "}"; }).join("-");
    });
    return new RegExp("^[" + parts.join("") + "]$", "u");
  }
  var page = document.querySelector(".search-page") || document.documentElement;
  var HIDDEN_RE = codeClass(page.dataset.hidden), SELECTOR_RE = codeClass(page.dataset.selectors);
  var TAKES_SELECTOR = /^[\p{Lo}\p{Lm}\p{Nl}\p{No}\p{So}\p{Sm}\p{Sk}\p{Po}\p{Pd}\p{Ps}\p{Pe}]$/u;
  function before(text, i) {  // the code point that ends at unit i
    var c = text.charCodeAt(i - 1);
    if (c >= 0xdc00 && c < 0xe000 && i >= 2) {
      var h = text.charCodeAt(i - 2);
      if (h >= 0xd800 && h < 0xdc00) return text.slice(i - 2, i);
    }
    return text.charAt(i - 1);
  }
  function selectorShown(text, at) {  // textsafe.selector_is_shown
    if (at === 0) return false;
    var b = before(text, at), sel = text.charAt(at);
    if ("0123456789#*".indexOf(b) >= 0) return text.charAt(at + 1) === "\u20e3" && (sel === "\ufe0e" || sel === "\ufe0f");
    if (b.charCodeAt(0) < 128 || HIDDEN_RE.test(b) || SELECTOR_RE.test(b)) return false;
    return b === "\u2139" || TAKES_SELECTOR.test(b);
  }
  function hiddenMark(ch, text, at) {  // the mark of a character pages show as one, or null
    if (HIDDEN_RE.test(ch)) { /* shown */ } else if (SELECTOR_RE.test(ch)) { if (selectorShown(text, at)) return null; } else return null;
    var c = ch.codePointAt(0), hex = c.toString(16).toUpperCase();
    if (c < 0xa0) return "\\x" + ("0" + c.toString(16)).slice(-2);
    return "\u27ea" + "U+" + ("0000" + hex).slice(-Math.max(4, hex.length)) + "\u27eb";
  }
  function windowOf(text, first, width) {  // query.window
    var start = first > 0 ? text.lastIndexOf("\n", first - 1) + 1 : 0, i;
    if (first - start > Math.floor(width / 3)) {
      var at = first - Math.floor(width / 3);
      start = at;
      for (i = at; i <= first; i++) if (SPACE.indexOf(text.charAt(i - 1)) >= 0) { start = i; break; }
      var u = text.charCodeAt(start);
      if (start === at && u >= 0xdc00 && u < 0xe000) start++;  // not inside a surrogate pair
    }
    var end = Math.min(text.length, start + width);
    if (end < text.length && SPACE.indexOf(text.charAt(end)) < 0) {
      var cut = -1;
      for (i = end - 1; i >= start + Math.floor(width / 2); i--) if (SPACE.indexOf(text.charAt(i)) >= 0) { cut = i; break; }
      if (cut > start) end = cut;
    }
    return [start, end];
  }
  function snippetPieces(text, q) {  // query.snippet: [kind, text] with kind "", "match", "hidden"
    var fm = foldMap(text), spans = [];
    q.words.forEach(function (w) {
      if (w.exclude) return;
      var n = w.prefix ? needle(w.runs[0][0]) : wordNeedle(w);
      spacedSpans(fm.text, n, SPAN_CAP).forEach(function (sp) {
        var a = sp[0], b = sp[1] - 1;
        spans.push(fm.where ? [fm.where[a], fm.where[b] + 1] : [a, b + 1]);
      });
    });
    spans.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var w = windowOf(text, spans.length ? spans[0][0] : 0, WIDTH), start = w[0], end = w[1];
    var out = start > 0 ? [["", "\u2026 "]] : [];
    pieces(text, start, end, spans.filter(function (sp) { return sp[0] < end && sp[1] > start; }), out);
    if (end < text.length) out.push(["", " \u2026"]);
    return out;
  }
  function pieces(text, start, end, inside, out) {  // text[start:end] with matches and marks
    var k = 0;
    for (var i = start; i < end;) {
      var cp = text.codePointAt(i), ch = String.fromCodePoint(cp);
      if (ch.length === 2 && i + 1 >= end) ch = text.charAt(i);  // a window cut in a pair
      while (k < inside.length && inside[k][1] <= i) k++;
      var shown = hiddenMark(ch, text, i), kind, part;
      if (shown !== null) { kind = "hidden"; part = shown; }
      else { kind = k < inside.length && inside[k][0] <= i ? "match" : ""; part = ch; }
      var last = out[out.length - 1];
      if (last && last[0] === kind && kind !== "hidden") last[1] += part; else out.push([kind, part]);
      i += ch.length;
    }
    return out;
  }
  function nodes(list) {  // pieces as text nodes, <mark> and <span class="ctl">
    var frag = document.createDocumentFragment();
    list.forEach(function (p) {
      if (p[0] === "match") frag.appendChild(el("mark", null, p[1]));
      else if (p[0] === "hidden") {
        var s = el("span", "ctl", p[1]);
        s.title = p[1].charAt(0) === "\\" ? "U+00" + p[1].slice(2).toUpperCase() : p[1].slice(1, -1);
        frag.appendChild(s);
      } else frag.appendChild(document.createTextNode(p[1]));
    });
    return frag;
  }
  function snippet(text, q) { return nodes(snippetPieces(text, q)); }
  function shown(text) { return nodes(pieces(text, 0, text.length, [], [])); }  // titles, projects
  function when(ms) {
    if (!ms) return "";
    var d = new Date(ms);
    return d.toISOString().slice(0, 10);
  }
  // ?hl=WORDS for the session page: it opens what hides them in the entry and marks them
  function landing(q) {
    var words = [];
    q.words.forEach(function (w) { if (!w.exclude) w.runs.forEach(function (r) { words.push(r[0]); }); });
    return words.length ? "?hl=" + encodeURIComponent(words.join(" ")) : "";
  }
  function hitItem(h, s, q) {
    var li = el("li", "hit");
    var a = el("a", "hit-link");
    a.href = s.h + landing(q) + "#" + h.row[1];
    var role = data.meta.roles[data.entries.k[h.r] >> 1];
    var tool = data.meta.tools[data.entries.t[h.r]];
    a.appendChild(el("span", "hit-role role-" + role, role + (tool ? " · " + tool : "") + ((data.entries.k[h.r] & 1) ? " · error" : "")));
    a.appendChild(el("span", "hit-when", when(h.time)));
    var snip = el("span", "hit-snippet");
    snip.appendChild(snippet(h.row[3], q));
    a.appendChild(snip);
    li.appendChild(a);
    return li;
  }
  function groupSection(g, q, state) {
    var s = data.meta.sessions[g[0].s];
    var sec = el("section", "result-group");
    var h2 = el("h2");
    var a = el("a");
    a.appendChild(shown(s.t || "(untitled)"));
    a.href = s.h;
    h2.appendChild(a);
    sec.appendChild(h2);
    var meta = el("p", "result-meta");
    var all = g.length + g.rest.length;
    // issue 38, item 9: a phrase's hits past the first few are not checked until asked for;
    // the card says how many hold (checked) and how many more may (not yet checked), and the
    // summary adds up the same two figures; piexport search checks every one
    var count = g.rest.length && !g.sure ? g.length + " to " + all + " matches (" + g.rest.length + " not yet checked for the phrase)" : all + (all === 1 ? " match" : " matches");
    meta.appendChild(shown([s.p || "", when(s.d), count].filter(Boolean).join(" · ")));
    sec.appendChild(meta);
    var ol = el("ol", "hits");
    g.slice(0, SHOWN_PER_SESSION).forEach(function (h) { ol.appendChild(hitItem(h, s, q)); });
    sec.appendChild(ol);
    if (g.length > SHOWN_PER_SESSION || g.rest.length) {
      var more = el("button", "more-hits", "Show all " + (g.rest.length && !g.sure ? "" : all + " ") + "matches in this session");
      more.type = "button";
      more.addEventListener("click", function () {
        more.disabled = true;
        var checked = g.rest.length ? g.check(g.rest) : Promise.resolve([]);
        checked.then(function (later) {
          var all = g.concat(later);
          sortHits(all);  // every hit ranked now: later ones that form the phrase come first
          return withRows(s, all).then(function () {
            ol.textContent = "";
            all.forEach(function (h) { ol.appendChild(hitItem(h, s, q)); });
            meta.textContent = "";
            var n = g.length + later.length;
            if (state && g.rest.length && !g.sure) {
              state.shownHits += later.length;
              state.unchecked -= g.rest.length;
              summary(state);
            }
            meta.appendChild(shown([s.p || "", when(s.d), n + (n === 1 ? " match" : " matches")].filter(Boolean).join(" · ")));
            more.remove();
          });
        }).catch(function (err) {  // a text part missing or damaged: say so, let it be tried again
          more.disabled = false;
          more.textContent = "Could not show the other matches (" + err.message + "); try again";
        });
      });
      sec.appendChild(more);
    }
    return sec;
  }
  // Groups are verified and drawn in order: the first SCREEN sessions (what a screen holds)
  // before the rest of the page, so they show while the others' texts are still checked.
  function showPage(state, token, onScreen) {
    var shown = 0;
    function screen() { if (onScreen) { onScreen(); onScreen = null; } }
    function nextBatch() {
      if (token !== current) return Promise.resolve();
      var batch = state.groups.slice(state.next, state.next + (shown < SCREEN ? SCREEN - shown : PAGE - shown));
      state.next += batch.length;
      if (!batch.length) return Promise.resolve();
      return Promise.all(batch.map(function (g) { return verify(g, state.q); })).then(function (kept) {
        if (token !== current) return;
        kept.forEach(function (g) {
          if (!g.length) { state.dropped++; return; }
          state.list.appendChild(groupSection(g, state.q, state));
          shown++;
          state.shownGroups++;
          state.shownHits += g.length + (g.sure ? g.rest.length : 0);  // unchecked but sure hits count
          if (g.rest.length && !g.sure) state.unchecked += g.rest.length;
        });
        if (shown >= SCREEN) screen();
        if (shown < PAGE && state.next < state.groups.length) return nextBatch();
      });
    }
    return nextBatch().then(function () {
      if (token !== current) return;
      screen();
      state.more.hidden = state.next >= state.groups.length;
      summary(state);
    });
  }
  function summary(state) {
    var total = state.groups.length - state.dropped, hits = 0;
    state.groups.forEach(function (g) { hits += g.length; });
    var pending = state.next < state.groups.length;
    var text;
    if (!total) text = "No matches.";
    else if (state.phrases && pending) text = "Showing " + state.shownGroups + " sessions; up to " + total + " match (phrases are checked as results are shown).";
    else if (state.phrases && state.unchecked) text = state.shownHits + " to " + (state.shownHits + state.unchecked) + " matches in " + state.shownGroups + (state.shownGroups === 1 ? " session" : " sessions") + ": " + state.unchecked + " not yet checked for the phrase (a session's “Show all” checks its own).";
    else if (state.phrases) text = state.shownHits + (state.shownHits === 1 ? " match" : " matches") + " in " + state.shownGroups + (state.shownGroups === 1 ? " session." : " sessions.");
    else text = hits + (hits === 1 ? " match" : " matches") + " in " + total + (total === 1 ? " session" : " sessions") + (pending ? "; showing the first " + state.shownGroups + "." : ".");
    if (!state.complete && total) text = "No entry has every word; entries with some of them. " + text;
    if (state.q.errors.length) text = state.q.errors.join("; ") + ". " + text;
    status.textContent = text;
  }
  // the time a query took until its first page of results was drawn (bench/search.py reads
  // it): data-search-ms and data-search-done (a count of finished queries) on <html>; and
  // until its first screen (SCREEN sessions, or all there are) was: data-search-screen-ms
  var finished = 0;
  function timed(started) {
    var root = document.documentElement;
    root.dataset.searchMs = (performance.now() - started).toFixed(2);
    root.dataset.searchWork = String(work);
    root.dataset.searchDone = String(++finished);
  }
  function search(text) {
    var started = performance.now(), screenMs = null;
    function onScreen() { screenMs = (performance.now() - started).toFixed(2); }
    return draw(text, onScreen).then(function () {
      document.documentElement.dataset.searchScreenMs = screenMs === null ? (performance.now() - started).toFixed(2) : screenMs;
      timed(started);
    });
  }
  function draw(text, onScreen) {
    var token = ++current;
    work = 0;
    out.textContent = "";
    var q = parse(text);
    if (!q.words.some(function (w) { return !w.exclude; }) && !Object.keys(q.filters).length) {
      status.textContent = q.errors.length ? q.errors.join("; ") : "Type words to search every session in this archive.";
      return Promise.resolve();
    }
    status.textContent = "Searching…";
    return ready().then(function () {  // the shards (their count is in meta) while entries load
      return Promise.all([load("entries")].concat(shardsFor(q).map(load)));
    }).then(function () {
      if (token !== current) return;
      var res = run(q);
      var state = { q: q, groups: res.groups, complete: res.complete, next: 0, dropped: 0, shownGroups: 0, shownHits: 0, unchecked: 0,
        phrases: q.words.some(function (w) { return w.phrase; }), list: el("div", "result-list"), more: el("button", "more-results", "Show more sessions") };
      state.more.type = "button";
      state.more.hidden = true;
      state.more.addEventListener("click", function () { state.more.hidden = true; showPage(state, token); });
      out.appendChild(state.list);
      out.appendChild(state.more);
      return showPage(state, token, onScreen);
    }).catch(function (err) {
      if (token === current) status.textContent = "Search failed: " + err.message;
    });
  }
  var readyPromise = null;
  function ready() {
    if (!readyPromise) {
      readyPromise = load("meta").then(function () {  // an index another piexport wrote: say so
        var want = (document.querySelector(".search-page") || document.documentElement).dataset.indexVersion;
        var v = data.meta && data.meta.v;
        if (want && String(v) !== want) {
          readyPromise = null;
          throw new Error("this archive's search index is version " + v + " and this page reads version " + want + ": build the site again with piexport site");
        }
        var why = metaProblem(data.meta);
        if (why) { readyPromise = null; throw damaged("meta", why); }
      });
      load("entries").catch(function () { /* said by the query */ });
    }
    return readyPromise;
  }

  // ---- the box and the URL: ?q=WORDS runs on load; typing updates both
  var timer = null;
  function setUrl(text) {
    try {
      var url = new URL(window.location.href);
      text = cutQuery(text)[0];  // what is searched: no address longer than that
      if (text) url.searchParams.set("q", text); else url.searchParams.delete("q");
      window.history.replaceState(null, "", url.toString());
    } catch (e) { /* a browser that refuses: the box still works */ }
  }
  box.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { setUrl(box.value); search(box.value); }, 150);
  });
  box.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    window.clearTimeout(timer);
    setUrl(box.value);
    search(box.value);
  });
  var initial = new URLSearchParams(window.location.search).get("q") || "";
  box.value = cutQuery(initial)[0];  // what is searched (a link may hold far more)
  document.documentElement.classList.add("search-ready");
  search(initial);
})();
