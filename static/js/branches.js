// ---- branches: show one path root → leaf, the others folded where they fork
var parentOf = null, inlineChild, branchStart, defaultPath, shown = null;

// Parents and fork points of every entry: from the elements built so far and from the
// source of the parts still waiting (the same attributes, read with a pattern).
function index() {
  if (parentOf || !main) return;
  parentOf = {}; inlineChild = {}; branchStart = {};
  var ds = main.querySelectorAll("details.branch");
  for (var i = 0; i < ds.length; i++) branchStart[ds[i].getAttribute("data-branch")] = true;
  var els = main.querySelectorAll("[data-entry-id]");
  for (var j = 0; j < els.length; j++) parentOf[els[j].id] = els[j].getAttribute("data-parent");
  var ps = pendingParts(), m;
  var entryRe = /\sid="([^"]*)"\sdata-entry-id="[^"]*"\sdata-parent="([^"]*)"/g;
  var branchRe = /data-branch="([^"]*)"/g;
  for (var k = 0; k < ps.length; k++) {
    var text = source(ps[k]);
    while ((m = entryRe.exec(text))) parentOf[m[1]] = m[2];
    while ((m = branchRe.exec(text))) branchStart[m[1]] = true;
  }
  // the child drawn straight after its parent (not inside a fold of its own)
  for (var id in parentOf) {
    var p = parentOf[id];
    if (p && !branchStart[id] && !inlineChild[p]) inlineChild[p] = id;
  }
  defaultPath = pathThrough(main.getAttribute("data-leaf"));
  shown = defaultPath;
}

// Every entry from the root down to id, then on along the line drawn below it.
function pathThrough(id) {
  var set = {}, cur = id, guard = 0;
  while (cur && !set[cur] && guard++ < 10000000) { set[cur] = true; cur = parentOf[cur]; }
  cur = id;
  while (inlineChild[cur] && !set[inlineChild[cur]]) { cur = inlineChild[cur]; set[cur] = true; }
  return set;
}

function sameAsDefault(set) {
  for (var k in set) if (!defaultPath[k]) return false;
  for (var d in defaultPath) if (!set[d]) return false;
  return true;
}

function navLink(id) {
  return nav && navBuilt && nav.querySelector('.rows a[href="#' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]');
}

function summaryOf(id) {
  buildNav();
  var a = navLink(id);
  a = a && a.querySelector(".t");
  return a ? a.textContent : "";
}

function choose(id) {
  index();
  if (!(id in parentOf)) return;
  var set = pathThrough(id);
  var isDefault = sameAsDefault(set);
  shown = isDefault ? defaultPath : set;
  main.classList.toggle("choosing", !isDefault);
  if (status) status.hidden = isDefault;
  var stubs = main.querySelectorAll(".stub");
  for (var s = 0; s < stubs.length; s++) stubs[s].parentNode.removeChild(stubs[s]);
  applyChoice(main);
  if (nav) {
    nav.classList.toggle("choosing", !isDefault);
    var rows = nav.querySelectorAll(".rows a");
    for (var r = 0; r < rows.length; r++) {
      rows[r].parentElement.classList.toggle("chosen", !isDefault && !!shown[rows[r].getAttribute("href").slice(1)]);
    }
  }
}

// Fold and mark the entries under box (the page, or a part just built) for the path shown.
function applyChoice(box) {
  var isDefault = shown === defaultPath;
  var ds = box.querySelectorAll("details.branch");
  for (var b = 0; b < ds.length; b++) ds[b].open = !!shown[ds[b].getAttribute("data-branch")];
  var els = box.querySelectorAll("[data-entry-id]");
  for (var i = 0; i < els.length; i++) {
    var el = els[i], e = el.id, up = el.parentElement;
    // only entries drawn in a container on the chosen path; folded branches keep theirs
    var inView = up === main || up.classList.contains("chunk") ||
      (up.tagName === "DETAILS" && shown[up.getAttribute("data-branch")]);
    var hide = !isDefault && inView && !shown[e];
    el.classList.toggle("off-choice", hide);
    if (hide && shown[parentOf[e]]) {
      var stub = document.createElement("button");
      stub.type = "button";
      stub.className = "stub";
      stub.setAttribute("data-choose", e);
      stub.textContent = "↳ Another branch continues here: " + summaryOf(e);
      up.insertBefore(stub, el);
    }
  }
  // context edits are branch-relative: an entry shows what the model saw on the path shown
  // (the latest edit on it wins); the page was written for the current branch
  var notes = box.querySelectorAll(".context-edit-note[data-edit]"), last = {};
  for (var n = 0; n < notes.length; n++) {
    var note = notes[n];
    note.hidden = isDefault ? !note.hasAttribute("data-in-effect") : !shown[note.getAttribute("data-edit")];
    var owner = note.closest("[data-entry-id]");
    if (!note.hidden && owner) {
      if (last[owner.id]) last[owner.id].hidden = true;
      last[owner.id] = note;
    }
  }
}

// a stub where another branch continues: show that branch from there
CLICKS.push(function (t) {
  var stub = t.closest("button[data-choose]");
  if (!stub) return false;
  var target = stub.getAttribute("data-choose");
  choose(target);
  var el = document.getElementById(target) || materializeHolding(target);
  if (el) el.scrollIntoView({ block: "start" });
  return true;
});

ACTIONS["current-branch"] = function () {
  index();
  choose(main.getAttribute("data-leaf"));
  var leaf = document.getElementById(main.getAttribute("data-leaf"));
  if (leaf) leaf.scrollIntoView({ block: "center" });
};
