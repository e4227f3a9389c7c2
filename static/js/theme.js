// ---- theme: follows the system unless toggled; the choice is remembered per browser
try {
  var saved = window.localStorage.getItem("piexport-theme");
  if (saved === "dark" || (!saved && window.matchMedia("(prefers-color-scheme: dark)").matches)) {
    root.classList.add("dark");
  }
} catch (e) { /* storage may be off for file:// pages */ }

function toggleTheme() {
  var dark = root.classList.toggle("dark");
  try { window.localStorage.setItem("piexport-theme", dark ? "dark" : "light"); } catch (e) { /* ignore */ }
}
ACTIONS.theme = toggleTheme;
onKey("t", toggleTheme);
