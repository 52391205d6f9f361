"""Browser fixtures: headless Chromium (Debian's `chromium`) driven by Playwright.

The browser tests skip, with one reason, only where no browser can be had: no
Playwright package, or no Chromium binary (CI installs Debian's `chromium`).
"""

import os
import shutil

import pytest

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str | None:
    for name in (os.environ.get("FASTSNAKE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("no browser: the playwright package is missing (pip install -e '.[dev]')")
    binary = _chromium()
    if binary is None:
        pytest.skip("no browser: no chromium on PATH (apt-get install chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=binary, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


class Page:
    """A report opened from file://, with every console error and page error collected."""

    def __init__(self, browser, path, width=1300, height=1100):
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(f"file://{os.path.abspath(path)}")
        self.page.wait_for_function("window.fastsnake && window.fastsnake.ready === true")

    def js(self, expression, arg=None):
        return self.page.evaluate(expression, arg)

    def state(self):
        return self.js("window.fastsnake.state()")

    def close(self):
        self.page.close()


@pytest.fixture
def open_page(browser):
    opened = []

    def open_(path, **kw):
        page = Page(browser, path, **kw)
        opened.append(page)
        return page

    yield open_
    for page in opened:
        page.close()
