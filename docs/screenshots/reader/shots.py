"""Issue 38's screenshots: python shots.py SITE [SHOT...]. SITE: a site built from
make_demo.py's session (in --home-alice-src-shop--), bench's 2,000-entry session (in
--home-bench-shop--, bench/make_sessions.py make_session(2000, seed=11)) and the ci-build-bot
samples: piexport site ROOT -o SITE."""
import sys
from pathlib import Path
from playwright.sync_api import sync_playwright
SITE = Path(sys.argv[1]).resolve()
OUT = Path(__file__).resolve().parent
DEMO = next(SITE.glob("home-alice-src-shop-*/2025*.html"))
BIG = next(SITE.glob("home-bench-*/2025*.html"))
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
ARGS = ["--no-sandbox", "--disable-gpu"]
only = set(sys.argv[2:])

def settle(page):
    page.wait_for_function("document.documentElement.classList.contains('has-js')")

def header(page, name):  # session header: duration + errors
    page.goto(DEMO.as_uri()); settle(page)
    page.locator("dl.meta").scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.querySelector('dl.meta').getBoundingClientRect().top + scrollY - 60)")

def tree(page, name):  # failed rows marked in the tree
    page.goto(DEMO.as_uri()); settle(page)
    if name == "phone":
        page.locator("nav.outline summary").click()
    page.locator("nav.outline").scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.querySelector('nav.outline').getBoundingClientRect().top + scrollY - 50)")

def skill(page, name):
    page.goto(DEMO.as_uri() + "#entry-u1"); settle(page)
    page.wait_for_function("document.getElementById('entry-u1').getBoundingClientRect().top < 200")

def errors_view(page, name):
    page.goto(DEMO.as_uri() + "?view=errors"); settle(page)
    page.evaluate("window.scrollTo(0, document.getElementById('transcript').getBoundingClientRect().top + scrollY - 60)")

def badge(page, name):
    page.goto(BIG.as_uri()); settle(page)
    page.evaluate("""() => { const a = [...document.querySelectorAll('a.badge')].find(x => x.textContent.startsWith('not in context'));
      const e = a.closest('article'); window.scrollTo(0, e.getBoundingClientRect().top + scrollY - 60); }""")

def landing(page, name):  # a Prompts link on the 2,000-entry page, clicked once
    page.goto(BIG.as_uri()); settle(page)
    page.locator("details.prompts-panel > summary").click()
    links = page.locator("details.prompts-panel ol.prompts a")
    link = links.nth(int(links.count() * 0.6))
    href = link.get_attribute("href")
    link.click()
    page.wait_for_function("""id => { const r = document.getElementById(id).getBoundingClientRect();
      window.__f = (Math.abs(r.top - (window.__last ?? -1)) < 1) ? (window.__f || 0) + 1 : 0; window.__last = r.top; return window.__f > 30; }""", arg=href[1:], polling="raf")

def index(page, name):
    page.goto((SITE / "index.html").as_uri()); settle(page)
    page.evaluate("window.scrollTo(0, document.querySelector('table.sessions').getBoundingClientRect().top + scrollY - 80)")

def chart(page, name):
    page.goto((SITE / "index.html").as_uri()); settle(page)
    page.evaluate("() => { const f = document.querySelector('figure.chart-projects'); f.closest('details') && (f.closest('details').open = true); window.scrollTo(0, f.getBoundingClientRect().top + scrollY - 60); }")

def project(page, name):
    page.goto(next(SITE.glob("home-alice-src-shop-*/index.html")).as_uri()); settle(page)

def branches(page, name):
    page.goto(DEMO.as_uri() + "#branches"); settle(page)
    page.wait_for_function("document.querySelector('#branches') && document.querySelector('#branches').getBoundingClientRect().top < 300")

def _timeline(page, url):
    page.goto(url); settle(page)
    page.locator("#timeline > summary").click()
    page.evaluate("window.scrollTo(0, document.getElementById('timeline').getBoundingClientRect().top + scrollY - 50)")

def timeline(page, name):  # where the time went: a night, failures, a compaction
    _timeline(page, DEMO.as_uri())

def timeline_big(page, name):  # 2,000 entries merged into runs
    _timeline(page, BIG.as_uri())

def jk(page, name):  # j pressed three times: the entry reached has a frame
    page.goto(DEMO.as_uri()); settle(page)
    page.evaluate("window.scrollTo(0, document.getElementById('transcript').getBoundingClientRect().top + scrollY - 80)")
    for _ in range(3):
        page.keyboard.press("j")
    page.wait_for_function("document.querySelector('article.entry.stepped') && document.querySelector('article.entry.stepped').getBoundingClientRect().top < 120")

def code(page, name):  # numbered code on the 2,000-entry page: wraps on a phone
    page.goto(BIG.as_uri()); settle(page)
    page.evaluate("() => { const c = document.querySelector('.code-with-lines'); window.scrollTo(0, c.getBoundingClientRect().top + scrollY - 120); }")

def search(page, name):  # a phrase: what was checked and what was not, in one count
    page.goto((SITE / "search.html").as_uri() + "?q=%22the%20cart%22"); settle(page)
    page.wait_for_function("(document.getElementById('search-status') || {}).textContent && !/Searching/.test(document.getElementById('search-status').textContent)")

SHOTS = dict(timeline=timeline, jk=jk, code=code, search=search, timeline_big=timeline_big, header=header, tree=tree, skill=skill, errors_view=errors_view, badge=badge, landing=landing, index=index, chart=chart, project=project, branches=branches)
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
    for shot, go in SHOTS.items():
        if only and shot not in only: continue
        for scheme in ("light", "dark"):
            for name, (w, h) in SIZES.items():
                page = b.new_page(viewport={"width": w, "height": h}, color_scheme=scheme)
                try:
                    go(page, name)
                    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                    out = OUT / f"{shot.replace('_', '-')}-{scheme}-{name}.png"
                    page.screenshot(path=str(out))
                    print(out)
                except Exception as e:
                    print("FAILED", shot, scheme, name, e)
                page.close()
    b.close()
