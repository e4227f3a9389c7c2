// ---- branches (issue 17): tick two leaves in the Branches panel, or open #compare=A,B,
// and the two are shown side by side from their fork, turn by turn. Built from the page's
// JSON data island with textContent only: no session text is ever parsed as HTML.
(function compareView() {
  var box = document.getElementById("compare");
  var dataEl = document.getElementById("branch-data");
  var panel = document.getElementById("branches");
  if (!box || !dataEl) return;
  var data;
  try { data = JSON.parse(dataEl.textContent); } catch (e) { return; }
  // sides and turns are held once in the island; pairs name them by their place
  var sides = data.sides || [], rows = data.turns || [];
  function side(k) {
    var s = sides[k];
    if (s && !s.built) { s.turns = s.turns.map(function (r) { return rows[r]; }); s.built = true; }
    return s;
  }
  var leaves = data.leaves || [];
  var picks = [];

  function link(dom, text, cls) {
    var a = el("a", cls, text);
    a.setAttribute("href", "#" + dom);
    return a;
  }
  function leafIndex(id) {
    for (var i = 0; i < leaves.length; i++) if (leaves[i].id === id) return i;
    return -1;
  }
  function wanted() {
    var h = window.location.hash;
    if (h.indexOf("#compare=") !== 0) return null;
    var parts = h.slice(9).split(",");
    if (parts.length !== 2) return null;
    var a, b;
    try { a = decodeURIComponent(parts[0]); b = decodeURIComponent(parts[1]); } catch (e) { return null; }
    var i = leafIndex(a), j = leafIndex(b);
    return i < 0 || j < 0 || i === j ? null : [i, j];
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
  function sideHead(side, letter) {
    var head = el("div", "cmp-side cmp-" + letter.toLowerCase());
    var title = el("div", "cmp-title");
    title.appendChild(el("span", "cmp-letter", letter));
    title.appendChild(link(side.dom, "", "branch-link"));
    title.lastChild.appendChild(document.createTextNode("Branch "));
    title.lastChild.appendChild(el("code", null, side.leaf));
    for (var l = 0; l < side.labels.length; l++) title.appendChild(el("span", "badge label", side.labels[l]));
    if (side.stop === "error" || side.stop === "aborted") title.appendChild(el("span", "badge bad", "ended: " + side.stop));
    head.appendChild(title);
    head.appendChild(el("p", "branch-figures", plural(side.entries, "entry").replace("entrys", "entries") + " · " + side.figures));
    var files = el("p", "branch-line");
    files.appendChild(el("span", "k", "Modified"));
    if (!side.files.length) files.appendChild(el("span", "muted", " no files"));
    for (var f = 0; f < side.files.length; f++) {
      files.appendChild(document.createTextNode(f ? ", " : " "));
      files.appendChild(el("code", null, side.files[f]));
    }
    head.appendChild(files);
    return head;
  }

  function turnCell(side, i, letter) {
    var cell = el("div", "cmp-cell cmp-" + letter.toLowerCase());
    cell.appendChild(el("span", "cmp-letter", letter));
    if (i === null) { cell.classList.add("empty"); cell.appendChild(el("span", "muted", "no such turn")); return cell; }
    var t = side.turns[i];
    var ask = link(t[0], t[1] === null ? "(continues the shared turn)" : t[1], "turn-ask" + (t[1] === null ? " muted" : ""));
    cell.appendChild(ask);
    if (t[2]) cell.appendChild(el("p", "turn-answer", t[2]));
    var meta = [];
    if (t[3]) meta.push(plural(t[3], "tool call"));
    if (t[4]) meta.push(plural(t[4], "tool error"));
    if (t[5] === "error" || t[5] === "aborted") meta.push("ended: " + t[5]);
    if (meta.length) cell.appendChild(el("p", "turn-meta muted", meta.join(" · ")));
    return cell;
  }

  var MATCH = { same: "same request", changed: "different request", onlyA: "only in A", onlyB: "only in B" };

  function diffBlock(text) {
    var pre = el("pre", "cmp-diff");
    var lines = text.split("\n");
    for (var i = 0; i < lines.length; i++) {
      var c = lines[i].charAt(0), cls = "";
      if (lines[i].indexOf("@@") === 0) cls = "hunk";
      else if (lines[i].indexOf("+++") === 0 || lines[i].indexOf("---") === 0) cls = "file";
      else if (c === "+") cls = "add";
      else if (c === "-") cls = "del";
      pre.appendChild(el("span", cls, lines[i] + "\n"));
    }
    return pre;
  }

  // The pair as asked for (#compare=X,Y shows X as A): the page holds each pair once,
  // so the other order swaps the sides, the alignment and the diffs (+ and - trade places).
  function swapDiff(text) {
    return text.split("\n").map(function (line) {
      var m = /^@@ -(\S+) \+(\S+) @@(.*)$/.exec(line);
      if (m) return "@@ -" + m[2] + " +" + m[1] + " @@" + m[3];
      if (line.indexOf("--- A/") === 0) return "+++ B/" + line.slice(6);
      if (line.indexOf("+++ B/") === 0) return "--- A/" + line.slice(6);
      if (line.charAt(0) === "+") return "-" + line.slice(1);
      if (line.charAt(0) === "-") return "+" + line.slice(1);
      return line;
    }).join("\n").replace(/^(\+\+\+ B\/.*)\n(--- A\/.*)$/m, "$2\n$1");
  }
  function pairFor(i, j) {
    var p = data.pairs[Math.min(i, j) + "," + Math.max(i, j)];
    if (!p) return p;
    p = { fork: p.fork, forkText: p.forkText, shared: p.shared, a: side(p.a), b: side(p.b),
      turns: p.turns, onlyA: p.onlyA, onlyB: p.onlyB, both: p.both };
    if (i < j) return p;
    var flip = { onlyA: "onlyB", onlyB: "onlyA", same: "same", changed: "changed" };
    return {
      fork: p.fork, forkText: p.forkText, shared: p.shared, a: p.b, b: p.a,
      turns: p.turns.map(function (t) { return [t[1], t[0], flip[t[2]]]; }),
      onlyA: p.onlyB, onlyB: p.onlyA,
      both: p.both.map(function (f) {
        return { path: f.path, status: f.status, reason: f.reason,
          diff: f.diff && swapDiff(f.diff) };
      })
    };
  }

  function show(i, j) {
    var p = pairFor(i, j);
    if (!p) return false;
    while (box.firstChild) box.removeChild(box.firstChild);
    var head = el("div", "compare-head");
    head.appendChild(el("h2", null, "Two branches compared"));
    var close = el("button", null, "Close");
    close.type = "button";
    close.setAttribute("data-close-compare", "");
    head.appendChild(close);
    box.appendChild(head);
    var shared = el("p", "compare-shared");
    if (p.fork === null) shared.textContent = "No shared history: the two start from different roots.";
    else {
      shared.appendChild(document.createTextNode("Shared history: " + plural(p.shared, "entry").replace("entrys", "entries") + ", up to "));
      shared.appendChild(link(p.fork, p.forkText));
    }
    box.appendChild(shared);
    var grid = el("div", "compare-grid");
    var tops = el("div", "cmp-row cmp-tops");
    tops.appendChild(sideHead(p.a, "A"));
    tops.appendChild(sideHead(p.b, "B"));
    grid.appendChild(tops);
    for (var r = 0; r < p.turns.length; r++) {
      var t = p.turns[r];
      var row = el("div", "cmp-row " + t[2]);
      var cont = t[0] !== null && t[1] !== null && p.a.turns[t[0]][1] === null && p.b.turns[t[1]][1] === null;
      row.appendChild(el("div", "cmp-match", cont ? "after the fork point, before any new request" : MATCH[t[2]] || t[2]));
      row.appendChild(turnCell(p.a, t[0], "A"));
      row.appendChild(turnCell(p.b, t[1], "B"));
      grid.appendChild(row);
    }
    if (!p.turns.length) grid.appendChild(el("p", "muted", "Neither branch has entries of its own."));
    box.appendChild(grid);
    var files = el("div", "compare-files");
    files.appendChild(el("h3", null, "Files modified"));
    if (!p.onlyA.length && !p.onlyB.length && !p.both.length) files.appendChild(el("p", "muted", "Neither branch modified a file."));
    var groups = [["Only A", p.onlyA], ["Only B", p.onlyB]];
    for (var g = 0; g < groups.length; g++) {
      if (!groups[g][1].length) continue;
      var line = el("p", "branch-line");
      line.appendChild(el("span", "k", groups[g][0]));
      for (var k = 0; k < groups[g][1].length; k++) {
        line.appendChild(document.createTextNode(k ? ", " : " "));
        line.appendChild(el("code", null, groups[g][1][k]));
      }
      files.appendChild(line);
    }
    for (var b = 0; b < p.both.length; b++) {
      var fc = p.both[b], item = el("div", "cmp-file");
      var what = el("p", "branch-line");
      what.appendChild(el("span", "k", "Both"));
      what.appendChild(document.createTextNode(" "));
      what.appendChild(el("code", null, fc.path));
      what.appendChild(document.createTextNode(fc.status === "same" ? ": the same final version on both"
        : fc.status === "different" ? ": final versions differ (A → B)" : ": cannot compare, " + fc.reason));
      item.appendChild(what);
      if (fc.diff) item.appendChild(diffBlock(fc.diff));
      files.appendChild(item);
    }
    box.appendChild(files);
    box.hidden = false;
    return true;
  }

  function syncPicks(pair) {
    picks = pair ? [pair[0], pair[1]] : [];
    var boxes = panel ? panel.querySelectorAll("input[data-pick]") : [];
    for (var i = 0; i < boxes.length; i++) boxes[i].checked = picks.indexOf(parseInt(boxes[i].getAttribute("data-pick"), 10)) >= 0;
  }

  function fromHash(scroll) {
    var pair = wanted();
    if (!pair) { box.hidden = true; return; }
    syncPicks(pair);
    if (show(pair[0], pair[1]) && scroll) box.scrollIntoView({ block: "start" });
  }

  if (panel) {
    panel.addEventListener("change", function (ev) {
      var t = ev.target;
      if (!(t instanceof HTMLInputElement) || !t.hasAttribute("data-pick")) return;
      var n = parseInt(t.getAttribute("data-pick"), 10);
      picks = picks.filter(function (x) { return x !== n; });
      if (t.checked) picks.push(n);
      if (picks.length > 2) picks = picks.slice(picks.length - 2);
      if (picks.length < 2) return; // the boxes show the one pick already
      syncPicks(picks);
      window.location.hash = "compare=" + encodeURIComponent(leaves[picks[0]].id) + "," + encodeURIComponent(leaves[picks[1]].id);
    });
  }
  box.addEventListener("click", function (ev) {
    var t = ev.target;
    if (t instanceof Element && t.closest("button[data-close-compare]")) {
      syncPicks(null);
      window.location.hash = "branches";
    }
  });
  window.addEventListener("hashchange", function () { fromHash(true); });
  if (wanted() && panel) panel.open = true;
  fromHash(true);
})();
