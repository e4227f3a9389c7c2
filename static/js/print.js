// ---- print: every fold open, then back as it was (a session page builds its waiting parts
// first: the "lazy" part's own beforeprint, which comes before this one)
var reopened = [];
window.addEventListener("beforeprint", function () {
  var closed = document.querySelectorAll("details:not([open])");
  for (var i = 0; i < closed.length; i++) { closed[i].open = true; reopened.push(closed[i]); }
});
window.addEventListener("afterprint", function () {
  for (var i = 0; i < reopened.length; i++) reopened[i].open = false;
  reopened = [];
});
