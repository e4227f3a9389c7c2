// ---- folding: case and accents folded away, one character at a time (NFKD, combining marks
// dropped, lower case, NFC), as piexport/text/fold.py folds; the same for the archive's
// search, a search result's landing and a page's own search box. NOSPACE_CLASS: the scripts
// written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar), from fold.py's table.
var NOSPACE_CLASS = PIEXPORT.nospace.map(function (r) {
  return "\\u{" + r[0].toString(16) + "}-\\u{" + r[1].toString(16) + "}";
}).join("");
var NOSPACE = new RegExp("[" + NOSPACE_CLASS + "]", "u");
var foldCache = new Map();

function foldChar(c) {
  var f = foldCache.get(c);
  if (f === undefined) {
    f = c.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().normalize("NFC");
    foldCache.set(c, f);
  }
  return f;
}

function fold(s) {
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase();
  // each character folded on its own; only capitals and non-ASCII ones change
  return s.replace(/[A-Z]|[^\x00-\x7f]/gu, foldChar);
}

// The folded text and, per folded UTF-16 unit, the index of the source unit it came from
// (where: null when they are the same places, for the common ASCII text).
function foldMap(s) {
  if (/^[\x00-\x7f]*$/.test(s)) return { text: s.toLowerCase(), where: null };  // 1:1
  var r = "", where = [], i = 0;
  for (var ch of s) {
    var f = ch.charCodeAt(0) < 128 ? ch.toLowerCase() : foldChar(ch);
    r += f;
    for (var j = 0; j < f.length; j++) where.push(i);
    i += ch.length;
  }
  where.push(i);
  return { text: r, where: where };
}
