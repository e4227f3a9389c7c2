// ---- view filters (issue 28): everything, the prompts only, no tool output, the errors
// only; a class on <main> (the CSS hides the rest) and ?view=… in the address, so a view
// can be kept and sent. A filtered view needs every part of a big page built. An entry a
// link, a search or the tree leads to is shown whatever the filter (.pinned).
var viewSelect = document.getElementById("view");
var viewCount = document.getElementById("view-count");
var VIEWS = ["prompts", "quiet", "errors"];

function setView(view, remember) {
  if (!main) return;
  if (VIEWS.indexOf(view) < 0) view = "";
  for (var k = 0; k < VIEWS.length; k++) {
    main.classList.toggle("view-" + VIEWS[k], VIEWS[k] === view);
    // the tree follows: prompts only and errors only leave their own rows (the CSS)
    if (nav) nav.classList.toggle("view-" + VIEWS[k], VIEWS[k] === view);
  }
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
    // the errors view counts failed entries, as the header and the index do (a turn that
    // ended in an error or was stopped, a failed tool call: data-failure, set from the one
    // definition in report/stats.py); the others count the entries they show
    var errors = view === "errors";
    var n = 0, all = main.querySelectorAll(errors ? "[data-failure]" : "article.entry, .inline-marker");
    for (var i = 0; view && i < all.length; i++) if (shownNow(all[i])) n++;
    viewCount.textContent = !view ? "" : !n ? "none here" : errors ? n + " error" + (n === 1 ? "" : "s") + " shown" : n + " shown";
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
