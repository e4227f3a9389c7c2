// ---- index pages: filter and sort each table in place (its filter box names it)
var tables = document.querySelectorAll("table.sessions");
var filters = document.querySelectorAll("input[data-filter]");
// a row's own words: not those of the sessions it links to (a fork's title, marked
// data-filter-skip), so a filter finds the sessions that are about the words
function ownText(node) {
  var out = "";
  for (var c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) out += c.data;
    else if (c.nodeType === 1 && !c.hasAttribute("data-filter-skip")) out += ownText(c);
  }
  return out;
}
function runFilter(box) {
  var t = document.getElementById(box.getAttribute("data-filter"));
  if (!t) return;
  var q = box.value.toLowerCase(), rows = t.tBodies[0].rows;
  for (var i = 0; i < rows.length; i++) {
    if (rows[i].__text === undefined) rows[i].__text = ownText(rows[i]).toLowerCase();
    rows[i].hidden = q !== "" && rows[i].__text.indexOf(q) < 0;
  }
}
Array.prototype.forEach.call(filters, function (box) {
  box.addEventListener("input", function () { runFilter(box); });
});
// a table wider than its box says so (the hint is CSS; this says when it applies)
var wraps = document.querySelectorAll(".table-wrap[data-wide]");
function markOverflow() {
  for (var w = 0; w < wraps.length; w++) wraps[w].classList.toggle("overflows", wraps[w].scrollWidth > wraps[w].clientWidth + 1);
}
if (wraps.length) { markOverflow(); window.addEventListener("resize", markOverflow); }
Array.prototype.forEach.call(tables, function (table) {
  var heads = table.querySelectorAll("th[data-sort]");
  for (var h = 0; h < heads.length; h++) {
    heads[h].tabIndex = 0;
    heads[h].addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.currentTarget.click(); }
    });
    heads[h].addEventListener("click", function (e) {
      var th = e.currentTarget, col = th.cellIndex, numeric = th.getAttribute("data-sort") === "num";
      var dir = th.getAttribute("aria-sort") === "descending" ? 1 : -1;
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-value") || a.cells[col].textContent;
        var y = b.cells[col].getAttribute("data-value") || b.cells[col].textContent;
        if (numeric) { x = parseFloat(x) || 0; y = parseFloat(y) || 0; return (x - y) * dir; }
        return x.localeCompare(y) * dir;
      });
      for (var i = 0; i < rows.length; i++) body.appendChild(rows[i]);
      var all = table.querySelectorAll("th[data-sort]");
      for (var j = 0; j < all.length; j++) all[j].removeAttribute("aria-sort");
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    });
  }
});
