// piexport page behaviour. Progressive enhancement only: without JavaScript every branch
// and every collapsed block is still reachable through <details>, and the parts of a big
// transcript that wait in <noscript> are ordinary HTML. With JavaScript those parts stay one
// inert text node each until scrolled to, searched or linked; then build() turns the page's
// own <noscript> source into elements. That is the only HTML parsing here: the Trusted Types
// policy "piexport" passes nothing else, and the CSP allows no other policy. Otherwise only
// classes, attributes, textContent and the open state of <details> change.
//
// Each page gets the parts of static/js/ it uses, in one fixed order, inside one function
// (piexport/page/scripts.py assembles them; PIEXPORT holds the constants it takes from
// Python). This part comes first: the places where the others meet.
var root = document.documentElement;
root.classList.add("has-js");

// What the parts give each other. ACTIONS: a button's data-action → what it does.
// CLICKS: other clicks, offered to each in turn until one takes it (returns true).
// KEYS: a key → what it does (see onKey). REVEAL: on a session page, what a link to a place
// in it does besides opening and scrolling (the "anchors" part).
var ACTIONS = {}, CLICKS = [], KEYS = {}, REVEAL = null;

function onKey(key, run) {
  (KEYS[key] = KEYS[key] || []).push(run);
}

document.addEventListener("click", function (ev) {
  var t = ev.target;
  if (!(t instanceof Element)) return;
  var button = t.closest("button[data-action]");
  if (button) {
    var run = ACTIONS[button.getAttribute("data-action")];
    if (run) run(button);
    return;
  }
  for (var i = 0; i < CLICKS.length; i++) if (CLICKS[i](t)) return;
});

// A key typed outside a text box, with no Ctrl, Alt or Meta held.
document.addEventListener("keydown", function (ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target instanceof Element && ev.target.closest("input, textarea, select")) return;
  var runs = KEYS[ev.key] || [];
  for (var i = 0; i < runs.length; i++) runs[i](ev);
});
