// ---- landing (issue 28): a search result links to session.html?hl=WORDS#entry-ID. The
// words are found in that entry (folded as search folds them: case and accents), every
// fold hiding one is opened, the page scrolls so the entry's head and the first match
// are clear of the sticky toolbar, and the words are highlighted (CSS Custom Highlight
// API: ranges over the page's text, nothing in the DOM changes) until the reader moves
// on: another link, Escape, or the entry scrolled out of sight.
var HIGHLIGHT = "piexport-hit";
var WORDISH = /[\p{L}\p{N}]/u;
var landedOn = null, landedSeen = null;

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
    var f = foldMap(n.nodeValue);
    nodes.push(n); starts.push(text.length); maps.push(f.where);
    text += f.text;
  }
  function at(pos, end) {  // folded position → [node, offset in it]
    var lo = 0, hi = starts.length - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (starts[mid] <= pos - (end ? 1 : 0)) lo = mid; else hi = mid - 1; }
    var local = pos - starts[lo], map = maps[lo];
    // an end takes in what folded to nothing after it (a combining accent, with its letter)
    if (end) return [nodes[lo], map ? Math.max(map[local - 1] + 1, map[local]) : local];
    return [nodes[lo], map ? map[local] : local];
  }
  var ranges = [];
  words.forEach(function (w) {
    var word = fold(w).trim();
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

onKey("Escape", clearLanding);

// What a link to a place in a session page does besides opening and scrolling (the
// "anchors" part): the place is built if its part still waits, its branch is shown, the
// view filter lets its entry through, a search result's words are marked in it, and its
// row in the tree is marked current.
REVEAL = {
  find: materializeHolding,
  entry: function (el) {  // the entry holding el, on the path shown
    index();
    var entry = el.closest("[data-entry-id]");
    if (entry && main && main.contains(entry) && shown && !shown[entry.id]) choose(entry.id);
    return entry;
  },
  mark: function (entry, words) {  // the first match shown, or null
    unfilter(entry);
    clearLanding();
    return entry && words && words.length ? markWords(entry, words, false) : null;
  },
  current: function (id) {
    if (!nav) return;
    var old = nav.querySelectorAll("a.current");
    for (var i = 0; i < old.length; i++) old[i].classList.remove("current");
    var link = navLink(id);
    if (link) {
      link.classList.add("current");
      showRow(link);
    }
  }
};
