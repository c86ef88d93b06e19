"""The approval card: an agent with ``calculator!`` pauses its turn; the card shows the
call, Approve runs it and the continuation streams below; Reject sends the reason to the
agent; after a reload a decided card offers nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from pantheon.llm.providers.scripted import ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def gated(request: LLMRequest) -> ScriptedReply:
    """Asks for 17*23 once; then says what the tool answered."""
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedReply(f"The tool said: {last.content}")
    return ScriptedReply(
        "Let me compute that.", (tool_call("calculator", {"expression": "17*23"}),)
    )


def gated_room(server: LiveServer, name: str) -> tuple[str, str]:
    room = server.api("POST", "/v1/rooms", {"name": name, "mode": "roundtable"})
    key = f"calc{name}"
    agent = server.api(
        "POST",
        "/v1/agents",
        {"key": key, "name": "Calc", "role_prompt": "x", "tools": ["calculator!"]},
    )
    server.api("POST", f"/v1/rooms/{room['id']}/agents", {"agent_id": agent["id"]})
    session = server.api("POST", f"/v1/rooms/{room['id']}/sessions", {"title": name})
    server.scripted.script(gated, agent=key)
    return room["id"], session["id"]


def ask(page: Page, room: str, session: str) -> None:
    page.goto(f"/#/rooms/{room}/sessions/{session}")
    box = page.get_by_label("Message")
    box.fill("What is 17 times 23?")
    box.press("Enter")
    paused = page.locator(".turn").last
    expect(paused).to_have_attribute("data-status", "awaiting_approval", timeout=WAIT_MS)


def test_approve_in_the_card_runs_the_tool_and_finishes_live(
    page: Page, server: LiveServer
) -> None:
    room, session = gated_room(server, "Approve")
    ask(page, room, session)
    paused = page.locator(".turn").first  # a new session: the only turn so far
    paused_id = paused.get_attribute("data-turn-id")
    assert paused_id
    card = paused.locator(".approval-card")
    expect(card).to_have_attribute("data-state", "open")
    expect(card.locator(".approval-tool")).to_have_text("calculator")
    expect(card.locator(".approval-args")).to_contain_text('"expression": "17*23"')
    expect(paused.locator(".tool-call")).to_have_attribute("data-state", "awaiting")
    expect(paused.locator(".panel")).to_have_attribute("data-state", "paused")
    screenshot(page, "desktop-approval-card")

    card.get_by_role("button", name="Approve").click()
    expect(page.locator(".turn")).to_have_count(2)
    continuation = page.locator(".turn").last
    expect(continuation).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(continuation).to_have_attribute("data-continues", paused_id)
    expect(continuation.locator(".tool-call")).to_have_attribute("data-state", "ok")
    expect(continuation.locator(".panel-body")).to_contain_text("The tool said: 391")
    expect(card).to_have_attribute("data-state", "decided")

    page.reload()
    turns = page.locator(".turn")
    expect(turns).to_have_count(2)
    expect(turns.first.locator(".approval-card")).to_have_attribute("data-state", "decided")
    expect(turns.first.get_by_role("button", name="Approve")).to_be_hidden()
    expect(turns.last).to_have_attribute("data-status", "completed")
    expect(turns.last.locator(".msg-user")).to_contain_text("Approved calculator")
    # The continuation's "message" is the decision: nothing to edit or send again.
    expect(turns.last.get_by_role("button", name="Regenerate")).to_have_count(0)
    expect(turns.first.get_by_role("button", name="Regenerate")).to_have_count(1)


def test_reject_with_a_reason_reaches_the_agent(page: Page, server: LiveServer) -> None:
    room, session = gated_room(server, "Reject")
    ask(page, room, session)
    card = page.locator(".turn").first.locator(".approval-card")
    card.get_by_label("Reason for calculator").fill("not on a Monday")
    card.get_by_role("button", name="Reject").click()
    continuation = page.locator(".turn").nth(1)
    expect(continuation).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(continuation.locator(".tool-call")).to_have_attribute("data-state", "failed")
    expect(continuation.locator(".panel-body")).to_contain_text(
        "not run: a person rejected this call: not on a Monday"
    )
    # While a turn awaits approval the page says so; afterwards it is an ordinary session.
    turns = server.api("GET", f"/v1/sessions/{session}/turns")["items"]
    assert [t["status"] for t in turns] == ["awaiting_approval", "completed"]


def test_a_decided_turn_stops_waiting_and_keeps_its_decision(
    page: Page, server: LiveServer
) -> None:
    room, session = gated_room(server, "Decided")
    ask(page, room, session)
    paused = page.locator(".turn").first
    card = paused.locator(".approval-card")
    card.get_by_label("Reason for calculator").fill("not on a Monday")
    card.get_by_role("button", name="Reject").click()
    continuation = page.locator(".turn").nth(1)
    expect(continuation).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    for when in ("live", "reloaded"):
        expect(paused.locator(".turn-head .status")).not_to_have_text("awaiting your approval")
        expect(paused.locator(".turn-head .status")).to_contain_text("decided")
        expect(card).to_have_attribute("data-state", "decided")
        expect(card.locator(".approval-choice")).to_have_text("Rejected: not on a Monday")
        bubble = continuation.locator(".msg-user")
        expect(bubble).to_have_text("Rejected calculator: not on a Monday")
        call = continuation.locator(".tool-call")
        expect(call).to_have_attribute("data-approval", "rejected")
        expect(call.locator(".tool-badge")).to_have_text("rejected")
        screenshot(page, f"desktop-approval-decided-{when}")
        page.reload()
        paused = page.locator(".turn").first
        card = paused.locator(".approval-card")
        continuation = page.locator(".turn").nth(1)
        expect(continuation).to_have_attribute("data-status", "completed")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "phone-approval-decided")


def test_the_agent_form_marks_a_tool_ask_me_first(page: Page, server: LiveServer) -> None:
    page.goto("/#/")
    page.get_by_role("button", name="New agent").first.click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Key").fill("asker")
    dialog.get_by_label("Name").fill("Asker")
    dialog.get_by_label("Role prompt").fill("You ask.")
    dialog.get_by_label("Ask me first before each calculator call").check()
    expect(dialog.locator("input[value='calculator']")).to_be_checked()  # ticks the tool too
    screenshot(page, "desktop-agent-form-ask-first")
    dialog.get_by_role("button", name="Create agent").click()
    expect(page.locator("dialog[open]")).to_have_count(0)
    agents = server.api("GET", "/v1/agents?limit=200")["items"]
    saved = next(a for a in agents if a["key"] == "asker")
    assert saved["tools"] == ["calculator!"]

    page.goto(f"/#/agents/{saved['id']}")
    page.get_by_role("button", name="Agent actions").click()
    page.get_by_role("menuitem", name="Edit agent…").click()
    dialog = page.locator("dialog[open]")
    ask = dialog.get_by_label("Ask me first before each calculator call")
    expect(ask).to_be_checked()
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "phone-agent-form-ask-first")
    ask.uncheck()
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator("dialog[open]")).to_have_count(0)
    assert server.api("GET", f"/v1/agents/{saved['id']}")["tools"] == ["calculator"]


def test_while_a_decision_waits_send_is_off_and_the_sidebar_says_so(
    page: Page, server: LiveServer
) -> None:
    """Issue 33 item 18: Send stayed on (and sending added an error turn), the sidebar did
    not mark the session, and the panel still said "waiting for approval" once decided."""
    room, session = gated_room(server, "Waits")
    other = server.api("POST", f"/v1/rooms/{room}/sessions", {"title": "Other chat"})
    ask(page, room, session)
    paused = page.locator(".turn").first
    waiting = page.locator(f".side-session[data-id='{session}']")
    expect(waiting).to_have_attribute("data-waiting", "true")
    expect(waiting.locator(".badge")).to_have_text("needs you")
    calm = page.locator(f".side-session[data-id='{other['id']}']")
    expect(calm).to_have_attribute("data-waiting", "false")
    send = page.locator(".composer").get_by_role("button", name="Send")
    expect(send).to_be_disabled()
    expect(page.locator(".composer-hint")).to_contain_text("waits for your approval")
    box = page.get_by_label("Message")
    box.fill("a message that must not become an error turn")
    box.press("Enter")
    expect(box).to_have_value("a message that must not become an error turn")
    expect(page.locator(".turn")).to_have_count(1)
    screenshot(page, "desktop-approval-waiting")

    paused.locator(".approval-card").get_by_role("button", name="Approve").click()
    continuation = page.locator(".turn").nth(1)
    expect(continuation).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    for _when in ("live", "reloaded"):
        panel = paused.locator(".panel")
        expect(panel).not_to_have_attribute("data-state", "paused")
        expect(panel.locator(".panel-state")).to_have_text("decided: goes on below")
        expect(waiting).to_have_attribute("data-waiting", "false")
        expect(waiting.locator(".badge")).to_have_count(0)
        expect(send).to_be_enabled()
        page.reload()
        paused = page.locator(".turn").first
    assert [t["status"] for t in server.api("GET", f"/v1/sessions/{session}/turns")["items"]] == [
        "awaiting_approval",
        "completed",
    ]
