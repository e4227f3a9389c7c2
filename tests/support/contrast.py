"""WCAG contrast of every visible text on a page, measured in the browser.

``LOW_CONTRAST`` is a script for ``page.evaluate``: it walks every text node the reader can
see (and every empty input's placeholder), takes its colour and the colour behind it (each
ancestor's background composited over the ones under it, ``opacity`` applied as a group over
what is behind it), and returns the texts under the WCAG AA minimum: 4.5:1, or 3:1 for large
text (24px, or 18.66px bold). Background images and gradients are not looked at: every
background the pages draw behind text is a plain colour (the fades over folded previews are
drawn over their last line on purpose).
"""

from __future__ import annotations

LOW_CONTRAST = r"""
(limit) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const g = canvas.getContext("2d", { willReadFrequently: true });
  const cache = new Map();
  function rgba(css) {  // any CSS colour (color-mix, oklch…) → [r, g, b, a], 0-255 and 0-1
    if (cache.has(css)) return cache.get(css);
    g.clearRect(0, 0, 1, 1);
    g.fillStyle = "rgba(0, 0, 0, 0)";
    g.fillStyle = css;
    g.fillRect(0, 0, 1, 1);
    const d = g.getImageData(0, 0, 1, 1).data;
    const out = [d[0], d[1], d[2], d[3] / 255];
    cache.set(css, out);
    return out;
  }
  function over(top, under) {  // top (with alpha) over an opaque colour
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
  }
  function mix(a, b, t) { return [0, 1, 2].map(i => a[i] * t + b[i] * (1 - t)).concat([1]); }
  function lum(c) {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  function ratio(a, b) {
    const x = lum(a), y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  const canvasColour = rgba(getComputedStyle(document.documentElement).colorScheme.includes("dark") && dark ? "#121212" : "#ffffff");
  // colour behind an element's text and the opacity groups above it, from the root down
  // (each element's from its parent's: a page has tens of thousands of text nodes)
  const memo = new Map();
  function behind(el) {
    if (!el) return [canvasColour, []];
    let got = memo.get(el);
    if (got) return got;
    const [under, outer] = behind(el.parentElement);
    const cs = getComputedStyle(el);
    const o = parseFloat(cs.opacity);
    const groups = o < 1 ? outer.concat([[o, under]]) : outer;
    const c = rgba(cs.backgroundColor);
    got = [c[3] > 0 ? over(c, under) : under, groups];
    memo.set(el, got);
    return got;
  }
  function check(el, colourCss, what) {
    const cs = getComputedStyle(el);
    const [bg0, groups] = behind(el);
    let fg = over(rgba(colourCss), bg0), bg = bg0;
    for (let i = groups.length - 1; i >= 0; i--) {
      fg = mix(fg, groups[i][1], groups[i][0]);
      bg = mix(bg, groups[i][1], groups[i][0]);
    }
    const size = parseFloat(cs.fontSize), weight = parseInt(cs.fontWeight, 10) || 400;
    const large = size >= 24 || (size >= 18.66 && weight >= 700);
    const need = large ? 3 : 4.5;
    const r = ratio(fg, bg);
    if (r + 1e-6 < need) {
      const where = [];
      for (let e = el; e && where.length < 4; e = e.parentElement) {
        where.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.classList.length ? "." + [...e.classList].join(".") : ""));
      }
      return { ratio: Math.round(r * 100) / 100, need, text: what.slice(0, 40),
        fg: fg.slice(0, 3).map(Math.round), bg: bg.slice(0, 3).map(Math.round), where: where.join(" < ") };
    }
    return null;
  }
  const bad = [], seen = new Set(), done = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue.trim();
    const el = n.parentElement;
    if (!text || !el || done.has(el)) continue;  // one element's texts share their colours
    done.add(el);
    if (el.closest("svg, noscript, script, style, template, title")) continue;
    if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: false })) continue;
    const found = check(el, getComputedStyle(el).color, text);
    if (found) {
      const key = found.where + found.ratio;
      if (!seen.has(key)) { seen.add(key); bad.push(found); }
    }
    if (bad.length >= limit) break;
  }
  for (const input of document.querySelectorAll("input[placeholder]")) {
    if (input.value || !input.checkVisibility({ visibilityProperty: true })) continue;
    const found = check(input, getComputedStyle(input, "::placeholder").color, "placeholder: " + input.placeholder);
    if (found) bad.push(found);
  }
  return bad;
}
"""
