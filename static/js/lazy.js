// ---- lazy parts: <noscript> source → elements, on demand
var main = document.getElementById("transcript");
// a served page (see the "live" part) keeps the source of its transcript's parts as they came
var liveSource = main && document.querySelector('meta[name="piexport-live"]') ? sourcesOf(main) : null;
var nav = document.querySelector("nav.outline");
var status = document.getElementById("branch-status");
var allOpen = false, observer = null;

// What each part of a transcript was when it arrived (compared, never parsed again).
function sourcesOf(box) {
  var out = [], xml = new XMLSerializer();
  for (var c = box.firstChild; c; c = c.nextSibling) out.push(c.nodeType === 1 ? xml.serializeToString(c) : c.nodeValue);
  return out;
}

function build(ns) {
  var t = document.createElement("template");
  htmlPolicy();
  t.innerHTML = policy.createHTML(ns.textContent);
  var box = ns.parentNode;
  box.replaceChild(t.content, ns);
  return box;
}

function pendingParts() {
  return main ? main.querySelectorAll("section.chunk.pending") : [];
}

function source(section) {
  var ns = section.firstElementChild;
  return ns && ns.tagName === "NOSCRIPT" ? ns.textContent : "";
}

function materialize(section) {
  if (!section.classList.contains("pending")) return;
  var ns = section.firstElementChild;
  section.classList.remove("pending");
  section.style.height = "";
  if (observer) observer.unobserve(section);
  if (!ns || ns.tagName !== "NOSCRIPT") return;
  build(ns);
  if (allOpen) {
    var ds = section.querySelectorAll("details");
    for (var i = 0; i < ds.length; i++) ds[i].open = true;
  }
  if (shown && shown !== defaultPath) applyChoice(section);
}

function materializeAll() {
  var ps = pendingParts();
  for (var i = 0; i < ps.length; i++) materialize(ps[i]);
  buildNav();
}

// The part whose source holds id="…", built; null when no part does.
function materializeHolding(id) {
  var needle = 'id="' + id.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;") + '"';
  var ps = pendingParts();
  for (var i = 0; i < ps.length; i++) {
    if (source(ps[i]).indexOf(needle) >= 0) { materialize(ps[i]); return document.getElementById(id); }
  }
  return null;
}

function textLength(node) {
  var n = 0;
  for (var c = node.firstChild; c; c = c.nextSibling) n += c.nodeType === 3 ? c.length : 0;
  return n;
}

function startLazy() {
  var ps = pendingParts();
  if (!ps.length) return;
  // the waiting parts get a height in proportion to their source, so the scroll bar
  // tells the truth roughly; each is built when it comes near the screen
  var liveHeight = main.getBoundingClientRect().height;
  var liveChars = parseInt(ps[0].getAttribute("data-after"), 10) || 0;
  var ratio = liveChars > 0 ? Math.min(liveHeight / liveChars, 0.2) : 0.05;
  for (var j = 0; j < ps.length; j++) ps[j].style.height = Math.max(40, Math.round(textLength(ps[j].firstElementChild) * ratio)) + "px";
  if (!("IntersectionObserver" in window)) { materializeAll(); return; }
  observer = new IntersectionObserver(function (seen) {
    for (var k = 0; k < seen.length; k++) if (seen[k].isIntersecting) materialize(seen[k].target);
  }, { rootMargin: "1500px 0px" });
  for (var m = 0; m < ps.length; m++) observer.observe(ps[m]);
}
startLazy();

var navBuilt = !nav || !nav.querySelector(".outline-box > noscript");
function buildNav() {
  if (navBuilt) return;
  navBuilt = true;
  build(nav.querySelector(".outline-box > noscript"));
}

// printing: every part built first (the "print" part then opens every fold)
window.addEventListener("beforeprint", function () { materializeAll(); });
