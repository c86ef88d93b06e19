"""The answer that closes an orchestrator turn (the synthesis) lists the Sources of every
agent that searched, and each source opens its passage when clicked (issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.knowledge.test_knowledge_turn import librarian
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer
from tests.web.test_documents import upload

pytestmark = pytest.mark.browser

PASSAGE = "The lighthouse lamp is lit at dusk daily."


def test_synthesis_lists_the_sources_and_opens_a_passage(page: Page, server: LiveServer) -> None:
    made = server.room_with("Harbour", ["seeker", "thinker"])
    seeker = next(
        a for a in server.api("GET", "/v1/agents?limit=200")["items"] if a["key"] == "seeker"
    )
    server.api("PATCH", f"/v1/agents/{seeker['id']}", {"tools": ["search_knowledge"]})
    upload(server, f"rooms/{made['room']['id']}", "keeper.txt", PASSAGE.encode())
    s = server.scripted
    s.script('{"agents": ["seeker", "thinker"]}', purpose="route")
    s.script('{"continue": false}', purpose="evaluate")
    s.script(librarian, agent="seeker")
    s.script("I think so too.", agent="thinker")
    s.script("Lit at dusk, says keeper.txt.", purpose="synthesis")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("When is the lamp lit?")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    for when in ("live", "reloaded"):
        sources = turn.locator(".synthesis .sources")
        expect(sources.locator(".source")).to_have_text(["keeper.txt"])
        expect(sources.locator(".source")).to_have_attribute("data-cited", "true")
        passage = sources.locator(".source-passage")
        expect(passage).to_be_hidden()
        sources.get_by_role("button", name="keeper.txt").click()
        expect(passage).to_be_visible()
        expect(passage).to_contain_text(PASSAGE)
        sources.scroll_into_view_if_needed()
        screenshot(page, f"desktop-synthesis-sources-{when}")
        sources.get_by_role("button", name="keeper.txt").click()
        expect(passage).to_be_hidden()
        page.reload()
        turn = page.locator(".turn").last
        expect(turn).to_have_attribute("data-status", "completed")
    page.set_viewport_size({"width": 390, "height": 844})
    turn.locator(".synthesis .sources").get_by_role("button", name="keeper.txt").click()
    turn.locator(".synthesis .sources").scroll_into_view_if_needed()
    screenshot(page, "phone-synthesis-sources")
