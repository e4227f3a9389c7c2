// piexport page behaviour. Progressive enhancement only: without JavaScript every branch
// and every collapsed block is still reachable through <details>. Content is never parsed
// as HTML here (no innerHTML; Trusted Types 'none' enforces it): only classes, attributes
// and the open state of <details> change.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("has-js");
  try {
    var saved = window.localStorage.getItem("piexport-theme");
    if (saved === "dark" || (!saved && window.matchMedia("(prefers-color-scheme: dark)").matches)) {
      root.classList.add("dark");
    }
  } catch (e) { /* storage may be off for file:// pages */ }

  function openAncestors(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") p.open = true;
    }
  }

  function reveal(hash) {
    if (!hash || hash.length < 2) return;
    var el = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!el) return;
    openAncestors(el);
    el.scrollIntoView({ block: "start" });
    var links = document.querySelectorAll(".outline a.current");
    for (var i = 0; i < links.length; i++) links[i].classList.remove("current");
    var nav = document.querySelector('.outline a[href="' + hash.replace(/"/g, "") + '"]');
    if (nav) nav.classList.add("current");
  }

  // The tree starts folded (phones see the conversation first); wide screens unfold it.
  var box = document.querySelector(".outline-box");
  if (box && window.matchMedia("(min-width: 801px)").matches) box.open = true;

  window.addEventListener("hashchange", function () { reveal(window.location.hash); });
  document.addEventListener("DOMContentLoaded", function () { reveal(window.location.hash); });

  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!(t instanceof Element)) return;
    var button = t.closest("button[data-action]");
    if (button) {
      var action = button.getAttribute("data-action");
      if (action === "theme") {
        var dark = root.classList.toggle("dark");
        try { window.localStorage.setItem("piexport-theme", dark ? "dark" : "light"); } catch (e) { /* ignore */ }
      } else {
        var all = document.querySelectorAll("main details, .diagnostics");
        for (var i = 0; i < all.length; i++) all[i].open = action === "expand";
      }
      return;
    }
    var link = t.closest('a[href^="#"]');
    if (link && link.getAttribute("href") === window.location.hash) reveal(window.location.hash);
  });

  // In-page search: Enter jumps to the next entry containing the text, on any branch.
  var search = document.getElementById("search");
  var count = document.getElementById("search-count");
  var hits = [], at = -1, last = "";
  if (search) {
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
          var all = document.querySelectorAll("main article.entry, main .inline-marker");
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
      openAncestors(hits[at]);
      hits[at].scrollIntoView({ block: "center" });
      count.textContent = (at + 1) + " / " + hits.length;
    });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.target instanceof Element && ev.target.closest("input, textarea")) return;
    if (ev.key === "/" && search) { ev.preventDefault(); search.focus(); return; }
    if (ev.key === "t") document.querySelector('button[data-action="theme"]').click();
    if (ev.key === "e") document.querySelector('button[data-action="expand"]').click();
    if (ev.key === "c") document.querySelector('button[data-action="collapse"]').click();
  });

  // Index pages: filter and sort the session table in place.
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
