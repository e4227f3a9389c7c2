"""search.html in Chromium from file://: the same answers as ``piexport search``, results
that open their entry, the URL as the query, CJK, no JavaScript, and hostile text."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

import piexport.search.index as index
from piexport.search.local import run_search
from piexport.search.query import parse
from piexport.site.build import build_site

from tests.support.browser import probe, strip_csp
from tests.support.payloads import PAYLOADS, hostile_session, write_session
from tests.support.sessions import HEADER, REPO, msg, numbered_lines, to_lines

pytestmark = pytest.mark.browser
SAMPLES = REPO / "sample_sessions"
ALPHA = ("alpha beta gamma", "alpha beta then gamma")
BIDI = "line \u202eone\nthe \u202esmuggled\u200b word, \u2066isolated\u2069 and ❤\ufe0f kept"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("search-src")
    shutil.copytree(SAMPLES, root, dirs_exist_ok=True)
    cjk = root / "--home-li--"
    cjk.mkdir()
    (cjk / "2025-06-01T00-00-00-000Z_cjk.jsonl").write_bytes(
        to_lines([HEADER, msg("c1", None, "user", "请修复优惠券的四舍五入问题。日本語のテスト", 1)])
    )
    (cjk / "2025-06-02T00-00-00-000Z_bidi.jsonl").write_bytes(
        to_lines([HEADER, msg("b1", None, "user", BIDI, 1)])
    )
    numbered_lines(root / "--home-n--")
    pad = " ".join(f"pad{k}" for k in range(80))  # a record to a text part, near enough
    records = [  # the oldest five form "alpha beta gamma"; the ten newer do not
        msg(f"r{i}", f"r{i - 1}" if i else None, "user", f"{ALPHA[i >= 5]} {pad}", 60 * i + 1)
        for i in range(15)
    ]
    (root / "--home-r--").mkdir()
    (root / "--home-r--" / "2025-06-01T00-00-00-000Z_rv.jsonl").write_bytes(
        to_lines([HEADER, *records])
    )
    out = tmp_path_factory.mktemp("search-site")
    with pytest.MonkeyPatch.context() as patch:  # many small parts: the page loads only some
        patch.setattr(index, "DOC_CHARS", 2000)
        patch.setattr(index, "SPLIT_BYTES", 3000)  # split prefixes: 00, 000, and others
        build_site(root, out, jobs=1)
    return out


def open_search(page: Page, site: Path, query: str) -> None:
    page.goto((site / "search.html").as_uri() + "?q=" + quote(query))
    expect(page.locator("#search-status")).not_to_have_text("")
    expect(page.locator("#search-status")).not_to_have_text("Searching…")


@pytest.mark.parametrize(
    "query",
    [
        "coupon",
        "coup",
        "negative total",
        '"negative total"',
        "tool:bash pytest",
        "is:error",
        "role:thinking",
        "cart -coupon",
        "badge role:user after:2025-03-04",
        "00042",  # a term under the split prefixes 00 and 000
        "0004",  # a prefix under them
        "000",  # a prefix that is split itself: every shard under it
        "00",
        "compiling 00142",
        "compiling cart",  # some hits form the phrase: ranked on the parts the page reads
        "cart compiling",  # none does
        '"alpha beta" gamma',  # a phrase, and adjacency to rank by: ranked on the parts read
        'alpha beta gamma -"zeta eta"',  # a phrase left out that no hit has: every hit sure
    ],
)
def test_the_page_answers_as_the_cli_does(browser: Browser, site: Path, query: str) -> None:
    """The same sessions in the same order, and in each the CLI's first hits: all five of
    them; where the page checks a phrase on texts, the first of them it has checked (at
    least one), or with adjacency to rank by too, some of them in the CLI's order; where only
    adjacency ranks hits, the ones in the text parts of the first five (``page_ranks``)."""
    q = parse(query)
    groups, _ = run_search(q, site=site)
    ranked_on_parts = (
        len(q.positive) >= 2
        and not any(w.is_phrase for w in q.positive)
        and not any(w.exclude and w.is_phrase for w in q.words)
    )
    phrases = any(w.is_phrase for w in q.positive) or any(
        w.exclude and w.is_phrase for w in q.words
    )
    want = [
        (
            Path(g[0].path).relative_to(site).as_posix(),
            [h.dom for h in (page_ranks(g, site) if ranked_on_parts else g)[:5]],
        )
        for g in groups[:20]
    ]
    page = browser.new_page()
    open_search(page, site, query)
    expect(page.locator(".result-group")).to_have_count(len(want))
    got = page.evaluate(
        """() => Array.from(document.querySelectorAll('.result-group')).map(g => [
            g.querySelector('h2 a').getAttribute('href'),
            Array.from(g.querySelectorAll('.hit-link')).map(a => a.getAttribute('href').split('#')[1])
        ])"""
    )
    page.close()
    assert [h for h, _ in got] == [p for p, _ in want]
    every = {Path(g[0].path).relative_to(site).as_posix(): [h.dom for h in g] for g in groups}
    for (path, ids), (_, wanted) in zip(got, want, strict=True):
        if phrases and len(q.positive) == 1:  # the kept hits of the prefix it checked
            assert 1 <= len(ids) <= 5 and ids == wanted[: len(ids)]
        elif phrases:  # and ranked by adjacency among them: in the CLI's order
            assert 1 <= len(ids) <= 5 and ids == [d for d in every[path] if d in ids]
        else:
            assert ids == wanted


def page_ranks(group: list, site: Path) -> list:
    """A group's hits as search.js ranks them on the first page when only adjacency is left
    to check: the text parts holding its first five hits by words and time are read once,
    and the hits in those parts come in the CLI's order (phrase first)."""
    _, (meta,) = index.read_script(site / "search" / "meta.js")
    (s,) = [
        s for s in meta["sessions"] if (site / s["h"]).as_posix() == Path(group[0].path).as_posix()
    ]
    starts = s.get("c") or [0]

    def part(h: object) -> int:
        return max(i for i, at in enumerate(starts) if at <= h.record)  # type: ignore[attr-defined]

    first = sorted(group, key=lambda h: (-h.words, -(h.time or 0), h.record))[:5]
    read = {part(h) for h in first}
    return [h for h in group if part(h) in read]


