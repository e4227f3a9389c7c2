// ---- the archive's search box on the indexes: Enter opens search.html?q=…
Array.prototype.forEach.call(document.querySelectorAll("div.site-search"), function (form) {
  var input = form.querySelector("input");
  if (!input) return;
  input.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    var target = form.getAttribute("data-search") || "search.html";
    if (!/^(\.\.\/)?search\.html$/.test(target)) return;
    window.location.href = target + (input.value ? "?q=" + encodeURIComponent(input.value) : "");
  });
});
