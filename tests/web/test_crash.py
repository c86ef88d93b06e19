"""A server crash mid-turn: the page tells the truth (the turn was lost) and gives the
user's message back, both while the page stays open and after a reload."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import answer
from tests.web.server import running_server

pytestmark = pytest.mark.browser

RUNNING = "(JSON.parse(sessionStorage.getItem('pantheon.runningTurns')) || [])[0] ?? null"
LOST = "nothing of it was saved"


def snapshot_database(source: Path, target: Path) -> None:
    """The database as a crash would leave it: a running turn has written nothing yet."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def test_a_turn_lost_in_a_crash_says_so_and_returns_the_message(
    browser: Browser, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    crashed = tmp_path / "after-crash.db"
    running: dict[str, Any]
    try:
        with running_server(tmp_path, graceful_s=1) as first:
            port = urlparse(first.url).port
            assert port is not None
            agent = first.agent("slow")
            session = first.api("POST", f"/v1/agents/{agent['id']}/sessions", {})
            first.scripted.script(answer("slow", 80), agent="slow", chunk_delay_s=0.1)
            page.goto(f"{first.url}/#/agents/{agent['id']}/sessions/{session['id']}")
            box = page.get_by_label("Message")
            box.fill("Remember this question")
            box.press("Enter")
            expect(page.locator(".panel[data-state='streaming']")).to_have_count(1)
            running = page.evaluate(RUNNING)
            assert running["turnId"]
            snapshot_database(tmp_path / "web.db", crashed)
        # The first server is gone, its connections cut mid-stream; the page reconnects
        # until a server answers, and the restarted one has never heard of the turn.
        with running_server(tmp_path, port=port, database=crashed) as second:
            turn = page.locator(".turn").last
            expect(turn).to_have_attribute("data-status", "lost", timeout=25_000)
            expect(turn.locator(".turn-notice")).to_contain_text(LOST)
            expect(turn.locator(".turn-notice")).not_to_contain_text("keeps running")
            expect(page.get_by_label("Message")).to_have_value("Remember this question")
            expect(page.get_by_role("button", name="Send", exact=True)).to_be_enabled()
            assert page.evaluate(RUNNING) is None
            screenshot(page, "desktop-turn-lost")

            # The same turn remembered by a tab that reloads after the restart.
            page.get_by_label("Message").fill("")
            page.evaluate(
                "(s) => sessionStorage.setItem('pantheon.runningTurns', JSON.stringify([s]))",
                running,
            )
            page.reload()
            turn = page.locator(f".turn[data-turn-id='{running['turnId']}']")
            expect(turn).to_have_attribute("data-status", "lost")
            expect(turn.locator(".turn-notice")).to_contain_text(LOST)
            expect(page.get_by_label("Message")).to_have_value("Remember this question")
            assert page.evaluate(RUNNING) is None
            stored = second.api("GET", f"/v1/sessions/{session['id']}/turns")
            assert stored["items"] == []
    finally:
        context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
