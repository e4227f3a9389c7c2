// ---- keyboard help (issue 28): ? (or the toolbar's ? button) shows the keys in a popover
// under the toolbar; Esc, a click elsewhere or Close hide it. A browser without popovers
// gets a class instead.
var keys = document.getElementById("keys");
function showKeys() {
  if (!keys) return;
  if (keys.showPopover) { if (!keys.matches(":popover-open")) keys.showPopover(); }
  else keys.classList.add("shown");
}
ACTIONS.keys = function () { if (keys && !keys.togglePopover) keys.classList.toggle("shown"); };
ACTIONS["close-keys"] = function () { if (keys && !keys.togglePopover) keys.classList.remove("shown"); };
onKey("Escape", function () { if (keys) keys.classList.remove("shown"); });
onKey("?", function (ev) { ev.preventDefault(); showKeys(); });
