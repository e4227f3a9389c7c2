// ---- in-page search: Enter jumps to the next entry holding the text, on any branch; folded
// as the archive's search folds it (case and accents: cafe finds Café, café finds CAFE)
var search = document.getElementById("search");
var count = document.getElementById("search-count");
var hits = [], at = -1, last = "";
if (search) onKey("/", function (ev) { ev.preventDefault(); search.focus(); });
if (search && main) {
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { search.value = ""; search.blur(); }
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    var typed = search.value.trim(), q = fold(typed);
    if (q !== last) {
      for (var i = 0; i < hits.length; i++) hits[i].classList.remove("hit");
      hits = [];
      at = -1;
      last = q;
      if (q) {
        findInParts(q);
        var all = main.querySelectorAll("article.entry, .inline-marker");
        for (var j = 0; j < all.length; j++) {
          if (fold(all[j].textContent).indexOf(q) >= 0) {
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
    land(hits[at], markWords(hits[at], [typed], true));
    count.textContent = (at + 1) + " / " + hits.length;
  });
}

// Build the waiting parts whose text holds q, folded (their source with the tags taken out).
function findInParts(q) {
  var ps = pendingParts();
  for (var i = 0; i < ps.length; i++) {
    var ns = ps[i].firstElementChild;
    var text = ns.__plain;
    if (text === undefined) {
      text = ns.textContent.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
        .replace(/&quot;|&#34;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
      text = fold(text);
      ns.__plain = text;
    }
    if (text.indexOf(q) >= 0) materialize(ps[i]);
  }
}
