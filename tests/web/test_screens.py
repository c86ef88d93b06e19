"""Every main view at desktop and phone width, saved to test-output/screenshots/ for a
person to look at; each view also asserts it fits the width without sideways scrolling."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import script_orchestrator
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
CODE_ANSWER = "Use this:\n\n```js\nconst total = items.reduce((a, b) => a + b, 0);\n```"


def fits(page: Page, width: int, name: str) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{name}: horizontal scrolling at {width}px ({scroll}px)"


@pytest.mark.parametrize("size", sorted(SIZES))
def test_main_views(browser: Browser, server: LiveServer, size: str) -> None:
    server.scripted.reset()
    width, height = SIZES[size]
    phone = size == "phone"
    keys = (f"{size}a", f"{size}b", f"{size}c")
    script_orchestrator(server.scripted, keys, words=10, chunk_delay_s=0.0)
    made = server.room_with(f"Screens {size}", list(keys))
    room_id, session_id = made["room"]["id"], made["session"]["id"]
    server.api("POST", f"/v1/sessions/{session_id}/turns", {"message": "Plan the launch"})
    solo = server.agent(f"{size}solo", "Coder")
    server.scripted.script(CODE_ANSWER, agent=f"{size}solo")
    solo_session = server.api("POST", f"/v1/agents/{solo['id']}/sessions", {})
    server.api("POST", f"/v1/sessions/{solo_session['id']}/turns", {"message": "Sum a list"})

    context = browser.new_context(
        viewport={"width": width, "height": height},
        base_url=server.url,
        is_mobile=phone,
        has_touch=phone,
    )
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def shot(name: str) -> None:
        fits(page, width, name)
        screenshot(page, f"{size}-{name}")

    try:
        page.goto(f"/#/rooms/{room_id}/sessions/{session_id}")
        expect(page.locator(".synthesis .panel")).to_have_attribute("data-state", "done")
        expect(page.locator(".usage-calls")).to_be_visible()
        header = page.locator(".view-head").bounding_box()
        assert header is not None
        if phone:  # issue 33: the bars took 187 px, a quarter of the screen; now two rows
            bottom = header["y"] + header["height"]
            assert bottom <= height / 6, f"the bars above the chat take {bottom}px on a phone"
        for control in ("+ New session", "Session actions", "Room actions"):
            expect(page.get_by_role("button", name=control)).to_be_in_viewport()
        shot("room-history")
        page.locator(".turn").last.evaluate("(el) => el.scrollIntoView({block: 'end'})")
        shot("room-history-end")

        page.get_by_role("button", name="Roster (3)").click()
        shot("roster-dialog")
        page.keyboard.press("Escape")

        page.get_by_role("button", name="Room actions").click()
        shot("room-menu")
        page.keyboard.press("Escape")

        page.get_by_role("button", name="+ New session").click()
        expect(page.locator(".empty h3")).to_have_text("New session")
        # One "New session" in the header: the Sessions button names no current session.
        expect(page.locator(".view-head").get_by_text("New session")).to_have_count(1)
        expect(page.locator(".session-button")).to_have_text("Sessions (1)")
        shot("new-session")
        # The room's default mode, whose picker a phone leaves out, is in the room form.
        page.get_by_role("button", name="Room actions").click()
        page.get_by_role("menuitem", name="Edit room…").click()
        page.locator("dialog[open]").locator("select[name=mode]").select_option("roundtable")
        page.locator("dialog[open]").get_by_role("button", name="Save").click()
        expect(page.locator("dialog[open]")).to_have_count(0)
        assert server.api("GET", f"/v1/rooms/{room_id}")["mode"] == "roundtable"

        page.goto(f"/#/agents/{solo['id']}/sessions/{solo_session['id']}")
        expect(page.locator(".code-block")).to_be_visible()
        shot("agent-code-answer")

        page.get_by_role("button", name="Sessions (1)").click()
        expect(page.locator(".session-item")).to_have_count(1)
        shot("sessions-dialog")
        page.keyboard.press("Escape")

        if phone:
            page.get_by_role("button", name="☰ Rooms & agents").click()
        page.locator("#sidebar").get_by_role("button", name="+ New agent").click()
        shot("new-agent-dialog")
        page.keyboard.press("Escape")
        if phone:
            expect(page.locator("#sidebar")).to_be_visible()
            shot("menu")
        page.get_by_role("button", name="Dark theme").click()
        page.goto(f"/#/rooms/{room_id}/sessions/{session_id}")
        expect(page.locator(".synthesis .panel")).to_have_attribute("data-state", "done")
        shot("room-dark")

        page.goto("/#/")
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
        shot("welcome-dark")
    finally:
        context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
