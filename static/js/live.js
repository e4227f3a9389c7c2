// ---- live: a page served by `piexport serve` follows its session as pi writes it.
// Only there: a static page has no "piexport-live" meta tag, and its CSP allows no
// connection. The page asks its own URL (HEAD) whether it changed; when it did, it fetches
// itself, parses that with the one Trusted Types policy (our own escaped render, never run:
// DOMParser runs no script), and swaps the changed parts, keeping the reader's scroll
// position, open folds, built parts, chosen branch and filter.
function swap(oldEl, newEl) {
  if (oldEl && newEl) oldEl.parentNode.replaceChild(document.adoptNode(newEl), oldEl);
}

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
    liveUpdate(doc);  // the "live-session" or "live-index" part
  }

  setInterval(check, 1000);
  check();
})();
