"""Roster order with gaps in stored positions; sessions as a chat user keeps them; agents
created from a room's page; one '+ New session' behaviour for rooms and agents."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Route, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def roster_keys(server: LiveServer, room_id: str) -> list[str]:
    return [a["key"] for a in server.api("GET", f"/v1/rooms/{room_id}")["agents"]]


def test_move_down_after_a_removal_with_gaps_in_positions(page: Page, server: LiveServer) -> None:
    made = server.room_with("Gaps", ["g1", "g2", "g3", "g4"], mode="roundtable")
    room = made["room"]
    g2 = next(a for a in server.api("GET", "/v1/agents")["items"] if a["key"] == "g2")
    server.api("DELETE", f"/v1/rooms/{room['id']}/agents/{g2['id']}")
    positions = [a["position"] for a in server.api("GET", f"/v1/rooms/{room['id']}")["agents"]]
    assert positions == [0, 2, 3]  # the gap the page must cope with

    page.goto(f"/#/rooms/{room['id']}")
    page.get_by_role("button", name="Roster (3)").click()
    roster = page.locator("dialog.roster-dialog")
    items = roster.locator(".roster-item")
    roster.get_by_role("button", name="Move G1 down").click()
    expect(items.nth(1)).to_have_attribute("data-key", "g1")
    expect(roster.get_by_role("button", name="Move G1 down")).to_be_focused()
    assert roster_keys(server, room["id"]) == ["g3", "g1", "g4"]
    page.keyboard.press("Enter")  # focus stayed: the keyboard moves it again
    expect(items.nth(2)).to_have_attribute("data-key", "g1")
    expect(roster.get_by_role("button", name="Move G1 up")).to_be_focused()  # down is disabled
    assert roster_keys(server, room["id"]) == ["g3", "g4", "g1"]
    page.keyboard.press("Enter")
    expect(items.nth(1)).to_have_attribute("data-key", "g1")
    expect(roster.get_by_role("button", name="Move G1 up")).to_be_focused()
    assert roster_keys(server, room["id"]) == ["g3", "g1", "g4"]
    roster.get_by_label("Position").select_option(label="at position 3 (before G4)")
    roster.get_by_role("button", name="Add", exact=True).click()
    expect(items).to_have_count(4)
    assert roster_keys(server, room["id"]) == ["g3", "g1", "g2", "g4"]
    roster.get_by_role("button", name="Remove G3").click()
    expect(roster.get_by_role("button", name="Remove G1")).to_be_focused()  # the next row
    assert roster_keys(server, room["id"]) == ["g1", "g2", "g4"]
    screenshot(page, "desktop-roster")


def test_sessions_rename_delete_search_and_activity_order(page: Page, server: LiveServer) -> None:
    made = server.room_with("Library", ["lib"], mode="roundtable")
    room_id = made["room"]["id"]
    first = made["session"]
    second = server.api("POST", f"/v1/rooms/{room_id}/sessions", {})
    server.api("POST", f"/v1/sessions/{second['id']}/turns", {"message": "Zebra 100% facts"})
    server.api("POST", f"/v1/sessions/{first['id']}/turns", {"message": "Later words"})

    page.goto(f"/#/rooms/{room_id}")  # the latest activity opens by default
    expect(page).to_have_url(f"{server.url}/#/rooms/{room_id}/sessions/{first['id']}")
    expect(page.locator(".session-current")).to_have_text("Library")  # the page is drawn
    page.keyboard.press("Control+k")
    dialog = page.locator("dialog.sessions-dialog")
    titles = dialog.locator(".session-title")
    expect(titles).to_have_text(["Library", "Zebra 100% facts"])  # automatic title
    dialog.get_by_label("Search sessions").fill("100%")
    expect(titles).to_have_text(["Zebra 100% facts"])
    dialog.get_by_label("Search sessions").fill("nothing like this")
    expect(dialog.locator(".session-status")).to_have_text(
        "No session mentions “nothing like this”."
    )
    dialog.get_by_label("Search sessions").fill("")
    expect(titles).to_have_count(2)
    screenshot(page, "desktop-sessions-dialog")

    dialog.get_by_role("button", name="Rename Zebra 100% facts").click()
    rename = page.locator("dialog[open]").last
    rename.get_by_label("Title").fill("Animals")
    rename.get_by_role("button", name="Save").click()
    expect(titles).to_have_text(["Library", "Animals"])
    dialog.get_by_role("button", name="Delete Library").click()
    page.locator("dialog[open]").last.get_by_role("button", name="Delete session").click()
    expect(titles).to_have_text(["Animals"])
    expect(page.locator(".toasts")).to_contain_text("Deleted “Library”.")
    assert server.api("GET", f"/v1/rooms/{room_id}/sessions")["total"] == 1
    page.keyboard.press("Escape")
    # the open session was deleted: the page moved to the one left
    expect(page.locator(".session-current")).to_have_text("Animals")
    expect(page.locator(".msg-user")).to_have_text("Zebra 100% facts")

    page.get_by_role("button", name="Session actions").click()
    page.get_by_role("menuitem", name="Rename session…").click()
    rename = page.locator("dialog[open]")
    rename.get_by_label("Title").fill("")  # empty: back to the automatic title
    rename.get_by_role("button", name="Save").click()
    expect(page.locator(".session-current")).to_have_text("Zebra 100% facts")


def test_new_session_is_the_same_in_rooms_and_on_agents(page: Page, server: LiveServer) -> None:
    made = server.room_with("Same", ["same"], mode="roundtable")
    agent = server.agent("single")
    pages = ((f"/#/rooms/{made['room']['id']}", "Same"), (f"/#/agents/{agent['id']}", "Single"))
    for base, title in pages:
        page.goto(base)
        expect(page.locator(".view-title")).to_contain_text(title)  # this page, not the last
        page.get_by_role("button", name="+ New session").click()
        expect(page).to_have_url(f"{server.url}{base}/new")
        expect(page.get_by_label("Message")).to_be_focused()
        expect(page.locator(".empty h3")).to_have_text("New session")
        page.get_by_label("Message").fill("Fresh start\nwith details")
        page.get_by_label("Message").press("Enter")
        expect(page.locator(".turn").last).to_have_attribute("data-status", "completed")
        expect(page.locator(".session-current")).to_have_text("Fresh start")
        assert "/sessions/" in page.url
        page.get_by_label("Message").fill("second message, same session")
        page.get_by_label("Message").press("Enter")
        expect(page.locator(".turn")).to_have_count(2)
        expect(page.locator(".turn").last).to_have_attribute("data-status", "completed")
    sessions = server.api("GET", f"/v1/agents/{agent['id']}/sessions")
    assert sessions["total"] == 1
    assert sessions["items"][0]["turn_count"] == 2


def test_agent_created_from_a_room_joins_its_roster(page: Page, server: LiveServer) -> None:
    made = server.room_with("Hiring", ["first"], mode="roundtable")
    room_id = made["room"]["id"]
    page.goto(f"/#/rooms/{room_id}")
    page.locator("#sidebar").get_by_role("button", name="+ New agent").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Key").fill("newbie")
    dialog.get_by_label("Name", exact=True).fill("Newbie")
    dialog.get_by_label("Role prompt").fill("You are new.")
    expect(dialog.get_by_label("Add to Hiring's roster")).to_be_checked()
    dialog.get_by_role("button", name="Create agent").click()
    expect(page.locator(".toasts")).to_contain_text(
        "Created Newbie (@newbie) and added it to Hiring's roster."
    )
    expect(page.get_by_role("button", name="Roster (2)")).to_be_visible()
    assert roster_keys(server, room_id) == ["first", "newbie"]

    page.locator("#sidebar").get_by_role("button", name="+ New agent").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Key").fill("loner")
    dialog.get_by_label("Name", exact=True).fill("Loner")
    dialog.get_by_label("Role prompt").fill("You work alone.")
    dialog.get_by_label("Add to Hiring's roster").uncheck()
    dialog.get_by_role("button", name="Create agent").click()
    expect(page.locator(".toasts")).to_contain_text("Created Loner (@loner).")
    expect(page.locator(".view-title")).to_contain_text("Loner")  # its own page
    assert roster_keys(server, room_id) == ["first", "newbie"]


def test_nothing_is_sent_to_the_previous_session_while_the_next_one_loads(
    page: Page, server: LiveServer
) -> None:
    agent = server.agent("steady")
    session = server.api("POST", f"/v1/agents/{agent['id']}/sessions", {"title": "First"})
    server.api("POST", f"/v1/sessions/{session['id']}/turns", {"message": "one"})
    page.goto(f"/#/agents/{agent['id']}/sessions/{session['id']}")
    expect(page.locator(".turn")).to_have_count(1)
    box = page.get_by_label("Message")
    send = page.get_by_role("button", name="Send", exact=True)
    expect(send).to_be_enabled()

    # The next view's session list is held until the test lets it go: the old view stays
    # on screen meanwhile, and a message typed there must not go to the old session.
    listing = f"**/v1/agents/{agent['id']}/sessions*"
    held: list[Route] = []
    page.route(listing, lambda route: held.append(route))
    with page.expect_request(listing):
        page.evaluate(f"location.hash = '#/agents/{agent['id']}/new'")
    expect(send).to_be_disabled()
    box.fill("two")
    box.press("Enter")  # kept in the box, not posted to "First"
    for _ in range(50):  # the route handler runs on the next round trip
        if held:
            break
        page.evaluate("() => new Promise(requestAnimationFrame)")
    assert len(held) == 1
    held[0].continue_()
    page.unroute(listing)

    expect(page.get_by_role("heading", name="New session")).to_be_visible()
    expect(box).to_have_value("two")
    box.press("Enter")
    expect(page.locator(".turn").last).to_have_attribute("data-status", "completed")
    assert server.api("GET", f"/v1/sessions/{session['id']}/turns")["total"] == 1
    sessions = server.api("GET", f"/v1/agents/{agent['id']}/sessions")
    assert sorted(s["turn_count"] for s in sessions["items"]) == [1, 1]
