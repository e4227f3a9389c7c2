// ---- a link to a place in the page (#id), followed or opened: every fold around the place
// opens and the page scrolls so it is clear of the sticky toolbar. On a session page REVEAL
// (the "landing" part) adds what that page does: see there.
function toolbarBottom() {
  var bar = document.querySelector(".toolbar");
  return bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
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
    if (match.bottom - headTop <= room - 24) { window.scrollBy(0, headTop - top); pin(el); return; }
  }
  window.scrollBy(0, match.top - top - (range ? room / 3 : 0));
  pin(el);
}

// A place landed on stays where it landed while what is above it takes its real height:
// on a big page the parts near the new position are built (the "lazy" part) and entries
// drawn for the first time (content-visibility) only after the scroll, and the browser's
// own scroll anchoring may hold on to one of them (a waiting part at the screen's top edge,
// under the toolbar) and let the place sink thousands of pixels. So after a landing the
// page follows the place: at each layout change (ResizeObserver: after layout, before
// paint, so no wrong frame shows) and each frame, until 60 frames pass with nothing to
// correct, or the reader scrolls, clicks or types.
var pinned = null, pinTop = 0, pinCalm = 0, pinWatch = null, pinLoop = false;
function pin(el) {
  pinned = el;
  pinTop = el.getBoundingClientRect().top;
  pinCalm = 0;
  if (!pinWatch && "ResizeObserver" in window) pinWatch = new ResizeObserver(holdPin);
  if (pinWatch) pinWatch.observe(document.body);
  if (!pinLoop) { pinLoop = true; window.requestAnimationFrame(pinFrame); }
}
function holdPin() {  // true when the place had moved and was put back
  if (!pinned) return false;
  if (!pinned.isConnected) { unpin(); return false; }
  var moved = pinned.getBoundingClientRect().top - pinTop;
  if (Math.abs(moved) < 1) return false;
  window.scrollBy(0, moved);
  return true;
}
function pinFrame() {
  if (pinned) pinCalm = holdPin() ? 0 : pinCalm + 1;
  if (pinned && pinCalm < 60) window.requestAnimationFrame(pinFrame);
  else { unpin(); pinLoop = false; }
}
function unpin() {
  pinned = null;
  if (pinWatch) pinWatch.disconnect();
}
["wheel", "touchstart", "keydown", "pointerdown"].forEach(function (type) {
  window.addEventListener(type, unpin, { capture: true, passive: true });
});

// the words a search result's link came for (session.html?hl=WORDS#entry-ID)
function landingWords() {
  var q = param("hl");
  return q ? q.split(/\s+/).filter(Boolean).slice(0, 20) : [];
}

function reveal(hash, words) {
  if (!hash || hash.length < 2) return;
  var id;
  try { id = decodeURIComponent(hash.slice(1)); } catch (e) { return; }
  var el = document.getElementById(id) || (REVEAL ? REVEAL.find(id) : null);
  if (!el) return;
  var entry = REVEAL ? REVEAL.entry(el) : null;
  if (el.tagName === "DETAILS") el.open = true;
  openAncestors(el);
  var first = REVEAL ? REVEAL.mark(entry, words) : null;
  land(entry || el, first);
  if (REVEAL) REVEAL.current(id);
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

// a link to the place already in the address: the browser does nothing, so do it again
CLICKS.push(function (t) {
  var link = t.closest('a[href^="#"]');
  if (link && link.getAttribute("href") === window.location.hash) reveal(window.location.hash);
  return !!link;
});
