// ---- live, on a session page: the changed parts swapped in, the reader's place kept
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

function liveUpdate(doc) {
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
