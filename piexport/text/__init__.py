"""Text helpers every stage uses and none owns: cutting without splitting a redaction token
(``cut``), control and invisible characters (``textsafe``), ANSI escapes (``ansi``),
Markdown-safe text (``mdsafe``) and how figures are written (``numbers``). The lowest layer:
it imports nothing else of piexport."""
