// ---- the tree follows the reading position: the row of the entry at the top of the
// screen is marked, and the tree scrolls itself to keep it in sight. No focus moves and
// the page never scrolls for it; once a frame at most, and only while the tree is open.
var reading = null, readingQueued = false;

// Scroll the tree (never the page) so a row is in sight, a third of the way down.
function showRow(link) {
  var box = nav.getBoundingClientRect(), r = link.getBoundingClientRect();
  if (r.top < box.top || r.bottom > box.bottom) nav.scrollTop += r.top - box.top - box.height / 3;
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
