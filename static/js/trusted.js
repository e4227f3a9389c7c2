// ---- the one Trusted Types policy, "piexport": it passes the page's own HTML only (a waiting
// part's <noscript> source; on a served page, the same page fetched again from its origin)
var policy = null;

function htmlPolicy() {
  if (!policy) {
    policy = window.trustedTypes && window.trustedTypes.createPolicy
      ? window.trustedTypes.createPolicy("piexport", { createHTML: function (x) { return x; } })
      : { createHTML: function (x) { return x; } };
  }
  return policy;
}
