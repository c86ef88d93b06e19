"""Browser tests: a real uvicorn server on the scripted provider, driven by Debian's Chromium.

Outside CI the whole directory is skipped, with the reason shown, when Playwright or
/usr/bin/chromium is missing; with ``CI=true`` a missing piece fails the run instead.
Playwright's sync API is used from sync tests (no asyncio loop of pytest's is involved);
the server runs its own loop in a thread. Browsers are never downloaded.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.server import LiveServer, running_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
WAIT_MS = 10_000  # every wait in these tests is bounded by this (or less)


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "Playwright for Python is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} not found (apt-get install chromium); never `playwright install`"
    return None


_reason = _missing()
if _reason is not None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run: {_reason} (mandatory with CI=true)", pytrace=False)
    pytest.skip(f"browser tests skipped: {_reason}", allow_module_level=True)

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402 - after the check


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server per test module; scripted rules are reset before every test."""
    with running_server(tmp_path_factory.mktemp("web")) as live:
        yield live


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS, timeout=WAIT_MS
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    """A fresh context (empty storage) at desktop size; page errors fail the test."""
    server.scripted.reset()
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=server.url)
    context.set_default_timeout(WAIT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
