"""What the tests share: session builders, the hostile corpora, page checks, the browser.

Test modules import from here and never from each other (tests/quality/test_imports.py
checks), so a test file can move or be run alone. Only ``browser`` imports Playwright.
"""
