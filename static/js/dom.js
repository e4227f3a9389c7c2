// ---- small helpers the parts share
function el(tag, cls, text) {  // an element with its class and text (never markup)
  var n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined && text !== null) n.textContent = String(text);
  return n;
}

function openAncestors(node) {
  for (var p = node.parentElement; p; p = p.parentElement) {
    if (p.tagName === "DETAILS") p.open = true;
  }
}

function param(name) {  // a parameter of the page's address, or ""
  try { return new URLSearchParams(window.location.search).get(name) || ""; } catch (e) { return ""; }
}
