// ---- live, on an index page: its header and tables swapped in, sorted and filtered as before
function liveUpdate(doc) {
  var parts = [".index-header > h1", ".index-header > p"];
  for (var i = 0; i < parts.length; i++) swap(document.querySelector(parts[i]), doc.querySelector(parts[i]));
  var olds = document.querySelectorAll("table.sessions > tbody"), news = doc.querySelectorAll("table.sessions > tbody");
  for (var j = 0; j < olds.length && j < news.length; j++) swap(olds[j], news[j]);
  var sorted = document.querySelectorAll("table.sessions th[aria-sort]");
  for (var k = 0; k < sorted.length; k++) {
    // the click turns the order round: set the other one first, so it comes back as it was
    sorted[k].setAttribute("aria-sort", sorted[k].getAttribute("aria-sort") === "descending" ? "ascending" : "descending");
    sorted[k].click();
  }
  for (var f = 0; f < filters.length; f++) if (filters[f].value) runFilter(filters[f]);
}
