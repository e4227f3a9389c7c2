"""The search index a site ships: data loaded by ``search.html`` as classic scripts.

``file://`` pages may not fetch, import modules or run WebAssembly, but they may load a
``<script src>`` from their own folder. So every index file is a script that hands one
JSON value to ``piexportSearch`` — data, never markup — and the page loads only the files
a query needs:

- ``search/meta.js``: the sessions (page, title, project, start), the tool, model and label
  names, how many term shards there are, and the index's fields.
- ``search/entries.js``: one small row per record (role, error, tool, model, label, time),
  all records of a session together; what filters need without any text.
- ``search/t/<n>.js``: term → record numbers (ascending, delta-coded in base 36). A term's
  shard depends on its first two characters, so a prefix needs one shard; a two-character
  group bigger than ``SHARD_BYTES`` (every ``000nn`` line number) is split by the next
  character, again while a part is too big, and meta lists the split prefixes with the
  shards under each (what a stem that is a split prefix loads).
- ``search/d/<key>-<n>.js``: one session's records (entry id, DOM id, line, text), in
  parts of about ``DOC_CHARS`` characters, deflated and base64-coded: loaded only for the
  hits on screen (snippets) and the hits whose text a query must check (phrases).

Each session's part is written by the worker that renders its page (text from the session
as shown: selected and redacted, checked by the output gate), with its terms in
``.piexport-search/<key>.json``; a build that rendered or removed anything merges those
into the shards, so a rebuild re-indexes only what changed.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

import orjson

from ..output import write_atomic
from ..read.model import JSON, Session
from ..version import INDEX_VERSION
from .records import ROLES, session_records
from .tokens import prefix_shards, shard_key, term_shard, terms

CACHE = ".piexport-search"
SHARD_BYTES = 96_000
"""Aim for term shards about this big (postings text), so a query loads little."""
SPLIT_BYTES = SHARD_BYTES
"""A group of terms sharing a prefix bigger than this is split (see ``split_prefixes``)."""
MAX_SPLIT = 8
"""Terms are keyed on at most this many characters (split prefixes are shorter): where one
huge term makes its group too big, no split makes it smaller, and this stops the splitting."""
DOC_CHARS = 160_000
"""A session's texts go into files of about this many characters: a long session's first
page of results needs the parts holding its shown hits, not the whole session (a part
holds at least one record, however long)."""


Gate = Callable[[str, Path], None]
"""The output gate as ``gate(text, path)``, when redacting: it sees each file's text before
it is written (``site.gated.text_gate``)."""


def session_key(page: str) -> str:
    """A stable, file-name-safe key for a session's index files: from its page path."""
    return hashlib.sha1(page.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def script(call: str, *args: Any) -> str:
    """``piexportSearch.<call>(args…);`` — JSON arguments, line separators escaped."""
    body = ",".join(orjson.dumps(a).decode() for a in args)
    body = body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"piexportSearch.{call}({body});\n"


_CALL = re.compile(rb"\ApiexportSearch\.(\w+)\((.*)\);\n?\Z", re.S)
MAX_FILE_BYTES = 64 * 1024 * 1024
"""An index file bigger than this is not read: a site folder may come from someone else."""
MAX_DOC_BYTES = 32 * 1024 * 1024
"""A text part that inflates to more than this is damaged (or a compression bomb): the
biggest this piexport writes is a few records and one of ``MAX_RECORD_CHARS`` characters,
about 13 MB at worst. search.js stops at the same size."""


class DamagedIndex(ValueError):
    """An index file that is not as this piexport writes it (named in the message)."""


def read_script(path: Path) -> tuple[str, list[Any]]:
    """The call and arguments of an index file (``piexport search --site``)."""
    with path.open("rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        msg = f"{path}: over {MAX_FILE_BYTES // 2**20} MB, too big for a search index file"
        raise DamagedIndex(msg)
    m = _CALL.match(data)
    if not m:
        msg = f"{path}: not a piexport search index file (cut short, or not one)"
        raise DamagedIndex(msg)
    return m[1].decode(), orjson.loads(b"[" + m[2] + b"]")


def unpack_docs(data: Any) -> list[list[Any]]:
    """A text part's records ([entry id, DOM id, line, text]), inflated at most to
    ``MAX_DOC_BYTES``: past that it is refused, having cost no more than that."""
    if not isinstance(data, str):
        raise DamagedIndex("a text part holds no text")
    inflate = zlib.decompressobj()
    raw = inflate.decompress(base64.b64decode(data, validate=True), MAX_DOC_BYTES)
    if not inflate.eof:
        if len(raw) >= MAX_DOC_BYTES:
            msg = f"a text part inflates to more than {MAX_DOC_BYTES // 2**20} MB"
            raise DamagedIndex(msg)
        raise DamagedIndex("a text part is cut short")
    rows = orjson.loads(raw)
    if not isinstance(rows, list) or not all(
        isinstance(r, list)
        and len(r) == 4
        and isinstance(r[0], str)
        and isinstance(r[1], str)
        and isinstance(r[2], int)
        and isinstance(r[3], str)
        for r in rows
    ):
        raise DamagedIndex("a text part holds rows that are not records")
    return rows


_KEY = re.compile(r"[0-9a-f]{16}\Z")
MAX_SHARDS = 65536


def _ints(values: Any, low: int, high: int) -> bool:
    """A list of integers, each from ``low`` up to (not including) ``high``."""
    return isinstance(values, list) and all(_is_int(v) and low <= v < high for v in values)


def meta_problem(meta: Any) -> str | None:
    """What is wrong with ``meta.js``'s value (a site folder may come from someone else, its
    index edited or damaged), or None. search.js checks the same."""
    if not isinstance(meta, dict):
        return "it holds no object"
    shards, records = meta.get("shards"), meta.get("records")
    if not _is_int(shards) or not 1 <= shards <= MAX_SHARDS:
        return f"it says there are {shards!r} term shards"
    if not _is_int(records) or records < 0:
        return f"it says there are {records!r} records"
    for name in ("tools", "models", "labels", "roles"):
        names = meta.get(name)
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            return f"its {name} are not a list of names"
    split = meta.get("split", {})
    if not isinstance(split, dict) or not all(
        isinstance(k, str) and _ints(v, 0, shards) for k, v in split.items()
    ):
        return "its split prefixes are not prefixes with shards"
    sessions = meta.get("sessions")
    if not isinstance(sessions, list):
        return "its sessions are not a list"
    at = 0
    for i, s in enumerate(sessions):
        if not (
            isinstance(s, dict)
            and isinstance(s.get("h"), str)
            and isinstance(s.get("t"), str)
            and (s.get("p") is None or isinstance(s.get("p"), str))
            and (s.get("d") is None or (_is_int(s.get("d")) and abs(s["d"]) < 2**53))
            and isinstance(s.get("k"), str)
            and _KEY.match(s["k"])
            and _is_int(s.get("n"))
            and at <= s["n"] <= records
            and _ints(s.get("c"), 0, records + 1)
            and s["c"][:1] == [0]
            and s["c"] == sorted(set(s["c"]))
        ):
            return f"its session {i + 1} is not one"
        at = s["n"]
    return None


def entries_problem(entries: Any, meta: JSON) -> str | None:
    """What is wrong with ``entries.js``'s value, given a sound meta, or None."""
    if not isinstance(entries, dict):
        return "it holds no object"
    records = meta["records"]
    limits = {
        "k": 2 * len(ROLES),
        "t": len(meta["tools"]),
        "m": len(meta["models"]),
        "l": len(meta["labels"]),
    }
    for key, high in limits.items():
        if not _ints(entries.get(key), 0, high) or len(entries[key]) != records:
            return f"its {key!r} column is not {records} numbers below {high}"
    if not _ints(entries.get("w"), -(2**53), 2**53) or len(entries["w"]) != records:
        return f"its times are not {records} numbers"
    return None


def write_session_index(
    session: Session,
    out: Path,
    page: str,
    fields: frozenset[str] | None = None,
    gate: Gate | None = None,
) -> None:
    """Write one session's part of the index (in the worker that rendered its page).

    ``gate(text, path)`` is the output gate when redacting: it sees the text itself, before
    it is escaped as JSON and deflated, so nothing it would stop hides in either form."""
    key = session_key(page)
    records = session_records(session, fields)
    lines = {e.id: e.line for e in session.entries}
    docs = [[r.entry_id, r.dom, lines.get(r.entry_id, 0), r.text] for r in records]
    rows = [
        [
            ROLES.index(r.role),
            r.tool,
            r.model,
            r.label,
            r.time,
            int(r.error),
            " ".join(dict.fromkeys(terms(r.text))),
        ]
        for r in records
    ]
    starts = doc_parts(docs)
    parts = [docs[a:b] for a, b in zip(starts, [*starts[1:], len(docs)], strict=True)]
    rows_json = orjson.dumps({"v": INDEX_VERSION, "page": page, "rows": rows, "parts": starts})
    doc_path = [out / "search" / "d" / f"{key}-{n}.js" for n in range(len(parts))]
    if gate is not None:  # what the files say, each value apart (a blank line), not their JSON
        for part, path in zip(parts, doc_path, strict=True):
            gate("\n\n".join(str(v) for doc in part for v in doc), path)
        # a row's terms are a bag of words, not a text anyone reads: each word is a unit of
        # its own (two neighbours there, "password e7356651", are no assignment)
        gate(
            "\n\n".join(
                [
                    page,
                    *(str(v) for row in rows for v in row[:-1]),
                    *(term for row in rows for term in str(row[-1]).split()),
                ]
            ),
            out / CACHE / f"{key}.json",
        )
    for n, (part, path) in enumerate(zip(parts, doc_path, strict=True)):
        packed = base64.b64encode(zlib.compress(orjson.dumps(part), 6)).decode("ascii")
        write_atomic(path, script("docs", f"{key}-{n}", packed))
    write_atomic(out / CACHE / f"{key}.json", rows_json.decode())


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def part_problem(part: JSON, docs: Path, key: str) -> str | None:
    """Why a session's part (``.piexport-search/<key>.json``) cannot be merged, or None."""
    rows, parts = part.get("rows"), part.get("parts")
    if not isinstance(rows, list) or not isinstance(parts, list) or not parts:
        return "its index part has no rows"
    if not all(_is_int(p) and 0 <= p <= len(rows) for p in parts) or parts[0] != 0:
        return "its index part names text parts that cannot be"
    if parts != sorted(set(parts)):
        return "its index part names text parts out of order"
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) == 7
            and _is_int(row[0])
            and 0 <= row[0] < len(ROLES)
            and all(isinstance(v, str) for v in (row[1], row[2], row[3], row[6]))
            and (row[4] is None or (_is_int(row[4]) and abs(row[4]) < 2**53))
            and row[5] in (0, 1)
        ):
            return "its index part holds a row that is not one"
    missing = [n for n in range(len(parts)) if not (docs / f"{key}-{n}.js").is_file()]
    if missing:
        return f"its texts ({docs / f'{key}-{missing[0]}.js'}) are missing"
    return None


def doc_parts(docs: Sequence[Sequence[Any]]) -> list[int]:
    """Where each part of a session's texts starts (record offsets; the first is 0)."""
    starts, size = [0], 0
    for i, doc in enumerate(docs):
        if size >= DOC_CHARS:
            starts.append(i)
            size = 0
        size += len(doc[3]) + 40
    return starts


@dataclass(frozen=True, slots=True)
class IndexedSession:
    page: str
    title: str
    project: str
    started: int | None


def _b36(n: int) -> str:
    if n == 0:
        return "0"
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(digits[r])
    return "".join(reversed(out))


_B36_TABLE: list[str] = []
"""Base 36 of every number below 36**3: nearly every gap between two records holding a term
is one of them, and a merge writes millions of gaps."""


def encode_postings(numbers: Sequence[int]) -> str:
    if not _B36_TABLE:
        _B36_TABLE.extend(_b36(i) for i in range(36**3))
    table, size = _B36_TABLE, len(_B36_TABLE)
    gaps = [b - a for a, b in zip((0, *numbers), numbers, strict=False)]
    return ",".join([table[g] if g < size else _b36(g) for g in gaps])


def decode_postings(text: str) -> list[int]:
    out, at = [], 0
    for part in text.split(","):
        at += int(part, 36)
        out.append(at)
    return out


def split_prefixes(sizes: dict[str, int], limit: int) -> set[str]:
    """Prefixes (two characters or more) whose terms would make a shard bigger than
    ``limit``: each is split by the character after it (terms no longer than the prefix stay
    in the prefix's own shard), and so on while a part is still too big."""
    out: set[str] = set()

    def split(terms: list[str], k: int) -> None:
        groups: dict[str, list[str]] = {}
        for t in terms:
            groups.setdefault(t[:k], []).append(t)
        for prefix, group in groups.items():
            longer = [t for t in group if len(t) > k]
            if k >= MAX_SPLIT or not longer or sum(sizes[t] for t in group) <= limit:
                continue
            out.add(prefix)
            split(longer, k + 1)

    split(list(sizes), 2)
    return out


class Postings:
    """The records holding a term, read from the term shards meta points to, the way
    search.js finds them; each shard file is read once."""

    def __init__(self, site: Path, meta: dict[str, Any]) -> None:
        self._site = site
        self._shards: int = meta["shards"]
        self._split: dict[str, list[int]] = meta.get("split") or {}
        self._read: dict[int, dict[str, str]] = {}

    def _shard(self, n: int) -> dict[str, str]:
        if n not in self._read:
            path = self._site / "search" / "t" / f"{n}.js"
            _, (_, shard) = read_script(path)
            if not isinstance(shard, dict) or not all(isinstance(v, str) for v in shard.values()):
                raise DamagedIndex(f"{path}: not a term shard")
            self._read[n] = shard
        return self._read[n]

    def _decode(self, n: int, text: str) -> list[int]:
        try:
            return decode_postings(text)
        except ValueError as exc:
            path = self._site / "search" / "t" / f"{n}.js"
            raise DamagedIndex(f"{path}: a term's records are not numbers") from exc

    def term(self, term: str) -> list[int]:
        n = term_shard(term, self._shards, self._split)
        text = self._shard(n).get(term)
        return self._decode(n, text) if text else []

    def prefix(self, stem: str) -> list[int]:
        found: set[int] = set()
        for n in prefix_shards(stem, self._shards, self._split):
            for t, text in self._shard(n).items():
                if t.startswith(stem):
                    found.update(self._decode(n, text))
        return sorted(found)


def read_postings(site: Path, term: str, prefix: bool = False) -> list[int]:
    """The records holding ``term`` (with ``prefix``: a term starting with it)."""
    _, (meta,) = read_script(site / "search" / "meta.js")
    postings = Postings(site, meta)
    return postings.prefix(term) if prefix else postings.term(term)


def build_index(
    out: Path,
    sessions: Sequence[IndexedSession],
    fields: Sequence[str],
    gate: Gate | None = None,
    problems: dict[str, str] | None = None,
) -> int:
    """Merge every session's part into meta, entries and term shards; remove what is stale.

    ``gate(text, path)``, when redacting, sees every file before it is written. A part that
    is not shaped as ``write_session_index`` writes it (a damaged file, or one from someone
    else) leaves its session out, with the reason in ``problems`` (page → why). Returns the
    number of records indexed."""
    merged = _Merged()
    for s in sessions:
        key = session_key(s.page)
        part = _read_part(out, s, key, problems)
        if part is not None:
            merged.add(s, key, part)
    shards = _shards(merged.postings)
    search = out / "search"
    for i, terms_of in enumerate(shards.terms):
        _write(gate, search / "t" / f"{i}.js", script("terms", i, terms_of), "\n\n".join(terms_of))
    _remove_stale(out, shards.count, merged)
    _write(
        gate,
        search / "entries.js",
        script(
            "entries",
            {
                "k": merged.kinds,
                "t": merged.tools,
                "m": merged.models,
                "l": merged.labels,
                "w": merged.times,
            },
        ),
        "",  # numbers only
    )
    _write_meta(gate, search / "meta.js", merged, shards, fields)
    return merged.records


def _write(gate: Gate | None, path: Path, data: str, shown: str | None = None) -> None:
    """Write one index file, through the gate when redacting. ``shown``: what the gate checks
    when the file's structure is not text (a shard's terms, one per line: its JSON would
    look like ``"key": "value"`` assignments)."""
    if gate is not None:
        gate(data if shown is None else shown, path)
    write_atomic(path, data)


def _read_part(
    out: Path, s: IndexedSession, key: str, problems: dict[str, str] | None
) -> JSON | None:
    """A session's part of the index, or None: a page that failed to render has none, and
    one not shaped as this piexport writes it is named in ``problems`` and removed."""
    try:
        part = orjson.loads((out / CACHE / f"{key}.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None  # a page that failed to render has no part
    if not isinstance(part, dict) or part.get("v") != INDEX_VERSION:
        return None
    why = part_problem(part, out / "search" / "d", key)
    if why is not None:  # and gone, so the next build makes the session's part again
        if problems is not None:
            problems[s.page] = why
        (out / CACHE / f"{key}.json").unlink(missing_ok=True)
        return None
    return part


@dataclass(slots=True)
class _Merged:
    """Every session's part, merged: entries.js's columns, meta's sessions and names, and
    the records holding each term."""

    postings: dict[str, list[int]] = field(default_factory=dict)
    kinds: list[int] = field(default_factory=list)
    tools: list[int] = field(default_factory=list)
    models: list[int] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    times: list[int] = field(default_factory=list)
    """Minutes since the record before (entries.js is delta-coded)."""
    names: dict[str, dict[str, int]] = field(
        default_factory=lambda: {"tool": {"": 0}, "model": {"": 0}, "label": {"": 0}}
    )
    sessions: list[JSON] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    doc_files: set[str] = field(default_factory=set)
    records: int = 0
    last_minute: int = 0

    def add(self, s: IndexedSession, key: str, part: JSON) -> None:
        self.keys.add(key)
        parts = part.get("parts") or [0]
        self.doc_files.update(f"{key}-{i}" for i in range(len(parts)))
        self.sessions.append(
            {
                "h": s.page,
                "t": s.title,
                "p": s.project,
                "d": s.started,
                "k": key,
                "n": self.records,
                "c": parts,
            }
        )
        names = self.names
        for role, tool, model, label, when, error, words in part["rows"]:
            self.kinds.append(role * 2 + error)
            self.tools.append(names["tool"].setdefault(tool, len(names["tool"])))
            self.models.append(names["model"].setdefault(model, len(names["model"])))
            self.labels.append(names["label"].setdefault(label, len(names["label"])))
            minute = when // 60_000 if isinstance(when, int) else 0
            self.times.append(minute - self.last_minute)
            self.last_minute = minute
            for t in words.split(" ") if words else ():
                self.postings.setdefault(t, []).append(self.records)
            self.records += 1


@dataclass(frozen=True, slots=True)
class _Shards:
    """The term shards: each term's records (coded) in its shard, and the split prefixes
    with the shards under each."""

    terms: list[dict[str, str]]
    split: dict[str, list[int]]

    @property
    def count(self) -> int:
        return len(self.terms)


def _shards(postings: dict[str, list[int]]) -> _Shards:
    """Enough shards (a power of two, 16 to 4096) for each to be about ``SHARD_BYTES``."""
    total = sum(len(t) + 3 * len(p) for t, p in postings.items())
    count = 16
    while count < 4096 and total / count > SHARD_BYTES:
        count *= 2
    sizes = {t: len(t) + 3 * len(p) for t, p in postings.items()}
    split: dict[str, list[int]] = {p: [] for p in sorted(split_prefixes(sizes, SPLIT_BYTES))}
    by_shard: list[dict[str, str]] = [{} for _ in range(count)]
    for t in sorted(postings):
        n_shard = term_shard(t, count, split)
        by_shard[n_shard][t] = encode_postings(postings[t])
        for k in range(2, len(shard_key(t, split)) + 1):  # the split prefixes it is under
            under = split.get(t[:k])
            if under is not None and n_shard not in under:
                under.append(n_shard)
    for under in split.values():
        under.sort()
    return _Shards(by_shard, split)


def _remove_stale(out: Path, shards: int, merged: _Merged) -> None:
    """Shards past the count, and texts and parts of sessions no longer indexed."""
    search = out / "search"
    for stale in (search / "t").glob("*.js"):
        if not stale.stem.isdigit() or int(stale.stem) >= shards:
            stale.unlink()
    for folder, suffix, wanted in (
        (search / "d", ".js", merged.doc_files),
        (out / CACHE, ".json", merged.keys),
    ):
        for stale in folder.glob(f"*{suffix}") if folder.is_dir() else ():
            if stale.name.removesuffix(suffix) not in wanted:
                stale.unlink()


def _write_meta(
    gate: Gate | None, path: Path, merged: _Merged, shards: _Shards, fields: Sequence[str]
) -> None:
    names = merged.names
    shown = [s[k] or "" for s in merged.sessions for k in ("h", "t", "p")]
    shown += [*names["tool"], *names["model"], *names["label"], *fields, *shards.split]
    meta = {
        "v": INDEX_VERSION,
        "sessions": merged.sessions,
        "tools": list(names["tool"]),
        "models": list(names["model"]),
        "labels": list(names["label"]),
        "roles": list(ROLES),
        "shards": shards.count,
        "split": shards.split,
        "fields": list(fields),
        "records": merged.records,
    }
    _write(gate, path, script("meta", meta), "\n\n".join(str(s) for s in shown))