def test_a_result_opens_its_entry_and_typing_updates_the_url(browser: Browser, site: Path) -> None:
    page = browser.new_page()
    open_search(page, site, "")
    expect(page.locator("#search-status")).to_contain_text("Type words")
    page.locator("#search-box").fill("negative total")
    expect(page).to_have_url(re.compile(r"\?q=negative(\+|%20)total$"))
    first = page.locator(".hit-link").first
    expect(first.locator("mark")).to_have_text(["negative", "total"])
    target = first.get_attribute("href") or ""
    first.click()
    expect(page).to_have_url(re.compile(re.escape(target.split("/")[-1]) + "$"))
    expect(page.locator("#" + target.split("#")[1])).to_be_visible()
    page.close()


def test_scripts_without_spaces_are_found(browser: Browser, site: Path) -> None:
    page = browser.new_page()
    for query in ["优惠券", "惠券", "日本語", "四舍五入问题"]:
        open_search(page, site, query)
        expect(page.locator(".hit-snippet mark").first).to_have_text(query)
    open_search(page, site, "优惠五入")
    expect(page.locator("#search-status")).to_have_text("No matches.")
    page.close()


def test_without_javascript_the_page_says_so(browser: Browser, site: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((site / "search.html").as_uri() + "?q=coupon")
    expect(page.locator(".search-nojs")).to_contain_text("Search needs JavaScript")
    expect(page.locator(".search-nojs a")).to_have_attribute("href", "index.html")
    context.close()


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("search-xss")
    for i, payload in enumerate(PAYLOADS):
        records, _ = hostile_session(payload)
        folder = root / f"--p{i}--"
        folder.mkdir()
        write_session(records, folder / f"2025-01-01T00-00-00-000Z_p{i}.jsonl")
    out = tmp_path_factory.mktemp("search-xss-site")
    build_site(root, out, jobs=1)
    bare = out / "search-nocsp.html"
    bare.write_text(strip_csp((out / "search.html").read_text(encoding="utf-8")), encoding="utf-8")
    yield out


@pytest.mark.parametrize("form", ["search.html", "search-nocsp.html"])
@pytest.mark.parametrize("query", ["alert", "script", "evil example", "onerror", "javascript"])
def test_hostile_text_in_results_is_only_text(
    browser: Browser, hostile_site: Path, form: str, query: str
) -> None:
    page = browser.new_page()
    url = (hostile_site / form).as_uri() + "?q=" + quote(query)
    result = probe(page, url)
    expect(page.locator(".result-group").first).to_be_visible()
    for button in page.locator("button.more-hits, button.more-results").all():
        if button.is_visible():
            button.click()
    shown = page.locator("#results").inner_text()
    tags = page.evaluate(
        "Array.from(new Set(Array.from(document.querySelectorAll('#results *')).map(e => e.tagName)))"
    )
    page.close()
    assert result == {"executed": 0, "requests": 0}
    assert set(tags) <= {"DIV", "SECTION", "H2", "A", "P", "OL", "LI", "SPAN", "MARK", "BUTTON"}
    if query == "script":
        assert "<script>alert(1)</script>" in shown


@pytest.mark.parametrize(
    "query", ["coupon", "negative total", '"negative total"', "tool:bash pytest"]
)
def test_snippets_are_the_clis(browser: Browser, site: Path, query: str) -> None:
    """The same window (line or word start, ellipses) and the same marks as the CLI's."""
    groups, _ = run_search(parse(query), site=site)
    want = [[" ".join(h.as_json(parse(query))["snippet"].split()) for h in g[:5]] for g in groups]
    page = browser.new_page()
    open_search(page, site, query)
    expect(page.locator(".result-group")).to_have_count(min(20, len(want)))
    got = page.evaluate(
        """() => Array.from(document.querySelectorAll('.result-group')).map(g =>
            Array.from(g.querySelectorAll('.hit-snippet')).map(s => s.textContent))"""
    )
    page.close()
    assert [[" ".join(t.split()) for t in g] for g in got] == want[:20]


def test_invisible_and_bidi_characters_show_as_marks(browser: Browser, site: Path) -> None:
    page = browser.new_page()
    open_search(page, site, "smuggled")
    snip = page.locator(".hit-snippet").first
    expect(snip.locator("mark")).to_have_text("smuggled")
    expect(snip.locator(".ctl")).to_have_text(["⟪U+202E⟫", "⟪U+200B⟫", "⟪U+2066⟫", "⟪U+2069⟫"])
    expect(snip.locator(".ctl").first).to_have_attribute("title", "U+202E")
    title = page.locator(".result-group h2 a").first  # the session's title too
    expect(title.locator(".ctl")).to_have_text("⟪U+202E⟫")
    expect(title).to_have_text("line ⟪U+202E⟫one")
    text = snip.text_content() or ""
    page.close()
    assert not set(text) & {"\u202e", "\u200b", "\u2066", "\u2069"}
    assert text.startswith("… the ") and "❤\ufe0f kept" in text  # an emoji's selector stays
    (match,) = [h for g in run_search(parse("smuggled"), site=site)[0] for h in g]
    assert match.as_json(parse("smuggled"))["snippet"] == " ".join(text.split())


@pytest.mark.parametrize("query", ["coupon", '"the cart"', "compiling cart"])
def test_show_all_loads_the_texts_of_the_other_hits(
    browser: Browser, site: Path, query: str
) -> None:
    """A phrase's hits are checked in order until some hold, and a query of several words'
    are ranked on the parts of its first five; "show all" checks the rest and ranks every
    hit as the CLI does."""
    groups, _ = run_search(parse(query), site=site)
    big = next(i for i, g in enumerate(groups[:20]) if len(g) > 5)
    page = browser.new_page()
    open_search(page, site, query)
    section = page.locator(".result-group").nth(big)
    if '"' in query:  # the kept hits of the checked prefix: at least one, at most five
        expect(section.locator(".hit").first).to_be_visible()
        assert 1 <= section.locator(".hit").count() <= 5
    else:
        expect(section.locator(".hit")).to_have_count(5)
    if '"' not in query:  # unchecked hits of words (no quoted phrase) all match: exact
        expect(section.locator(".result-meta")).to_contain_text(f" {len(groups[big])} matches")
    section.locator("button.more-hits").click()
    expect(section.locator(".hit")).to_have_count(len(groups[big]))
    hrefs = [a.get_attribute("href") or "" for a in section.locator(".hit-link").all()]
    snippets = [
        " ".join((s or "").split()) for s in section.locator(".hit-snippet").all_text_contents()
    ]
    page.close()
    assert [h.split("#")[1] for h in hrefs] == [h.dom for h in groups[big]]
    q = parse(query)
    assert snippets == [" ".join(h.as_json(q)["snippet"].split()) for h in groups[big]]


def test_an_index_of_another_version_is_named_not_misread(
    browser: Browser, site: Path, tmp_path: Path
) -> None:
    """A search.html beside an index another piexport wrote (a copied or half-updated site)
    says which version it found and what to do, and shows no results from it."""
    old = tmp_path / "old"
    shutil.copytree(site, old)
    meta = old / "search" / "meta.js"
    meta.write_text(meta.read_text().replace(f'"v":{index.INDEX_VERSION},', '"v":1,', 1))
    page = browser.new_page()
    page.goto((old / "search.html").as_uri() + "?q=coupon")
    status = page.locator("#search-status")
    expect(status).to_contain_text("search index is version 1")
    expect(status).to_contain_text(f"reads version {index.INDEX_VERSION}")
    expect(status).to_contain_text("build the site again")
    expect(page.locator(".result-group")).to_have_count(0)
    page.close()


def test_a_pasted_hash_is_left_out_with_a_note(browser: Browser, site: Path) -> None:
    """A word over 40 characters is not in the index: the page says so and searches the rest
    (it used to fail with a TypeError)."""
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    groups, _ = run_search(parse(f"coupon {digest}"), site=site)
    page = browser.new_page()
    open_search(page, site, f"coupon {digest}")
    status = page.locator("#search-status")
    expect(status).to_contain_text("is left out: words over 40 characters")
    expect(status).not_to_contain_text("Search failed")
    expect(page.locator(".result-group")).to_have_count(min(20, len(groups)))
    open_search(page, site, digest)
    expect(status).to_contain_text("is left out")
    expect(page.locator(".result-group")).to_have_count(0)
    page.close()


def test_the_status_counts_the_matches_of_sessions_whose_hits_all_hold(
    browser: Browser, site: Path
) -> None:
    """A phrase only left out, which no hit has: every hit of the session holds, checked or
    not, so the status line counts them all, as the session's line and the CLI do."""
    query = 'alpha beta gamma -"zeta eta"'
    groups, _ = run_search(parse(query), site=site)
    (group,) = groups
    page = browser.new_page()
    open_search(page, site, query)
    expect(page.locator(".result-meta")).to_contain_text(f"{len(group)} matches")
    expect(page.locator("#search-status")).to_have_text(f"{len(group)} matches in 1 session.")
    page.close()


def test_a_phrase_count_says_what_was_checked_and_agrees_with_the_cli(
    browser: Browser, site: Path
) -> None:
    """Issue 38, item 9: a card and the summary give the same two figures, the matches
    checked and those not yet checked for the phrase; the CLI's count (every one checked)
    lies between them, and once a card's "Show all" checked its own, the two are one."""
    query = '"the cart"'
    groups, _ = run_search(parse(query), site=site)
    exact = {str(Path(g[0].path).resolve()): len(g) for g in groups}
    page = browser.new_page()
    open_search(page, site, query)
    status = page.locator("#search-status")
    expect(status).to_contain_text("not yet checked for the phrase")
    cards = page.locator(".result-group")
    lows = highs = 0
    unsure = None
    for i in range(cards.count()):
        card = cards.nth(i)
        title = str((site / (card.locator("h2 a").get_attribute("href") or "")).resolve())
        text = card.locator(".result-meta").inner_text()
        m = re.search(r"(\d+) to (\d+) matches \((\d+) not yet checked", text)
        low, high = (int(m[1]), int(m[2])) if m else (int(text.split()[-2]),) * 2
        if m:
            assert low + int(m[3]) == high
            unsure = unsure if unsure is not None else (i, title)
        assert low <= exact[title] <= high, (title, text, exact[title])
        lows, highs = lows + low, highs + high
    assert unsure is not None
    expect(status).to_contain_text(f"{lows} to {highs} matches in {cards.count()} sessions")
    card = cards.nth(unsure[0])
    card.locator("button.more-hits").click()
    want = exact[unsure[1]]
    expect(card.locator(".result-meta")).to_have_text(re.compile(rf" · {want} matches?$"))
    page.close()
