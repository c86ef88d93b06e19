"""The page's files on the wire (issue 33): a first load gets every script compressed and
preloaded from one HTML answer, and a reload asks the server only for index.html (and the
API): every versioned file comes from the browser's cache.

``pytest tests/web/test_assets.py -m browser -s`` prints the figures docs/web.md quotes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.web.conftest import WAIT_MS
from tests.web.network import measure
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def test_a_reload_fetches_only_the_page_and_the_api(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=server.url)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    try:
        first = measure(page, lambda: page.goto("/", wait_until="networkidle"))
        page.get_by_role("navigation").wait_for()
        again = measure(page, lambda: page.reload(wait_until="networkidle"))
    finally:
        context.close()
    print(f"\nfirst load: {first.summary()}\nreload: {again.summary()}")
    scripts = [f for f in first.static() if f.url.split("?")[0].endswith(".js")]
    assert len(scripts) > 50
    assert [f.url for f in scripts if f.encoding != "gzip"] == []
    # KaTeX comes with the first formula, not with the page.
    assert [f.url for f in first.static() if "katex.min.js" in f.url] == []
    fetched_again = [f.url for f in again.static() if not f.cached]
    assert fetched_again == [server.url + "/"], fetched_again


def test_the_page_loads_its_files_at_an_invitation_path(
    browser: Browser, server: LiveServer
) -> None:
    """``/invite/<token>`` serves index.html (ADR 0043): its root-absolute file URLs and
    import map load every script from ``/js/``, none from ``/invite/js/``."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=server.url)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    try:
        load = measure(page, lambda: page.goto("/invite/some-token", wait_until="networkidle"))
    finally:
        context.close()
    files = load.static()
    scripts = [f for f in files if f.url.split("?")[0].endswith(".js")]
    assert len(scripts) > 50
    assert [f.url for f in files if f.status != 200] == []
    assert [
        f.url for f in files if "/invite/" in f.url and f.url != server.url + "/invite/some-token"
    ] == []
    assert all("?v=" in f.url for f in scripts), [f.url for f in scripts if "?v=" not in f.url]
