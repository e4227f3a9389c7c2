// ---- keyboard: j/k next/previous entry, e/c expand/collapse (and the toolbar's buttons);
// the other keys are the parts' own: / search (find), t theme, ? keys, Esc
function setAll(open) {
  allOpen = open;
  var all = document.querySelectorAll("main details, .diagnostics");
  for (var i = 0; i < all.length; i++) {
    // "collapse all" folds branches too, except those holding the path being shown
    if (!open && all[i].classList.contains("branch") && shown && shown[all[i].getAttribute("data-branch")]) continue;
    all[i].open = open;
  }
}

function visibleEntries() {
  // entries, not the one-line markers between them (a model change, a label): j and k
  // step over those (issue 38)
  var all = main.querySelectorAll("article.entry"), out = [];
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
  if (next) {
    var was = main.querySelector("article.entry.stepped");
    if (was) was.classList.remove("stepped");
    next.classList.add("stepped");  // a frame shows which entry j and k reached
    next.scrollIntoView({ block: "start" });
  }
}

ACTIONS.expand = function () { setAll(true); };
ACTIONS.collapse = function () { setAll(false); };
if (main) {
  onKey("e", function () { setAll(true); });
  onKey("c", function () { setAll(false); });
  onKey("j", function () { step(1); });
  onKey("k", function () { step(-1); });
}
