// piexport page behaviour. Progressive enhancement only: without JavaScript every branch
// and every collapsed block is still reachable through <details>, and the parts of a big
// transcript that wait in <noscript> are ordinary HTML. With JavaScript those parts stay one
// inert text node each until scrolled to, searched or linked; then build() turns the page's
// own <noscript> source into elements. That is the only HTML parsing here: the Trusted Types
// policy "piexport" passes nothing else, and the CSP allows no other policy. Otherwise only
// classes, attributes, textContent and the open state of <details> change.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("has-js");

  // ---- theme: follows the system unless toggled; the choice is remembered per browser
  try {
    var saved = window.localStorage.getItem("piexport-theme");
    if (saved === "dark" || (!saved && window.matchMedia("(prefers-color-scheme: dark)").matches)) {
      root.classList.add("dark");
    }
  } catch (e) { /* storage may be off for file:// pages */ }

  function toggleTheme() {
    var dark = root.classList.toggle("dark");
    try { window.localStorage.setItem("piexport-theme", dark ? "dark" : "light"); } catch (e) { /* ignore */ }
  }

  function openAncestors(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") p.open = true;
    }
  }

  // ---- lazy parts: <noscript> source → elements, on demand
  var main = document.getElementById("transcript");
  // a served page (see "live" below) keeps the source of its transcript's parts as they came
  var liveSource = main && document.querySelector('meta[name="piexport-live"]') ? sourcesOf(main) : null;
  var nav = document.querySelector("nav.outline");
  var status = document.getElementById("branch-status");
  var policy = null, allOpen = false, observer = null;

  function htmlPolicy() {
    if (!policy) {
      policy = window.trustedTypes && window.trustedTypes.createPolicy
        ? window.trustedTypes.createPolicy("piexport", { createHTML: function (x) { return x; } })
        : { createHTML: function (x) { return x; } };
    }
    return policy;
  }

  // What each part of a transcript was when it arrived (compared, never parsed again).
  function sourcesOf(box) {
    var out = [], xml = new XMLSerializer();
    for (var c = box.firstChild; c; c = c.nextSibling) out.push(c.nodeType === 1 ? xml.serializeToString(c) : c.nodeValue);
    return out;
  }

  function build(ns) {
    var t = document.createElement("template");
    htmlPolicy();
    t.innerHTML = policy.createHTML(ns.textContent);
    var box = ns.parentNode;
    box.replaceChild(t.content, ns);
    return box;
  }

  function pendingParts() {
    return main ? main.querySelectorAll("section.chunk.pending") : [];
  }

  function source(section) {
    var ns = section.firstElementChild;
    return ns && ns.tagName === "NOSCRIPT" ? ns.textContent : "";
  }

  function materialize(section) {
    if (!section.classList.contains("pending")) return;
    var ns = section.firstElementChild;
    section.classList.remove("pending");
    section.style.height = "";
    if (observer) observer.unobserve(section);
    if (!ns || ns.tagName !== "NOSCRIPT") return;
    build(ns);
    if (allOpen) {
      var ds = section.querySelectorAll("details");
      for (var i = 0; i < ds.length; i++) ds[i].open = true;
    }
    if (shown && shown !== defaultPath) applyChoice(section);
  }

  function materializeAll() {
    var ps = pendingParts();
    for (var i = 0; i < ps.length; i++) materialize(ps[i]);
    buildNav();
  }

  // The part whose source holds id="…", built; null when no part does.
  function materializeHolding(id) {
    var needle = 'id="' + id.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;") + '"';
    var ps = pendingParts();
    for (var i = 0; i < ps.length; i++) {
      if (source(ps[i]).indexOf(needle) >= 0) { materialize(ps[i]); return document.getElementById(id); }
    }
    return null;
  }

  function textLength(node) {
    var n = 0;
    for (var c = node.firstChild; c; c = c.nextSibling) n += c.nodeType === 3 ? c.length : 0;
    return n;
  }

  function startLazy() {
    var ps = pendingParts();
    if (!ps.length) return;
    // the waiting parts get a height in proportion to their source, so the scroll bar
    // tells the truth roughly; each is built when it comes near the screen
    var liveHeight = main.getBoundingClientRect().height;
    var liveChars = parseInt(ps[0].getAttribute("data-after"), 10) || 0;
    var ratio = liveChars > 0 ? Math.min(liveHeight / liveChars, 0.2) : 0.05;
    for (var j = 0; j < ps.length; j++) ps[j].style.height = Math.max(40, Math.round(textLength(ps[j].firstElementChild) * ratio)) + "px";
    if (!("IntersectionObserver" in window)) { materializeAll(); return; }
    observer = new IntersectionObserver(function (seen) {
      for (var k = 0; k < seen.length; k++) if (seen[k].isIntersecting) materialize(seen[k].target);
    }, { rootMargin: "1500px 0px" });
    for (var m = 0; m < ps.length; m++) observer.observe(ps[m]);
  }
  startLazy();

  var navBuilt = !nav || !nav.querySelector(".outline-box > noscript");
  function buildNav() {
    if (navBuilt) return;
    navBuilt = true;
    build(nav.querySelector(".outline-box > noscript"));
  }

  // ---- branches: show one path root → leaf, the others folded where they fork
  var parentOf = null, inlineChild, branchStart, defaultPath, shown = null;

  // Parents and fork points of every entry: from the elements built so far and from the
  // source of the parts still waiting (the same attributes, read with a pattern).
  function index() {
    if (parentOf || !main) return;
    parentOf = {}; inlineChild = {}; branchStart = {};
    var ds = main.querySelectorAll("details.branch");
    for (var i = 0; i < ds.length; i++) branchStart[ds[i].getAttribute("data-branch")] = true;
    var els = main.querySelectorAll("[data-entry-id]");
    for (var j = 0; j < els.length; j++) parentOf[els[j].id] = els[j].getAttribute("data-parent");
    var ps = pendingParts(), m;
    var entryRe = /\sid="([^"]*)"\sdata-entry-id="[^"]*"\sdata-parent="([^"]*)"/g;
    var branchRe = /data-branch="([^"]*)"/g;
    for (var k = 0; k < ps.length; k++) {
      var text = source(ps[k]);
      while ((m = entryRe.exec(text))) parentOf[m[1]] = m[2];
      while ((m = branchRe.exec(text))) branchStart[m[1]] = true;
    }
    // the child drawn straight after its parent (not inside a fold of its own)
    for (var id in parentOf) {
      var p = parentOf[id];
      if (p && !branchStart[id] && !inlineChild[p]) inlineChild[p] = id;
    }
    defaultPath = pathThrough(main.getAttribute("data-leaf"));
    shown = defaultPath;
  }

  // Every entry from the root down to id, then on along the line drawn below it.
  function pathThrough(id) {
    var set = {}, cur = id, guard = 0;
    while (cur && !set[cur] && guard++ < 10000000) { set[cur] = true; cur = parentOf[cur]; }
    cur = id;
    while (inlineChild[cur] && !set[inlineChild[cur]]) { cur = inlineChild[cur]; set[cur] = true; }
    return set;
  }

  function sameAsDefault(set) {
    for (var k in set) if (!defaultPath[k]) return false;
    for (var d in defaultPath) if (!set[d]) return false;
    return true;
  }

  function navLink(id) {
    return nav && navBuilt && nav.querySelector('.rows a[href="#' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]');
  }

  function summaryOf(id) {
    buildNav();
    var a = navLink(id);
    a = a && a.querySelector(".t");
    return a ? a.textContent : "";
  }

  function choose(id) {
    index();
    if (!(id in parentOf)) return;
    var set = pathThrough(id);
    var isDefault = sameAsDefault(set);
    shown = isDefault ? defaultPath : set;
    main.classList.toggle("choosing", !isDefault);
    if (status) status.hidden = isDefault;
    var stubs = main.querySelectorAll(".stub");
    for (var s = 0; s < stubs.length; s++) stubs[s].parentNode.removeChild(stubs[s]);
    applyChoice(main);
    if (nav) {
      nav.classList.toggle("choosing", !isDefault);
      var rows = nav.querySelectorAll(".rows a");
      for (var r = 0; r < rows.length; r++) {
        rows[r].parentElement.classList.toggle("chosen", !isDefault && !!shown[rows[r].getAttribute("href").slice(1)]);
      }
    }
  }

  // Fold and mark the entries under box (the page, or a part just built) for the path shown.
  function applyChoice(box) {
    var isDefault = shown === defaultPath;
    var ds = box.querySelectorAll("details.branch");
    for (var b = 0; b < ds.length; b++) ds[b].open = !!shown[ds[b].getAttribute("data-branch")];
    var els = box.querySelectorAll("[data-entry-id]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i], e = el.id, up = el.parentElement;
      // only entries drawn in a container on the chosen path; folded branches keep theirs
      var inView = up === main || up.classList.contains("chunk") ||
        (up.tagName === "DETAILS" && shown[up.getAttribute("data-branch")]);
      var hide = !isDefault && inView && !shown[e];
      el.classList.toggle("off-choice", hide);
      if (hide && shown[parentOf[e]]) {
        var stub = document.createElement("button");
        stub.type = "button";
        stub.className = "stub";
        stub.setAttribute("data-choose", e);
        stub.textContent = "↳ Another branch continues here: " + summaryOf(e);
        up.insertBefore(stub, el);
      }
    }
    // context edits are branch-relative: an entry shows what the model saw on the path shown
    // (the latest edit on it wins); the page was written for the current branch
    var notes = box.querySelectorAll(".context-edit-note[data-edit]"), last = {};
    for (var n = 0; n < notes.length; n++) {
      var note = notes[n];
      note.hidden = isDefault ? !note.hasAttribute("data-in-effect") : !shown[note.getAttribute("data-edit")];
      var owner = note.closest("[data-entry-id]");
      if (!note.hidden && owner) {
        if (last[owner.id]) last[owner.id].hidden = true;
        last[owner.id] = note;
      }
    }
  }

  function reveal(hash, words) {
    if (!hash || hash.length < 2) return;
    var id;
    try { id = decodeURIComponent(hash.slice(1)); } catch (e) { return; }
    var el = document.getElementById(id) || materializeHolding(id);
    if (!el) return;
    index();
    var entry = el.closest("[data-entry-id]");
    if (entry && main && main.contains(entry) && shown && !shown[entry.id]) choose(entry.id);
    if (el.tagName === "DETAILS") el.open = true;
    openAncestors(el);
    unfilter(entry);
    clearLanding();
    var first = entry && words && words.length ? markWords(entry, words, false) : null;
    land(entry || el, first);
    if (nav) {
      var old = nav.querySelectorAll("a.current");
      for (var i = 0; i < old.length; i++) old[i].classList.remove("current");
      var link = navLink(id);
      if (link) {
        link.classList.add("current");
        showRow(link);
      }
    }
  }

  // ---- landing (issue 28): a search result links to session.html?hl=WORDS#entry-ID. The
  // words are found in that entry (folded as search folds them: case and accents), every
  // fold hiding one is opened, the page scrolls so the entry's head and the first match
  // are clear of the sticky toolbar, and the words are highlighted (CSS Custom Highlight
  // API: ranges over the page's text, nothing in the DOM changes) until the reader moves
  // on: another link, Escape, or the entry scrolled out of sight.
  var HIGHLIGHT = "piexport-hit";
  var NOSPACE = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3100-\u312f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\u{20000}-\u{3134f}]/u;
  var WORDISH = /[\p{L}\p{N}]/u;
  var landedOn = null, landedSeen = null;

  function landingWords() {
    var q = param("hl");
    return q ? q.split(/\s+/).filter(Boolean).slice(0, 20) : [];
  }

  function foldChar(ch) {
    return ch.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().normalize("NFC");
  }
  // a text folded, and for each of its characters the index of the one it came from
  // (null: the same places, for the common ASCII text)
  function folded(text) {
    if (/^[\x00-\x7f]*$/.test(text)) return [text.toLowerCase(), null];
    var out = "", where = [];
    for (var i = 0; i < text.length;) {
      var cp = text.codePointAt(i), ch = String.fromCodePoint(cp), f = foldChar(ch);
      for (var k = 0; k < f.length; k++) where.push(i);
      out += f;
      i += ch.length;
    }
    return [out, where];
  }

  // Ranges over an entry's own text (not its heads, not the previews of its folds, not the
  // entries drawn inside it) where a word starts; with ``anywhere`` (a phrase typed in the
  // page's own search box), any place in the entry and the entries inside it. The folds
  // holding them are opened; the first range shown is returned.
  function markWords(entry, words, anywhere) {
    var nodes = [], starts = [], maps = [], text = "";
    var walker = document.createTreeWalker(entry, NodeFilter.SHOW_TEXT, { acceptNode: function (n) {
      var p = n.parentElement;
      if (!p || p.closest(".entry-head, .result-head, summary .preview, .copy, .stub")) return NodeFilter.FILTER_REJECT;
      return anywhere || p.closest("[data-entry-id]") === entry ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
    } });
    for (var n = walker.nextNode(); n && text.length < 20000000; n = walker.nextNode()) {
      var f = folded(n.nodeValue);
      nodes.push(n); starts.push(text.length); maps.push(f[1]);
      text += f[0];
    }
    function at(pos, end) {  // folded position → [node, offset in it]
      var lo = 0, hi = starts.length - 1;
      while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (starts[mid] <= pos - (end ? 1 : 0)) lo = mid; else hi = mid - 1; }
      var local = pos - starts[lo], map = maps[lo];
      if (end) return [nodes[lo], map ? map[local - 1] + 1 : local];
      return [nodes[lo], map ? map[local] : local];
    }
    var ranges = [];
    words.forEach(function (w) {
      var word = folded(w)[0].trim();
      if (!word) return;
      var boundary = !anywhere && WORDISH.test(word.charAt(0)) && !NOSPACE.test(word);
      var pattern = word.split(/\s+/).map(function (x) { return x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }).join("\\s+");
      var re = new RegExp(pattern, "gu"), m, found = 0;
      while ((m = re.exec(text)) && found < 300) {
        if (!m[0].length) { re.lastIndex++; continue; }
        if (boundary && m.index > 0 && WORDISH.test(text.charAt(m.index - 1))) continue;
        var a = at(m.index, false), b = at(m.index + m[0].length, true);
        var r = document.createRange();
        r.setStart(a[0], a[1]);
        r.setEnd(b[0], b[1]);
        ranges.push(r);
        found++;
      }
    });
    if (!ranges.length) return null;
    ranges.sort(function (x, y) { return x.compareBoundaryPoints(Range.START_TO_START, y); });
    for (var i = 0; i < ranges.length; i++) openAncestors(ranges[i].startContainer.parentElement);
    if (window.CSS && CSS.highlights && window.Highlight) {
      var h = new Highlight();
      for (var j = 0; j < ranges.length; j++) h.add(ranges[j]);
      CSS.highlights.set(HIGHLIGHT, h);
    }
    landedOn = entry;
    landedSeen = false;
    if (!landObserver && "IntersectionObserver" in window) {
      landObserver = new IntersectionObserver(function (seen) {
        for (var k = 0; k < seen.length; k++) {
          if (seen[k].target !== landedOn) continue;
          if (seen[k].isIntersecting) landedSeen = true;
          else if (landedSeen) clearLanding();
        }
      });
    }
    if (landObserver) landObserver.observe(entry);
    for (var v = 0; v < ranges.length; v++) if (ranges[v].getClientRects().length) return ranges[v];
    return null;
  }
  var landObserver = null;

  function clearLanding() {
    if (!landedOn) return;
    if (landObserver) landObserver.unobserve(landedOn);
    landedOn = null;
    if (window.CSS && CSS.highlights) CSS.highlights.delete(HIGHLIGHT);
  }

  // Scroll so that the entry's head (a tool result: the call's, which names the tool) and
  // the first match (or, with none, the entry's first lines) are both in sight under the
  // toolbar; a match too far down for that is put a third of the way down the screen, an
  // entry with no match at the top.
  function land(el, range) {
    var top = toolbarBottom() + 8, room = window.innerHeight - top;
    var heads = [];
    var tool = el.classList.contains("tool-result") ? el.parentElement.closest(".tool") : null;
    if (tool) heads.push(tool);
    heads.push(el);
    var box = el.getBoundingClientRect();
    var match = range ? range.getBoundingClientRect() : { top: box.top, bottom: box.top + Math.min(box.height, 80) };
    for (var i = 0; i < heads.length; i++) {
      var headTop = heads[i].getBoundingClientRect().top;
      if (match.bottom - headTop <= room - 24) { window.scrollBy(0, headTop - top); return; }
    }
    window.scrollBy(0, match.top - top - (range ? room / 3 : 0));
  }

  // Scroll the tree (never the page) so a row is in sight, a third of the way down.
  function showRow(link) {
    var box = nav.getBoundingClientRect(), r = link.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) nav.scrollTop += r.top - box.top - box.height / 3;
  }

  // ---- the tree follows the reading position: the row of the entry at the top of the
  // screen is marked, and the tree scrolls itself to keep it in sight. No focus moves and
  // the page never scrolls for it; once a frame at most, and only while the tree is open.
  var reading = null, readingQueued = false;
  function toolbarBottom() {
    var bar = document.querySelector(".toolbar");
    return bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
  }
  function entryAtTop() {
    var box = main.getBoundingClientRect(), x = box.left + Math.min(40, box.width / 2);
    for (var y = toolbarBottom() + 48; y < window.innerHeight; y += 24) {
      var hit = document.elementFromPoint(x, y);
      var entry = hit && main.contains(hit) ? hit.closest("[data-entry-id]") : null;
      if (entry) return entry;
    }
    return null;
  }
  function follow() {
    readingQueued = false;
    if (!nav || !navBuilt || !outlineBox || !outlineBox.open || !main) return;
    var entry = entryAtTop();
    var link = entry ? navLink(entry.id) : null;
    if (link === reading) return;
    if (reading) { reading.classList.remove("reading"); reading.removeAttribute("aria-current"); }
    reading = link;
    if (link) {
      link.classList.add("reading");
      link.setAttribute("aria-current", "location");
      showRow(link);
    }
  }
  var settle = 0;
  function queueFollow() {
    if (!readingQueued) { readingQueued = true; window.requestAnimationFrame(follow); }
    // and once more when scrolling has stopped: entries drawn as they come into view take
    // their real height a frame later, which moves what is at the top without a scroll
    window.clearTimeout(settle);
    settle = window.setTimeout(function () { window.requestAnimationFrame(follow); }, 200);
  }
  window.addEventListener("scroll", queueFollow, { passive: true });

  // The tree starts folded (phones see the conversation first); wide screens unfold it.
  var outlineBox = document.querySelector(".outline-box");
  // A long tree waits until asked for (it would cost more than the page it serves).
  if (outlineBox && navBuilt && window.matchMedia("(min-width: 861px)").matches) outlineBox.open = true;
  if (outlineBox) {
    // built in the click itself, before the fold opens: "toggle" fires a task later, and the
    // reader would see an empty box for a frame
    var outlineSummary = outlineBox.querySelector("summary");
    if (outlineSummary) outlineSummary.addEventListener("click", function () { buildNav(); });
    outlineBox.addEventListener("toggle", function () { if (outlineBox.open) { buildNav(); reading = null; queueFollow(); } });
  }

  // ---- view filters (issue 28): everything, the prompts only, no tool output, the errors
  // only; a class on <main> (the CSS hides the rest) and ?view=… in the address, so a view
  // can be kept and sent. A filtered view needs every part of a big page built. An entry a
  // link, a search or the tree leads to is shown whatever the filter (.pinned).
  var viewSelect = document.getElementById("view");
  var viewCount = document.getElementById("view-count");
  var VIEWS = ["prompts", "quiet", "errors"];

  function param(name) {
    try { return new URLSearchParams(window.location.search).get(name) || ""; } catch (e) { return ""; }
  }

  function setView(view, remember) {
    if (!main) return;
    if (VIEWS.indexOf(view) < 0) view = "";
    for (var k = 0; k < VIEWS.length; k++) main.classList.toggle("view-" + VIEWS[k], VIEWS[k] === view);
    var pins = main.querySelectorAll(".pinned");
    for (var p = 0; p < pins.length; p++) pins[p].classList.remove("pinned");
    if (viewSelect) viewSelect.value = view;
    if (view) { var ps = pendingParts(); for (var b = 0; b < ps.length; b++) materialize(ps[b]); }
    if (remember) {
      try {
        var url = new URL(window.location.href);
        if (view) url.searchParams.set("view", view); else url.searchParams.delete("view");
        window.history.replaceState(window.history.state, "", url.toString());
      } catch (e) { /* the select still works */ }
    }
    if (viewCount) {
      var n = 0, all = main.querySelectorAll("article.entry, .inline-marker");
      for (var i = 0; view && i < all.length; i++) if (shownNow(all[i])) n++;
      viewCount.textContent = !view ? "" : n ? n + " shown" : "none here";
    }
  }

  // drawn (not in a closed fold, not hidden); a closed <details> may keep its content laid out
  function shownNow(el) {
    return el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  function unfilter(entry) {
    if (!entry || !main || !/\bview-/.test(main.className)) return;
    for (var e = entry; e && e !== main; e = e.parentElement) {
      if (e.hasAttribute("data-entry-id")) e.classList.add("pinned");
    }
  }

  if (viewSelect && main) {
    viewSelect.addEventListener("change", function () { setView(viewSelect.value, true); });
    if (param("view")) setView(param("view"), false);
  }

  window.addEventListener("hashchange", function () { reveal(window.location.hash); });
  reveal(window.location.hash, landingWords());
  if (window.location.hash.length > 1 && document.readyState !== "complete") {
    // the browser scrolls to the fragment itself once the page has loaded (the entry's
    // top, under the toolbar): land again after it
    window.addEventListener("load", function () {
      window.requestAnimationFrame(function () { reveal(window.location.hash, landingWords()); });
    }, { once: true });
  }

  function setAll(open) {
    allOpen = open;
    var all = document.querySelectorAll("main details, .diagnostics");
    for (var i = 0; i < all.length; i++) {
      // "collapse all" folds branches too, except those holding the path being shown
      if (!open && all[i].classList.contains("branch") && shown && shown[all[i].getAttribute("data-branch")]) continue;
      all[i].open = open;
    }
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!(t instanceof Element)) return;
    var button = t.closest("button[data-action]");
    if (button) {
      var action = button.getAttribute("data-action");
      if (action === "theme") toggleTheme();
      else if (action === "keys" && keys && !keys.togglePopover) keys.classList.toggle("shown");
      else if (action === "close-keys" && keys && !keys.togglePopover) keys.classList.remove("shown");
      else if (action === "copy") copyFrom(button);
      else if (action === "expand") setAll(true);
      else if (action === "collapse") setAll(false);
      else if (action === "current-branch") {
        index();
        choose(main.getAttribute("data-leaf"));
        var leaf = document.getElementById(main.getAttribute("data-leaf"));
        if (leaf) leaf.scrollIntoView({ block: "center" });
      }
      return;
    }
    var stub = t.closest("button[data-choose]");
    if (stub) {
      var target = stub.getAttribute("data-choose");
      choose(target);
      var el = document.getElementById(target) || materializeHolding(target);
      if (el) el.scrollIntoView({ block: "start" });
      return;
    }
    var link = t.closest('a[href^="#"]');
    if (link && link.getAttribute("href") === window.location.hash) reveal(window.location.hash);
  });

  // ---- branches (issue 17): tick two leaves in the Branches panel, or open #compare=A,B,
  // and the two are shown side by side from their fork, turn by turn. Built from the page's
  // JSON data island with textContent only: no session text is ever parsed as HTML.
  (function compareView() {
    var box = document.getElementById("compare");
    var dataEl = document.getElementById("branch-data");
    var panel = document.getElementById("branches");
    if (!box || !dataEl) return;
    var data;
    try { data = JSON.parse(dataEl.textContent); } catch (e) { return; }
    // sides and turns are held once in the island; pairs name them by their place
    var sides = data.sides || [], rows = data.turns || [];
    function side(k) {
      var s = sides[k];
      if (s && !s.built) { s.turns = s.turns.map(function (r) { return rows[r]; }); s.built = true; }
      return s;
    }
    var leaves = data.leaves || [];
    var picks = [];

    function el(tag, cls, text) {
      var n = document.createElement(tag);
      if (cls) n.className = cls;
      if (text !== undefined && text !== null) n.textContent = String(text);
      return n;
    }
    function link(dom, text, cls) {
      var a = el("a", cls, text);
      a.setAttribute("href", "#" + dom);
      return a;
    }
    function leafIndex(id) {
      for (var i = 0; i < leaves.length; i++) if (leaves[i].id === id) return i;
      return -1;
    }
    function wanted() {
      var h = window.location.hash;
      if (h.indexOf("#compare=") !== 0) return null;
      var parts = h.slice(9).split(",");
      if (parts.length !== 2) return null;
      var a, b;
      try { a = decodeURIComponent(parts[0]); b = decodeURIComponent(parts[1]); } catch (e) { return null; }
      var i = leafIndex(a), j = leafIndex(b);
      return i < 0 || j < 0 || i === j ? null : [i, j];
    }
    function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
    function sideHead(side, letter) {
      var head = el("div", "cmp-side cmp-" + letter.toLowerCase());
      var title = el("div", "cmp-title");
      title.appendChild(el("span", "cmp-letter", letter));
      title.appendChild(link(side.dom, "", "branch-link"));
      title.lastChild.appendChild(document.createTextNode("Branch "));
      title.lastChild.appendChild(el("code", null, side.leaf));
      for (var l = 0; l < side.labels.length; l++) title.appendChild(el("span", "badge label", side.labels[l]));
      if (side.stop === "error" || side.stop === "aborted") title.appendChild(el("span", "badge bad", "ended: " + side.stop));
      head.appendChild(title);
      head.appendChild(el("p", "branch-figures", plural(side.entries, "entry").replace("entrys", "entries") + " · " + side.figures));
      var files = el("p", "branch-line");
      files.appendChild(el("span", "k", "Modified"));
      if (!side.files.length) files.appendChild(el("span", "muted", " no files"));
      for (var f = 0; f < side.files.length; f++) {
        files.appendChild(document.createTextNode(f ? ", " : " "));
        files.appendChild(el("code", null, side.files[f]));
      }
      head.appendChild(files);
      return head;
    }

    function turnCell(side, i, letter) {
      var cell = el("div", "cmp-cell cmp-" + letter.toLowerCase());
      cell.appendChild(el("span", "cmp-letter", letter));
      if (i === null) { cell.classList.add("empty"); cell.appendChild(el("span", "muted", "no such turn")); return cell; }
      var t = side.turns[i];
      var ask = link(t[0], t[1] === null ? "(continues the shared turn)" : t[1], "turn-ask" + (t[1] === null ? " muted" : ""));
      cell.appendChild(ask);
      if (t[2]) cell.appendChild(el("p", "turn-answer", t[2]));
      var meta = [];
      if (t[3]) meta.push(plural(t[3], "tool call"));
      if (t[4]) meta.push(plural(t[4], "tool error"));
      if (t[5] === "error" || t[5] === "aborted") meta.push("ended: " + t[5]);
      if (meta.length) cell.appendChild(el("p", "turn-meta muted", meta.join(" · ")));
      return cell;
    }

    var MATCH = { same: "same request", changed: "different request", onlyA: "only in A", onlyB: "only in B" };

    function diffBlock(text) {
      var pre = el("pre", "cmp-diff");
      var lines = text.split("\n");
      for (var i = 0; i < lines.length; i++) {
        var c = lines[i].charAt(0), cls = "";
        if (lines[i].indexOf("@@") === 0) cls = "hunk";
        else if (lines[i].indexOf("+++") === 0 || lines[i].indexOf("---") === 0) cls = "file";
        else if (c === "+") cls = "add";
        else if (c === "-") cls = "del";
        pre.appendChild(el("span", cls, lines[i] + "\n"));
      }
      return pre;
    }

    // The pair as asked for (#compare=X,Y shows X as A): the page holds each pair once,
    // so the other order swaps the sides, the alignment and the diffs (+ and - trade places).
    function swapDiff(text) {
      return text.split("\n").map(function (line) {
        var m = /^@@ -(\S+) \+(\S+) @@(.*)$/.exec(line);
        if (m) return "@@ -" + m[2] + " +" + m[1] + " @@" + m[3];
        if (line.indexOf("--- A/") === 0) return "+++ B/" + line.slice(6);
        if (line.indexOf("+++ B/") === 0) return "--- A/" + line.slice(6);
        if (line.charAt(0) === "+") return "-" + line.slice(1);
        if (line.charAt(0) === "-") return "+" + line.slice(1);
        return line;
      }).join("\n").replace(/^(\+\+\+ B\/.*)\n(--- A\/.*)$/m, "$2\n$1");
    }
    function pairFor(i, j) {
      var p = data.pairs[Math.min(i, j) + "," + Math.max(i, j)];
      if (!p) return p;
      p = { fork: p.fork, forkText: p.forkText, shared: p.shared, a: side(p.a), b: side(p.b),
        turns: p.turns, onlyA: p.onlyA, onlyB: p.onlyB, both: p.both };
      if (i < j) return p;
      var flip = { onlyA: "onlyB", onlyB: "onlyA", same: "same", changed: "changed" };
      return {
        fork: p.fork, forkText: p.forkText, shared: p.shared, a: p.b, b: p.a,
        turns: p.turns.map(function (t) { return [t[1], t[0], flip[t[2]]]; }),
        onlyA: p.onlyB, onlyB: p.onlyA,
        both: p.both.map(function (f) {
          return { path: f.path, status: f.status, reason: f.reason,
            diff: f.diff && swapDiff(f.diff) };
        })
      };
    }

    function show(i, j) {
      var p = pairFor(i, j);
      if (!p) return false;
      while (box.firstChild) box.removeChild(box.firstChild);
      var head = el("div", "compare-head");
      head.appendChild(el("h2", null, "Two branches compared"));
      var close = el("button", null, "Close");
      close.type = "button";
      close.setAttribute("data-close-compare", "");
      head.appendChild(close);
      box.appendChild(head);
      var shared = el("p", "compare-shared");
      if (p.fork === null) shared.textContent = "No shared history: the two start from different roots.";
      else {
        shared.appendChild(document.createTextNode("Shared history: " + plural(p.shared, "entry").replace("entrys", "entries") + ", up to "));
        shared.appendChild(link(p.fork, p.forkText));
      }
      box.appendChild(shared);
      var grid = el("div", "compare-grid");
      var tops = el("div", "cmp-row cmp-tops");
      tops.appendChild(sideHead(p.a, "A"));
      tops.appendChild(sideHead(p.b, "B"));
      grid.appendChild(tops);
      for (var r = 0; r < p.turns.length; r++) {
        var t = p.turns[r];
        var row = el("div", "cmp-row " + t[2]);
        var cont = t[0] !== null && t[1] !== null && p.a.turns[t[0]][1] === null && p.b.turns[t[1]][1] === null;
        row.appendChild(el("div", "cmp-match", cont ? "after the fork point, before any new request" : MATCH[t[2]] || t[2]));
        row.appendChild(turnCell(p.a, t[0], "A"));
        row.appendChild(turnCell(p.b, t[1], "B"));
        grid.appendChild(row);
      }
      if (!p.turns.length) grid.appendChild(el("p", "muted", "Neither branch has entries of its own."));
      box.appendChild(grid);
      var files = el("div", "compare-files");
      files.appendChild(el("h3", null, "Files modified"));
      if (!p.onlyA.length && !p.onlyB.length && !p.both.length) files.appendChild(el("p", "muted", "Neither branch modified a file."));
      var groups = [["Only A", p.onlyA], ["Only B", p.onlyB]];
      for (var g = 0; g < groups.length; g++) {
        if (!groups[g][1].length) continue;
        var line = el("p", "branch-line");
        line.appendChild(el("span", "k", groups[g][0]));
        for (var k = 0; k < groups[g][1].length; k++) {
          line.appendChild(document.createTextNode(k ? ", " : " "));
          line.appendChild(el("code", null, groups[g][1][k]));
        }
        files.appendChild(line);
      }
      for (var b = 0; b < p.both.length; b++) {
        var fc = p.both[b], item = el("div", "cmp-file");
        var what = el("p", "branch-line");
        what.appendChild(el("span", "k", "Both"));
        what.appendChild(document.createTextNode(" "));
        what.appendChild(el("code", null, fc.path));
        what.appendChild(document.createTextNode(fc.status === "same" ? ": the same final version on both"
          : fc.status === "different" ? ": final versions differ (A → B)" : ": cannot compare, " + fc.reason));
        item.appendChild(what);
        if (fc.diff) item.appendChild(diffBlock(fc.diff));
        files.appendChild(item);
      }
      box.appendChild(files);
      box.hidden = false;
      return true;
    }

    function syncPicks(pair) {
      picks = pair ? [pair[0], pair[1]] : [];
      var boxes = panel ? panel.querySelectorAll("input[data-pick]") : [];
      for (var i = 0; i < boxes.length; i++) boxes[i].checked = picks.indexOf(parseInt(boxes[i].getAttribute("data-pick"), 10)) >= 0;
    }

    function fromHash(scroll) {
      var pair = wanted();
      if (!pair) { box.hidden = true; return; }
      syncPicks(pair);
      if (show(pair[0], pair[1]) && scroll) box.scrollIntoView({ block: "start" });
    }

    if (panel) {
      panel.addEventListener("change", function (ev) {
        var t = ev.target;
        if (!(t instanceof HTMLInputElement) || !t.hasAttribute("data-pick")) return;
        var n = parseInt(t.getAttribute("data-pick"), 10);
        picks = picks.filter(function (x) { return x !== n; });
        if (t.checked) picks.push(n);
        if (picks.length > 2) picks = picks.slice(picks.length - 2);
        if (picks.length < 2) return; // the boxes show the one pick already
        syncPicks(picks);
        window.location.hash = "compare=" + encodeURIComponent(leaves[picks[0]].id) + "," + encodeURIComponent(leaves[picks[1]].id);
      });
    }
    box.addEventListener("click", function (ev) {
      var t = ev.target;
      if (t instanceof Element && t.closest("button[data-close-compare]")) {
        syncPicks(null);
        window.location.hash = "branches";
      }
    });
    window.addEventListener("hashchange", function () { fromHash(true); });
    if (wanted() && panel) panel.open = true;
    fromHash(true);
  })();

  // ---- in-page search: Enter jumps to the next entry holding the text, on any branch
  var search = document.getElementById("search");
  var count = document.getElementById("search-count");
  var hits = [], at = -1, last = "";
  if (search && main) {
    search.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape") { search.value = ""; search.blur(); }
      if (ev.key !== "Enter") return;
      ev.preventDefault();
      var q = search.value.trim().toLowerCase();
      if (q !== last) {
        for (var i = 0; i < hits.length; i++) hits[i].classList.remove("hit");
        hits = [];
        at = -1;
        last = q;
        if (q) {
          findInParts(q);
          var all = main.querySelectorAll("article.entry, .inline-marker");
          for (var j = 0; j < all.length; j++) {
            if (all[j].textContent.toLowerCase().indexOf(q) >= 0) {
              hits.push(all[j]);
              all[j].classList.add("hit");
            }
          }
        }
      }
      if (!hits.length) { count.textContent = q ? "no match" : ""; return; }
      at = (at + (ev.shiftKey ? hits.length - 1 : 1)) % hits.length;
      index();
      if (shown && !shown[hits[at].id]) choose(hits[at].id);
      openAncestors(hits[at]);
      unfilter(hits[at]);
      clearLanding();
      land(hits[at], markWords(hits[at], [q], true));
      count.textContent = (at + 1) + " / " + hits.length;
    });
  }

  // Build the waiting parts whose text holds q (their source with the tags taken out).
  function findInParts(q) {
    var ps = pendingParts();
    for (var i = 0; i < ps.length; i++) {
      var ns = ps[i].firstElementChild;
      var text = ns.__plain;
      if (text === undefined) {
        text = ns.textContent.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
          .replace(/&quot;|&#34;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&").toLowerCase();
        ns.__plain = text;
      }
      if (text.indexOf(q) >= 0) materialize(ps[i]);
    }
  }

  // ---- the archive's search box on the indexes: Enter opens search.html?q=…
  Array.prototype.forEach.call(document.querySelectorAll("div.site-search"), function (form) {
    var input = form.querySelector("input");
    if (!input) return;
    input.addEventListener("keydown", function (ev) {
      if (ev.key !== "Enter") return;
      ev.preventDefault();
      var target = form.getAttribute("data-search") || "search.html";
      if (!/^(\.\.\/)?search\.html$/.test(target)) return;
      window.location.href = target + (input.value ? "?q=" + encodeURIComponent(input.value) : "");
    });
  });

  // ---- copy buttons (issue 28): on an entry's code blocks, commands and outputs (a folded
  // one copies all of it) and beside its link, added when the entry is first pointed at or
  // reached with the keyboard. The clipboard API where the page may use it; else the
  // browser's copy command; else the text is selected for the reader to copy. Labels are
  // CSS (::before), so no button text joins the entry's text.
  var BLOCKS = "details.fold, .code-with-lines, pre.hl, pre.output";

  function copyButton(what, cls) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "copy" + (cls ? " " + cls : "");
    b.setAttribute("data-action", "copy");
    b.setAttribute("aria-label", what);
    b.title = what;
    return b;
  }

  function addCopyButtons(entry) {
    if (!entry || entry.__copy) return;
    entry.__copy = true;
    var blocks = entry.querySelectorAll(BLOCKS);
    for (var i = 0; i < blocks.length; i++) {
      var block = blocks[i];
      // one button a block: not for a block inside another one, nor in a fold's preview
      if (block.parentElement.closest(BLOCKS) || block.closest("summary")) continue;
      var owner = block.closest("[data-entry-id]");
      if (owner !== entry && owner && owner.__copy) continue;
      var what = block.closest(".tool-bash, .bash-execution") && block.matches("pre.hl") ? "Copy the command" : "Copy this text";
      block.parentNode.insertBefore(copyButton(what), block);
    }
    var links = entry.querySelectorAll(".deeplink");
    for (var j = 0; j < links.length; j++) {
      if (links[j].nextElementSibling && links[j].nextElementSibling.classList.contains("copy-link")) continue;
      links[j].parentNode.insertBefore(copyButton("Copy a link to this entry", "copy-link"), links[j].nextSibling);
    }
  }

  function blockText(block) {
    if (block.tagName === "PRE") return block.textContent;
    var code = block.querySelectorAll(":scope > pre:not(.preview), :scope > .code-with-lines > pre.hl, :scope > pre.hl");
    if (block.classList.contains("code-with-lines")) return block.querySelector("pre.hl").textContent;
    if (code.length) return code[code.length - 1].textContent;
    var parts = [];  // a fold of another kind (a list, a diff): its text without the summary
    for (var c = block.firstElementChild; c; c = c.nextElementSibling) if (c.tagName !== "SUMMARY") parts.push(c.innerText || c.textContent);
    return parts.join("\n");
  }

  function copyFrom(button) {
    var text, block = null;
    if (button.classList.contains("copy-link")) {
      var link = button.previousElementSibling;
      text = window.location.href.split(/[?#]/)[0] + (link ? link.getAttribute("href") : "");
    } else {
      block = button.nextElementSibling;
      if (!block) return;
      text = blockText(block);
    }
    function said(state) {
      button.classList.remove("done", "failed", "selected");
      button.classList.add(state);
      window.setTimeout(function () { button.classList.remove(state); }, 2500);
    }
    function fallback() {
      var area = document.createElement("textarea");
      area.className = "copy-buffer";
      area.value = text;
      area.setAttribute("readonly", "");
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      button.focus();
      if (ok) { said("done"); return; }
      if (block) {  // no clipboard at all (a file:// page may have none): select it instead
        var sel = window.getSelection();
        sel.selectAllChildren(block.tagName === "PRE" ? block : (block.querySelector("pre.hl, pre:not(.preview)") || block));
        said("selected");
      } else said("failed");
    }
    if (navigator.clipboard && navigator.clipboard.writeText && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { said("done"); }, fallback);
    } else fallback();
  }

  if (main) {
    var wantCopy = function (ev) {
      var t = ev.target;
      if (t instanceof Element) addCopyButtons(t.closest("article.entry, .inline-marker"));
    };
    main.addEventListener("pointerover", wantCopy);
    main.addEventListener("focusin", wantCopy);
  }

  // ---- keyboard help (issue 28): ? (or the toolbar's ? button) shows the keys in a popover
  // under the toolbar; Esc, a click elsewhere or Close hide it. A browser without popovers
  // gets a class instead.
  var keys = document.getElementById("keys");
  function showKeys() {
    if (!keys) return;
    if (keys.showPopover) { if (!keys.matches(":popover-open")) keys.showPopover(); }
    else keys.classList.add("shown");
  }

  // ---- keyboard: / search, j/k next/previous entry, e/c expand/collapse, t theme, ? keys
  function visibleEntries() {
    var all = main.querySelectorAll("article.entry, .inline-marker"), out = [];
    for (var i = 0; i < all.length; i++) if (shownNow(all[i])) out.push(all[i]);
    return out;
  }

  function step(dir) {
    var list = visibleEntries(), edge = 60;
    var lo = 0, hi = list.length; // first entry whose top is below the toolbar
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (list[mid].getBoundingClientRect().top <= edge + 1) lo = mid + 1; else hi = mid;
    }
    var next = dir > 0 ? list[lo] : list[lo - 2];
    if (!next && dir > 0) {
      // past what is built: build the next waiting part and go on into it
      var ps = pendingParts();
      for (var i = 0; i < ps.length; i++) {
        if (ps[i].getBoundingClientRect().bottom > edge) { materialize(ps[i]); return step(dir); }
      }
    }
    if (next) next.scrollIntoView({ block: "start" });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.target instanceof Element && ev.target.closest("input, textarea, select")) return;
    if (ev.key === "/" && search) { ev.preventDefault(); search.focus(); return; }
    if (ev.key === "Escape") { clearLanding(); if (keys) keys.classList.remove("shown"); }
    if (ev.key === "?") { ev.preventDefault(); showKeys(); return; }
    if (ev.key === "t") toggleTheme();
    else if (ev.key === "e" && main) setAll(true);
    else if (ev.key === "c" && main) setAll(false);
    else if (ev.key === "j" && main) step(1);
    else if (ev.key === "k" && main) step(-1);
  });

  // ---- print: every fold open, then back as it was
  var reopened = [];
  window.addEventListener("beforeprint", function () {
    materializeAll();
    var closed = document.querySelectorAll("details:not([open])");
    for (var i = 0; i < closed.length; i++) { closed[i].open = true; reopened.push(closed[i]); }
  });
  window.addEventListener("afterprint", function () {
    for (var i = 0; i < reopened.length; i++) reopened[i].open = false;
    reopened = [];
  });

  // ---- index pages: filter and sort each table in place (its filter box names it)
  var tables = document.querySelectorAll("table.sessions");
  var filters = document.querySelectorAll("input[data-filter]");
  function runFilter(box) {
    var t = document.getElementById(box.getAttribute("data-filter"));
    if (!t) return;
    var q = box.value.toLowerCase(), rows = t.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      rows[i].hidden = q !== "" && rows[i].textContent.toLowerCase().indexOf(q) < 0;
    }
  }
  Array.prototype.forEach.call(filters, function (box) {
    box.addEventListener("input", function () { runFilter(box); });
  });
  // a table wider than its box says so (the hint is CSS; this says when it applies)
  var wraps = document.querySelectorAll(".table-wrap[data-wide]");
  function markOverflow() {
    for (var w = 0; w < wraps.length; w++) wraps[w].classList.toggle("overflows", wraps[w].scrollWidth > wraps[w].clientWidth + 1);
  }
  if (wraps.length) { markOverflow(); window.addEventListener("resize", markOverflow); }
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.querySelectorAll("th[data-sort]");
    for (var h = 0; h < heads.length; h++) {
      heads[h].tabIndex = 0;
      heads[h].addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.currentTarget.click(); }
      });
      heads[h].addEventListener("click", function (e) {
        var th = e.currentTarget, col = th.cellIndex, numeric = th.getAttribute("data-sort") === "num";
        var dir = th.getAttribute("aria-sort") === "descending" ? 1 : -1;
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute("data-value") || a.cells[col].textContent;
          var y = b.cells[col].getAttribute("data-value") || b.cells[col].textContent;
          if (numeric) { x = parseFloat(x) || 0; y = parseFloat(y) || 0; return (x - y) * dir; }
          return x.localeCompare(y) * dir;
        });
        for (var i = 0; i < rows.length; i++) body.appendChild(rows[i]);
        var all = table.querySelectorAll("th[data-sort]");
        for (var j = 0; j < all.length; j++) all[j].removeAttribute("aria-sort");
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      });
    }
  });
  // ---- live: a page served by `piexport serve` follows its session as pi writes it.
  // Only there: a static page has no "piexport-live" meta tag, and its CSP allows no
  // connection. The page asks its own URL (HEAD) whether it changed; when it did, it fetches
  // itself, parses that with the one Trusted Types policy (our own escaped render, never run:
  // DOMParser runs no script), and swaps the changed parts, keeping the reader's scroll
  // position, open folds, built parts, chosen branch and filter.
  (function live() {
    var meta = document.querySelector('meta[name="piexport-live"]');
    if (!meta || !/^https?:$/.test(window.location.protocol) || !window.fetch || !window.DOMParser) return;
    var tag = null, busy = false;
    var badge = document.createElement("span");
    badge.className = "live-status";
    badge.textContent = "\u25cf live";
    badge.title = "This page follows its session: new entries appear as pi writes them";
    var bar = document.querySelector(".toolbar");
    if (bar) bar.insertBefore(badge, bar.querySelector(".spacer"));

    function stamp(res) {
      var d = new Date(res.headers.get("Last-Modified") || "");
      badge.textContent = "\u25cf live" + (isNaN(d.getTime()) ? "" : " \u00b7 written " + d.toLocaleTimeString());
      badge.classList.remove("offline");
    }

    function check() {
      if (busy || document.hidden) return;
      busy = true;
      var url = window.location.pathname;
      fetch(url, { method: "HEAD", cache: "no-store" }).then(function (res) {
        if (!res.ok) throw new Error(String(res.status));
        var etag = res.headers.get("ETag");
        if (tag === null) {
          tag = etag;
          stamp(res);
          // written after this page was loaded (a change between the two): fetch it now
          var lm = new Date(res.headers.get("Last-Modified") || "").getTime();
          if (!(lm > Date.parse(document.lastModified) + 999)) return null;
        } else if (etag === tag) {
          badge.classList.remove("offline");
          return null;
        }
        return fetch(url, { cache: "no-store" }).then(function (r) {
          if (!r.ok) throw new Error(String(r.status));
          var next = r.headers.get("ETag");
          return r.text().then(function (text) {
            update(text);
            tag = next;
            stamp(r);
          });
        });
      }).catch(function () {
        badge.classList.add("offline");
        badge.textContent = "\u25cb not live (server stopped?)";
      }).then(function () { busy = false; });
    }

    function update(text) {
      htmlPolicy();
      var doc = new DOMParser().parseFromString(policy.createHTML(text), "text/html");
      if (!doc.querySelector('meta[name="piexport-live"]')) return;
      // a parsed document runs no script, so its <noscript> parts came out as elements: each
      // gets back its source, as the one inert text node build() expects (the source is cut
      // from the text fetched; no part's source holds "</noscript", the page makes sure)
      var waiting = {}, m, re = /<section class="chunk pending" data-after="(\d+)"><noscript>([\s\S]*?)<\/noscript><\/section>/g;
      while ((m = re.exec(text))) waiting[m[1]] = m[2];
      var ps = doc.querySelectorAll("section.chunk.pending");
      for (var n = 0; n < ps.length; n++) {
        var ns = ps[n].firstElementChild, src = waiting[ps[n].getAttribute("data-after")];
        if (ns && ns.tagName === "NOSCRIPT" && src !== undefined) ns.textContent = src;
      }
      var outline = doc.querySelector(".outline-box > noscript");
      m = /<noscript>\s*(<ol class="rows">[\s\S]*?<\/ol>)\s*<\/noscript>/.exec(text);
      if (outline && m) outline.textContent = m[1];
      if (main) updateSession(doc); else updateIndex(doc);
    }

    function swap(oldEl, newEl) {
      if (oldEl && newEl) oldEl.parentNode.replaceChild(document.adoptNode(newEl), oldEl);
    }

    // A name for a fold that survives the swap: its branch, or its entry and place in it.
    function foldKey(d) {
      if (d.hasAttribute("data-branch")) return "b:" + d.getAttribute("data-branch");
      if (d.classList.contains("diagnostics")) return "diagnostics";
      var entry = d.closest("[data-entry-id]");
      if (!entry) return null;
      var ds = entry.querySelectorAll("details");
      for (var i = 0; i < ds.length; i++) if (ds[i] === d) return "e:" + entry.id + ":" + i;
      return null;
    }

    function firstOnScreen() {
      var all = main.querySelectorAll("article.entry, .inline-marker");
      for (var i = 0; i < all.length; i++) {
        var r = all[i].getBoundingClientRect();
        if (r.height && r.bottom > 60) return all[i].id ? all[i] : null;
      }
      return null;
    }

    function chosenEnd() {
      if (!main.classList.contains("choosing") || !shown || !parentOf) return null;
      var isParent = {}, end = null, k;
      for (k in shown) if (parentOf[k]) isParent[parentOf[k]] = true;
      for (k in shown) if (!isParent[k]) end = k;
      return end;
    }

    function updateSession(doc) {
      var newMain = doc.getElementById("transcript");
      if (!newMain) return;
      // what the reader has now
      var anchor = firstOnScreen(), anchorId = anchor && anchor.id;
      var anchorTop = anchor ? anchor.getBoundingClientRect().top : 0;
      var atEnd = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 4;
      var folds = {}, ds = document.querySelectorAll("main details, details.diagnostics"), i;
      for (i = 0; i < ds.length; i++) { var key = foldKey(ds[i]); if (key) folds[key] = ds[i].open; }
      var built = {}, secs = main.querySelectorAll("section.chunk");
      for (i = 0; i < secs.length; i++) if (!secs[i].classList.contains("pending")) built[secs[i].getAttribute("data-after")] = true;
      var chosen = chosenEnd();
      var navWasBuilt = navBuilt;

      // the new parts in place of the old; the browser's own scroll anchoring stays out of
      // it (it would pick a node in the parts replaced and move the page after us)
      root.classList.add("live-swap");
      window.requestAnimationFrame(function () {
        window.requestAnimationFrame(function () { root.classList.remove("live-swap"); });
      });
      swap(document.querySelector("header.session-header"), doc.querySelector("header.session-header"));
      var oldDiag = document.querySelector("details.diagnostics"), newDiag = doc.querySelector("details.diagnostics");
      if (oldDiag && newDiag) swap(oldDiag, newDiag);
      else if (oldDiag) oldDiag.parentNode.removeChild(oldDiag);
      else if (newDiag) { var layout = document.querySelector(".layout"); layout.parentNode.insertBefore(document.adoptNode(newDiag), layout); }
      var newBox = doc.querySelector(".outline-box");
      if (outlineBox && newBox) {
        var summary = outlineBox.querySelector("summary"), newSummary = newBox.querySelector("summary");
        while (outlineBox.lastChild && outlineBox.lastChild !== summary) outlineBox.removeChild(outlineBox.lastChild);
        if (summary && newSummary) {
          while (summary.firstChild) summary.removeChild(summary.firstChild);
          while (newSummary.firstChild) summary.appendChild(document.adoptNode(newSummary.firstChild));
          newBox.removeChild(newSummary);
        }
        while (newBox.firstChild) outlineBox.appendChild(document.adoptNode(newBox.firstChild));
        navBuilt = !outlineBox.querySelector(":scope > noscript");
        if (navWasBuilt) buildNav();
      }
      if (observer) { observer.disconnect(); observer = null; }
      // parts whose source did not change stay as they are (built, sized, folded as the
      // reader left them); the others are replaced, the new ones added
      var stubs = main.querySelectorAll(".stub");
      for (i = 0; i < stubs.length; i++) stubs[i].parentNode.removeChild(stubs[i]);
      var kids = Array.prototype.slice.call(main.childNodes);
      var fresh = Array.prototype.slice.call(newMain.childNodes), sources = sourcesOf(newMain);
      for (i = 0; i < fresh.length; i++) {
        if (i < kids.length && liveSource && liveSource[i] === sources[i]) continue;
        var node = document.adoptNode(fresh[i]);
        if (i < kids.length) main.replaceChild(node, kids[i]); else main.appendChild(node);
      }
      for (i = fresh.length; i < kids.length; i++) main.removeChild(kids[i]);
      liveSource = sources;
      main.setAttribute("data-leaf", newMain.getAttribute("data-leaf") || "");

      // the reader's state back
      parentOf = null; shown = null;
      for (i = 0; i < hits.length; i++) hits[i].classList.remove("hit");
      hits = []; at = -1; last = "";
      if (count) count.textContent = "";
      var ps = pendingParts();
      for (i = 0; i < ps.length; i++) if (built[ps[i].getAttribute("data-after")]) materialize(ps[i]);
      startLazy();
      ds = document.querySelectorAll("main details, details.diagnostics");
      for (i = 0; i < ds.length; i++) {
        var k = foldKey(ds[i]);
        if (k && k in folds) ds[i].open = folds[k];
        else if (allOpen) ds[i].open = true;
      }
      index();
      if (viewSelect && viewSelect.value) setView(viewSelect.value, false);  // new parts built
      if (chosen) choose(chosen);
      else { main.classList.remove("choosing"); if (nav) nav.classList.remove("choosing"); if (status) status.hidden = true; }
      // a reader at the end follows the session; anyone else stays where they were
      if (atEnd && !anchorId) return;
      if (atEnd) { window.scrollTo(0, document.documentElement.scrollHeight); return; }
      var again = anchorId && document.getElementById(anchorId);
      if (again) window.scrollBy(0, again.getBoundingClientRect().top - anchorTop);
    }

    function updateIndex(doc) {
      var parts = [".index-header > h1", ".index-header > p"];
      for (var i = 0; i < parts.length; i++) swap(document.querySelector(parts[i]), doc.querySelector(parts[i]));
      var olds = document.querySelectorAll("table.sessions > tbody"), news = doc.querySelectorAll("table.sessions > tbody");
      for (var j = 0; j < olds.length && j < news.length; j++) swap(olds[j], news[j]);
      var sorted = document.querySelectorAll("table.sessions th[aria-sort]");
      for (var k = 0; k < sorted.length; k++) {
        // the click turns the order round: set the other one first, so it comes back as it was
        sorted[k].setAttribute("aria-sort", sorted[k].getAttribute("aria-sort") === "descending" ? "ascending" : "descending");
        sorted[k].click();
      }
      for (var f = 0; f < filters.length; f++) if (filters[f].value) runFilter(filters[f]);
    }

    setInterval(check, 1000);
    check();
  })();
})();
