"""The sidebar lists the open agent's sessions, searchable by title and message text, and
marks the ones running in this tab "live"; a second session runs while the first does
(issue 24: one running turn used to disable Send in every other chat, with no link)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import answer
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, open_sidebar, viewed

pytestmark = pytest.mark.browser


def _alpha_and_beta(server: LiveServer, agent_id: str, alpha_message: str) -> tuple[str, str]:
    """Two sessions of the agent, "Alpha plans" (one turn: ``alpha_message``) and "Beta
    notes" (one turn: "bananas"); their ids."""
    ids = []
    for title, message in (("Alpha plans", alpha_message), ("Beta notes", "bananas")):
        session = server.api("POST", f"/v1/agents/{agent_id}/sessions", {"title": title})
        server.api("POST", f"/v1/sessions/{session['id']}/turns", {"message": message})
        ids.append(session["id"])
    return ids[0], ids[1]


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_sidebar_sessions_search_and_two_running_at_once(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    key = f"side{size}{theme}"
    agent = server.agent(key)
    alpha, beta = _alpha_and_beta(server, agent["id"], "apples and pears")
    with viewed(browser, server, size, theme) as page:
        server.scripted.script("held", agent=key, delay_s=60, times=1)  # stopped below
        page.goto(f"/#/agents/{agent['id']}/sessions/{alpha}")
        box = page.get_by_label("Message")
        box.fill("first, slowly")
        box.press("Enter")
        expect(page.locator(".turn").last).to_have_attribute("data-status", "running")

        open_sidebar(page, size)
        nav = page.locator("#sidebar .side-sessions")
        alpha_link = nav.locator(f".side-session[data-id='{alpha}']")
        beta_link = nav.locator(f".side-session[data-id='{beta}']")
        expect(alpha_link).to_have_attribute("aria-current", "page")
        expect(alpha_link).to_have_attribute("data-live", "true")
        expect(alpha_link.locator(".badge.live")).to_have_text("live")
        expect(beta_link).to_have_attribute("data-live", "false")
        screenshot(page, f"{size}-{theme}-sidebar-live")
        beta_link.click()

        expect(page.locator(".turn").last.locator(".msg-user")).to_have_text("bananas")
        hint = page.locator(".composer-hint")
        expect(hint.get_by_role("link", name="Open the running one")).to_be_visible()
        box.fill("second, meanwhile")
        box.press("Enter")
        mine = page.locator(".turn").last
        expect(mine).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
        expect(mine).to_contain_text(f"{key}: second, meanwhile")

        open_sidebar(page, size)
        expect(beta_link).to_have_attribute("aria-current", "page")
        expect(alpha_link).to_have_attribute("data-live", "true")  # still running there
        expect(beta_link).to_have_attribute("data-live", "false")
        search = nav.get_by_role("searchbox", name="Search sessions")
        search.fill("banana")  # message text
        # the search waits 250 ms for typing to stop, then asks the server: on a loaded
        # machine that answer can take longer than expect's own 5 s
        expect(alpha_link).to_have_count(0, timeout=WAIT_MS)
        expect(nav.locator(".side-session")).to_have_count(1)
        expect(beta_link).to_be_visible()
        search.fill("ALPHA")  # title, any case
        expect(beta_link).to_have_count(0, timeout=WAIT_MS)
        expect(nav.locator(".side-session")).to_have_count(1)
        expect(alpha_link).to_be_visible()
        screenshot(page, f"{size}-{theme}-sidebar-search")
        search.fill("nothing like this")
        expect(nav).to_contain_text("No session mentions “nothing like this”.", timeout=WAIT_MS)
        search.fill("")
        expect(nav.locator(".side-session")).to_have_count(2, timeout=WAIT_MS)
        alpha_link.click()

        held = page.locator(".turn").last
        expect(held).to_have_attribute("data-status", "running")
        held.get_by_role("button", name="Stop").click()
        expect(held).to_have_attribute("data-status", "cancelled", timeout=WAIT_MS)
        open_sidebar(page, size)
        expect(alpha_link).to_have_attribute("data-live", "false")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_turn_ending_while_the_search_is_typed_keeps_the_keys(
    browser: Browser, server: LiveServer, size: str
) -> None:
    """A turn's end redraws the sidebar, which moves the search box: the focus stays in it
    (it used to fall to the page, and the rest of the word went nowhere)."""
    key = f"sidetype{size}"
    agent = server.agent(key)
    alpha, beta = _alpha_and_beta(server, agent["id"], "apples")
    with viewed(browser, server, size, "light") as page:
        server.scripted.script("held", agent=key, delay_s=60, times=1)  # cancelled below
        page.goto(f"/#/agents/{agent['id']}/sessions/{alpha}")
        box = page.get_by_label("Message")
        box.fill("slowly")
        box.press("Enter")
        held = page.locator(".turn").last
        expect(held).to_have_attribute("data-status", "running")
        expect(held).to_have_attribute("data-turn-id", re.compile(".+"))
        turn_id = held.get_attribute("data-turn-id")

        open_sidebar(page, size)
        nav = page.locator("#sidebar .side-sessions")
        search = nav.get_by_role("searchbox", name="Search sessions")
        search.press_sequentially("ban")
        expect(search).to_be_focused()
        drawn = page.locator("#sidebar .side-item[aria-current='page']").element_handle()
        server.api("POST", f"/v1/turns/{turn_id}/cancel")
        expect(held).to_have_attribute("data-status", "cancelled", timeout=WAIT_MS)
        page.wait_for_function("item => !item.isConnected", arg=drawn)  # drawn again
        page.keyboard.type("ana")
        expect(search).to_have_value("banana")
        expect(nav.locator(".side-session")).to_have_count(1, timeout=WAIT_MS)
        expect(nav.locator(f".side-session[data-id='{beta}']")).to_be_visible()


RUNNING_TURNS = "JSON.parse(sessionStorage.getItem('pantheon.runningTurns'))"


def test_a_reload_follows_every_running_turn_again(browser: Browser, server: LiveServer) -> None:
    """Two sessions run at once; a reload follows both again, and the one that ends first
    does not make the tab forget the other (it used to keep only one, then none)."""
    key = "sidereload"
    agent = server.agent(key)
    alpha, beta = (
        server.api("POST", f"/v1/agents/{agent['id']}/sessions", {"title": title})["id"]
        for title in ("Alpha plans", "Beta notes")
    )
    chat = f"/#/agents/{agent['id']}/sessions/"
    with viewed(browser, server, "desktop", "light") as page:
        box = page.get_by_label("Message")
        turn_ids = {}
        for session, message in ((alpha, "held"), (beta, "streamed")):
            if session == alpha:
                server.scripted.script("held", agent=key, delay_s=60, times=1)  # stopped below
            else:
                server.scripted.script(answer(key, 30), agent=key, chunk_delay_s=0.1, times=1)
            page.goto(chat + session)
            expect(page.locator(".turn")).to_have_count(0)
            box.fill(message)
            box.press("Enter")
            turn = page.locator(".turn").last
            expect(turn).to_have_attribute("data-turn-id", re.compile(".+"))
            turn_ids[session] = turn.get_attribute("data-turn-id")
        stored = page.evaluate(RUNNING_TURNS)
        assert [entry["sessionId"] for entry in stored] == [alpha, beta]

        page.reload()  # on beta's chat, which stays open
        nav = page.locator("#sidebar .side-sessions")
        expect(nav.locator(f".side-session[data-id='{alpha}']")).to_have_attribute(
            "data-live", "true"
        )
        streamed = page.locator(f".turn[data-turn-id='{turn_ids[beta]}']")
        expect(streamed).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
        expect(streamed).to_contain_text(f"{key}-END")
        expect(page.locator(".turn")).to_have_count(1)
        assert [entry["sessionId"] for entry in page.evaluate(RUNNING_TURNS)] == [alpha]

        page.reload()  # beta runs nothing now: the page opens alpha's running turn
        expect(page).to_have_url(f"{server.url}{chat}{alpha}")
        held = page.locator(f".turn[data-turn-id='{turn_ids[alpha]}']")
        expect(held).to_have_attribute("data-status", "running")
        held.get_by_role("button", name="Stop").click()
        expect(held).to_have_attribute("data-status", "cancelled", timeout=WAIT_MS)
        assert page.evaluate(RUNNING_TURNS) is None
