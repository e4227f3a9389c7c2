// ---- copy buttons (issue 28): on an entry's code blocks, commands and outputs (a folded
// one copies all of it) and beside its link, added when the entry is first pointed at or
// reached with the keyboard. The clipboard API where the page may use it; else the
// browser's copy command; else the text is selected for the reader to copy. Labels are
// CSS (::before), so no button text joins the entry's text.
var BLOCKS = "details.fold, .code-with-lines, pre.hl, pre.output";

function copyButton(what, cls) {
  var b = document.createElement("button");
  b.type = "button";
  b.className = "copy" + (cls ? " " + cls : "");
  b.setAttribute("data-action", "copy");
  b.setAttribute("aria-label", what);
  b.title = what;
  return b;
}

function addCopyButtons(entry) {
  if (!entry || entry.__copy) return;
  entry.__copy = true;
  var blocks = entry.querySelectorAll(BLOCKS);
  for (var i = 0; i < blocks.length; i++) {
    var block = blocks[i];
    // one button a block: not for a block inside another one, nor in a fold's preview
    if (block.parentElement.closest(BLOCKS) || block.closest("summary")) continue;
    var owner = block.closest("[data-entry-id]");
    if (owner !== entry && owner && owner.__copy) continue;
    var what = block.closest(".tool-bash, .bash-execution") && block.matches("pre.hl") ? "Copy the command" : "Copy this text";
    block.parentNode.insertBefore(copyButton(what), block);
  }
  var links = entry.querySelectorAll(".deeplink");
  for (var j = 0; j < links.length; j++) {
    if (links[j].nextElementSibling && links[j].nextElementSibling.classList.contains("copy-link")) continue;
    links[j].parentNode.insertBefore(copyButton("Copy a link to this entry", "copy-link"), links[j].nextSibling);
  }
}

function blockText(block) {
  if (block.tagName === "PRE") return block.textContent;
  var code = block.querySelectorAll(":scope > pre:not(.preview), :scope > .code-with-lines > pre.hl, :scope > pre.hl");
  if (block.classList.contains("code-with-lines")) return block.querySelector("pre.hl").textContent;
  if (code.length) return code[code.length - 1].textContent;
  var parts = [];  // a fold of another kind (a list, a diff): its text without the summary
  for (var c = block.firstElementChild; c; c = c.nextElementSibling) if (c.tagName !== "SUMMARY") parts.push(c.innerText || c.textContent);
  return parts.join("\n");
}

function copyFrom(button) {
  var text, block = null;
  if (button.classList.contains("copy-link")) {
    var link = button.previousElementSibling;
    text = window.location.href.split(/[?#]/)[0] + (link ? link.getAttribute("href") : "");
  } else {
    block = button.nextElementSibling;
    if (!block) return;
    text = blockText(block);
  }
  function said(state) {
    button.classList.remove("done", "failed", "selected");
    button.classList.add(state);
    window.setTimeout(function () { button.classList.remove(state); }, 2500);
  }
  function fallback() {
    var area = document.createElement("textarea");
    area.className = "copy-buffer";
    area.value = text;
    area.setAttribute("readonly", "");
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    button.focus();
    if (ok) { said("done"); return; }
    if (block) {  // no clipboard at all (a file:// page may have none): select it instead
      var sel = window.getSelection();
      sel.selectAllChildren(block.tagName === "PRE" ? block : (block.querySelector("pre.hl, pre:not(.preview)") || block));
      said("selected");
    } else said("failed");
  }
  if (navigator.clipboard && navigator.clipboard.writeText && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(function () { said("done"); }, fallback);
  } else fallback();
}

if (main) {
  var wantCopy = function (ev) {
    var t = ev.target;
    if (t instanceof Element) addCopyButtons(t.closest("article.entry, .inline-marker"));
  };
  main.addEventListener("pointerover", wantCopy);
  main.addEventListener("focusin", wantCopy);
}
ACTIONS.copy = copyFrom;
