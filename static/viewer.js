// piexport page behaviour. Progressive enhancement only: without JavaScript every branch
// and every collapsed block is still reachable through <details>. Content is never parsed
// as HTML here (no HTML-string sinks; Trusted Types 'none' enforces it): only classes, attributes,
// textContent and the open state of <details> change. Every datum comes from data-*
// attributes the server wrote.
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

  // ---- branches: show one path root → leaf, the others folded where they fork
  var main = document.getElementById("transcript");
  var nav = document.querySelector("nav.outline");
  var status = document.getElementById("branch-status");
  var byId = null, parentOf, inlineChild, branchOf, defaultPath, shown = null;

  function index() {
    if (byId || !main) return;
    byId = {}; parentOf = {}; inlineChild = {}; branchOf = {};
    var ds = main.querySelectorAll("details.branch");
    for (var i = 0; i < ds.length; i++) branchOf[ds[i].getAttribute("data-branch")] = ds[i];
    var els = main.querySelectorAll("[data-entry-id]");
    for (var j = 0; j < els.length; j++) {
      var el = els[j], id = el.id, p = el.getAttribute("data-parent");
      byId[id] = el;
      parentOf[id] = p;
      // the child drawn straight after its parent (not inside a fold of its own)
      if (p && !branchOf[id] && !inlineChild[p]) inlineChild[p] = id;
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
    return nav && nav.querySelector('.rows a[href="#' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]');
  }

  function summaryOf(id) {
    var a = navLink(id);
    a = a && a.querySelector(".t");
    return a ? a.textContent : "";
  }

  function choose(id) {
    index();
    if (!byId[id]) return;
    var set = pathThrough(id);
    var isDefault = sameAsDefault(set);
    shown = isDefault ? defaultPath : set;
    main.classList.toggle("choosing", !isDefault);
    if (status) status.hidden = isDefault;
    var stubs = main.querySelectorAll(".stub");
    for (var s = 0; s < stubs.length; s++) stubs[s].parentNode.removeChild(stubs[s]);
    for (var b in branchOf) branchOf[b].open = !!shown[b];
    for (var e in byId) {
      var el = byId[e], box = el.parentElement;
      // only entries drawn in a container on the chosen path; folded branches keep theirs
      var inView = box === main || (box.tagName === "DETAILS" && shown[box.getAttribute("data-branch")]);
      var hide = !isDefault && inView && !shown[e];
      el.classList.toggle("off-choice", hide);
      if (hide && shown[parentOf[e]]) {
        var stub = document.createElement("button");
        stub.type = "button";
        stub.className = "stub";
        stub.setAttribute("data-choose", e);
        stub.textContent = "↳ Another branch continues here: " + summaryOf(e);
        box.insertBefore(stub, el);
      }
    }
    if (nav) {
      nav.classList.toggle("choosing", !isDefault);
      var rows = nav.querySelectorAll(".rows a");
      for (var r = 0; r < rows.length; r++) {
        rows[r].parentElement.classList.toggle("chosen", !isDefault && !!shown[rows[r].getAttribute("href").slice(1)]);
      }
    }
  }

  function reveal(hash) {
    if (!hash || hash.length < 2) return;
    var id;
    try { id = decodeURIComponent(hash.slice(1)); } catch (e) { return; }
    var el = document.getElementById(id);
    if (!el) return;
    index();
    var entry = el.closest("[data-entry-id]");
    if (entry && main && main.contains(entry) && shown && !shown[entry.id]) choose(entry.id);
    openAncestors(el);
    el.scrollIntoView({ block: "start" });
    if (nav) {
      var old = nav.querySelectorAll("a.current");
      for (var i = 0; i < old.length; i++) old[i].classList.remove("current");
      var link = navLink(id);
      if (link) {
        link.classList.add("current");
        var box = nav.getBoundingClientRect(), r = link.getBoundingClientRect();
        if (r.top < box.top || r.bottom > box.bottom) link.scrollIntoView({ block: "nearest" });
      }
    }
  }

  // The tree starts folded (phones see the conversation first); wide screens unfold it.
  var outlineBox = document.querySelector(".outline-box");
  if (outlineBox && window.matchMedia("(min-width: 861px)").matches) outlineBox.open = true;

  window.addEventListener("hashchange", function () { reveal(window.location.hash); });
  reveal(window.location.hash);

  function setAll(open) {
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
      var el = document.getElementById(target);
      if (el) el.scrollIntoView({ block: "start" });
      return;
    }
    var link = t.closest('a[href^="#"]');
    if (link && link.getAttribute("href") === window.location.hash) reveal(window.location.hash);
  });

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
      hits[at].scrollIntoView({ block: "center" });
      count.textContent = (at + 1) + " / " + hits.length;
    });
  }

  // ---- keyboard: / search, j/k next/previous entry, e/c expand/collapse, t theme
  function visibleEntries() {
    var all = main.querySelectorAll("article.entry, .inline-marker"), out = [];
    for (var i = 0; i < all.length; i++) if (all[i].getClientRects().length) out.push(all[i]);
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
    if (next) next.scrollIntoView({ block: "start" });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.target instanceof Element && ev.target.closest("input, textarea, select")) return;
    if (ev.key === "/" && search) { ev.preventDefault(); search.focus(); return; }
    if (ev.key === "t") toggleTheme();
    else if (ev.key === "e" && main) setAll(true);
    else if (ev.key === "c" && main) setAll(false);
    else if (ev.key === "j" && main) step(1);
    else if (ev.key === "k" && main) step(-1);
  });

  // ---- print: every fold open, then back as it was
  var reopened = [];
  window.addEventListener("beforeprint", function () {
    var closed = document.querySelectorAll("details:not([open])");
    for (var i = 0; i < closed.length; i++) { closed[i].open = true; reopened.push(closed[i]); }
  });
  window.addEventListener("afterprint", function () {
    for (var i = 0; i < reopened.length; i++) reopened[i].open = false;
    reopened = [];
  });

  // ---- index pages: filter and sort the session table in place
  var filter = document.getElementById("filter");
  var table = document.querySelector("table.sessions");
  if (filter && table) {
    filter.addEventListener("input", function () {
      var q = filter.value.toLowerCase();
      var rows = table.tBodies[0].rows;
      for (var i = 0; i < rows.length; i++) {
        rows[i].hidden = q !== "" && rows[i].textContent.toLowerCase().indexOf(q) < 0;
      }
    });
    var heads = table.querySelectorAll("th[data-sort]");
    for (var h = 0; h < heads.length; h++) {
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
  }
})();
