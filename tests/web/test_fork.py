"""Fork from any turn of the page, and "Fork and resend" beside Edit (issue 24): a new
session with the history up to that turn (or up to the one before, the message back in
the composer to change), the model seeing exactly that history; the source stays as it is."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, viewed

pytestmark = pytest.mark.browser


def _user_history(scripted: ScriptedProvider) -> list[str]:
    messages = scripted.requests[-1].request.messages
    return [m.content for m in messages if m.role == "user"]


def _messages(page: Page) -> list[str]:
    return page.locator(".turn .msg-user").all_inner_texts()


def _titles(server: LiveServer, agent_id: str) -> list[str]:
    return [s["title"] for s in server.api("GET", f"/v1/agents/{agent_id}/sessions")["items"]]


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_fork_and_fork_and_resend_from_the_page(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    key = f"fork{size}{theme}"
    agent = server.agent(key)
    session = server.api("POST", f"/v1/agents/{agent['id']}/sessions", {"title": "Story"})
    with viewed(browser, server, size, theme) as page:
        for n in range(3):
            server.api("POST", f"/v1/sessions/{session['id']}/turns", {"message": f"m{n}"})
        source = f"{server.url}/#/agents/{agent['id']}/sessions/{session['id']}"
        page.goto(source)
        expect(page.locator(".turn")).to_have_count(3)
        page.get_by_role("button", name="Fork from here: m1", exact=True).click()
        # A draft: the history it will have, nothing made until a message is sent.
        expect(page).to_have_url(f"{server.url}/#/agents/{agent['id']}/new")
        expect(page.locator(".turn")).to_have_count(2)
        assert _messages(page) == ["m0", "m1"]
        expect(page.locator(".fork-draft")).to_contain_text("nothing is saved until you do")
        assert _titles(server, agent["id"]) == ["Story"]
        box = page.get_by_label("Message")
        box.fill("m3 in the fork")
        box.press("Enter")
        expect(page.locator(".turn").last).to_have_attribute(
            "data-status", "completed", timeout=WAIT_MS
        )
        expect(page).not_to_have_url(source)
        expect(page.locator(".session-current")).to_have_text("Fork of Story at turn 2")
        assert _user_history(server.scripted) == ["m0", "m1", "m3 in the fork"]
        page.reload()  # the line sits between the inherited turns and the fork's own
        expect(page.locator(".turn")).to_have_count(3)
        line = "Forked here: the turns above come from the session this one was forked from."
        expect(page.locator(".turn").nth(1).locator("+ .fork-line")).to_have_text(line)
        screenshot(page, f"{size}-{theme}-fork")

        # Fork and resend on an inherited turn: history up to m0, m1 back in the composer.
        first_fork = page.url
        page.get_by_role("button", name="Fork and resend: m1", exact=True).click()
        expect(page).not_to_have_url(first_fork)
        expect(box).to_have_value("m1")
        expect(page.locator(".turn")).to_have_count(1)
        box.fill("m1, changed")
        box.press("Enter")
        expect(page.locator(".turn").last).to_have_attribute(
            "data-status", "completed", timeout=WAIT_MS
        )
        expect(page.locator(".session-current")).to_have_text("Fork of Story at turn 1")
        assert _user_history(server.scripted) == ["m0", "m1, changed"]
        screenshot(page, f"{size}-{theme}-fork-and-resend")
        # The line over a fork's own turns links back to the session it came from.
        page.locator(".fork-line a", has_text="the session this one was forked from").click()
        expect(page).to_have_url(source)
        expect(page.locator(".turn")).to_have_count(3)

        # A draft left without a message leaves no session behind.
        page.get_by_role("button", name="Fork from here: m2", exact=True).click()
        expect(page.locator(".fork-draft")).to_be_visible()
        page.locator(".fork-draft a").click()
        expect(page).to_have_url(source)
        assert sorted(_titles(server, agent["id"])) == [
            "Fork of Story at turn 1",
            "Fork of Story at turn 2",
            "Story",
        ]

        expect(page.locator(".turn .msg-user")).to_have_text(["m0", "m1", "m2"])
        # Before the first turn there is nothing to keep: a new, empty chat with m0 to edit.
        page.get_by_role("button", name="Fork and resend: m0", exact=True).click()
        expect(box).to_have_value("m0")
        expect(page).to_have_url(f"{server.url}/#/agents/{agent['id']}/new")
