"""Browser contexts at each width and theme the issue-24 tests run in (1280 px and 390 px,
light and dark), and the phone menu that hides the sidebar."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from playwright.sync_api import Browser, Page

from tests.web.conftest import WAIT_MS
from tests.web.server import LiveServer

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
VIEWS = [(size, theme) for size in ("desktop", "phone") for theme in ("light", "dark")]
Theme = Literal["light", "dark"]


@contextmanager
def viewed(browser: Browser, server: LiveServer, size: str, theme: Theme) -> Iterator[Page]:
    """A fresh page at ``size`` following a system ``theme``; page errors fail the test."""
    server.scripted.reset()
    width, height = SIZES[size]
    phone = size == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height},
        base_url=server.url,
        is_mobile=phone,
        has_touch=phone,
        color_scheme=theme,
    )
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


def open_sidebar(page: Page, size: str) -> None:
    """On a phone the sidebar is behind the menu button."""
    if size == "phone":
        page.get_by_role("button", name="☰ Rooms & agents").click()
