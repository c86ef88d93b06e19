"""A new user builds a room in the browser and follows an orchestrator turn; Stop; reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import SYNTHESIS, script_orchestrator
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

BOTH_STREAMING = """() => document.querySelectorAll(
  '.round[data-round="1"] .panel[data-state="streaming"]').length >= 2"""
ANY_STREAMING = "() => document.querySelector('.panel[data-state=\"streaming\"]') !== null"


def create_agent(page: Page, key: str, name: str) -> None:
    page.locator("#sidebar").get_by_role("button", name="+ New agent").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Key").fill(key)
    dialog.get_by_label("Name", exact=True).fill(name)
    dialog.get_by_label("Role prompt").fill(f"You are the {name.lower()}.")
    expect(dialog.get_by_label("Model")).to_have_value("")  # server default, from /v1/models
    dialog.get_by_role("button", name="Create agent").click()
    expect(dialog).to_have_count(0)
    expect(page.locator("#sidebar")).to_contain_text(f"@{key}")


def send(page: Page, message: str) -> None:
    box = page.get_by_label("Message")
    box.fill(message)
    box.press("Enter")


def test_a_room_of_three_runs_an_orchestrator_turn(page: Page, server: LiveServer) -> None:
    keys = ("alpha", "beta", "gamma")
    script_orchestrator(server.scripted, keys)
    page.goto("/")
    expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
    for key in keys:
        create_agent(page, key, key.title())

    page.locator("#sidebar").get_by_role("button", name="+ New room").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Name").fill("Launch plan")
    expect(dialog.locator("select[name='mode']")).to_have_value("orchestrator")
    dialog.get_by_role("button", name="Create room").click()
    expect(page.locator(".view-title")).to_have_text("Launch plan")

    page.get_by_role("button", name="Roster (0)").click()
    roster = page.locator("dialog.roster-dialog")
    for _ in keys:
        roster.get_by_role("button", name="Add", exact=True).click()
    expect(roster.locator(".roster-item")).to_have_count(3)
    roster.get_by_role("button", name="Done").click()
    expect(page.locator(".roster-inline")).to_have_text("@alpha → @beta → @gamma")

    send(page, "Plan the launch")
    turn = page.locator(".turn").last
    # Both round-1 specialists hold deltas while neither has completed: side by side, live.
    page.wait_for_function(BOTH_STREAMING, timeout=WAIT_MS)
    expect(turn.locator(".round[data-round='1'] .routing")).to_contain_text("@alpha, @beta")
    screenshot(page, "desktop-turn-streaming")

    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    round1 = turn.locator(".round[data-round='1']")
    round2 = turn.locator(".round[data-round='2']")
    expect(round1.locator(".panel")).to_have_count(2)
    expect(round1.locator(".panel[data-agent='alpha'] .panel-body")).to_contain_text("alpha-END")
    expect(round1.locator(".evaluation")).to_contain_text("another round")
    expect(round2.locator(".routing")).to_contain_text("@gamma")
    expect(round2.locator(".panel[data-agent='gamma']")).to_have_attribute("data-state", "done")
    synthesis = turn.locator(".synthesis .panel")
    expect(synthesis).to_have_attribute("data-state", "done")
    expect(synthesis.locator("strong")).to_have_text("Synthesis")
    expect(synthesis.locator("li")).to_have_count(2)
    expect(turn.locator(".usage-tokens")).to_contain_text("tokens in")
    expect(turn.locator(".usage-latency")).to_be_visible()  # from GET /v1/turns/{id}
    assert page.evaluate("sessionStorage.getItem('pantheon.runningTurns')") is None
    screenshot(page, "desktop-orchestrator-turn")


def test_stop_cancels_the_running_turn(page: Page, server: LiveServer) -> None:
    keys = ("stop1", "stop2", "stop3")
    script_orchestrator(server.scripted, keys, words=60, chunk_delay_s=0.2)
    made = server.room_with("Stoppable", list(keys))
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    send(page, "Take your time")
    turn = page.locator(".turn").last
    page.wait_for_function(ANY_STREAMING, timeout=WAIT_MS)
    turn.get_by_role("button", name="Stop", exact=True).click()

    expect(turn).to_have_attribute("data-status", "cancelled", timeout=WAIT_MS)
    expect(turn.locator(".badge.status")).to_have_text("cancelled")
    expect(turn.get_by_role("button", name="Stop", exact=True)).to_be_hidden()
    expect(turn.locator(".panel[data-state='stopped']")).not_to_have_count(0)
    expect(turn.locator(".panel[data-state='streaming']")).to_have_count(0)
    stored = server.api("GET", f"/v1/sessions/{made['session']['id']}/turns")
    assert [t["status"] for t in stored["items"]] == ["cancelled"]
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_enabled()
    screenshot(page, "desktop-turn-cancelled")


def test_reload_mid_turn_resumes_to_the_synthesis(page: Page, server: LiveServer) -> None:
    keys = ("reload1", "reload2", "reload3")
    script_orchestrator(server.scripted, keys, words=20, chunk_delay_s=0.1)
    made = server.room_with("Reloadable", list(keys))
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    send(page, "Survive a reload")
    page.wait_for_function(ANY_STREAMING, timeout=WAIT_MS)
    (running,) = page.evaluate("JSON.parse(sessionStorage.getItem('pantheon.runningTurns'))")
    assert running["lastEventId"] > 0

    page.reload()
    turn = page.locator(f".turn[data-turn-id='{running['turnId']}']")
    expect(turn).to_have_count(1)
    expect(turn.locator(".msg-user")).to_have_text("Survive a reload")
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    for key in keys[:2]:  # rebuilt from the replay, including what streamed before the reload
        body = turn.locator(f".round[data-round='1'] .panel[data-agent='{key}'] .panel-body")
        expect(body).to_contain_text(f"{key}-word1 ")
        expect(body).to_contain_text(f"{key}-END")
    expect(turn.locator(".synthesis .panel-body")).to_contain_text(SYNTHESIS.split("\n")[0][2:11])
    expect(turn.locator(".turn-notice")).to_be_hidden()
    expect(page.locator(".turn")).to_have_count(1)
    assert page.evaluate("sessionStorage.getItem('pantheon.runningTurns')") is None


def test_api_errors_show_their_detail(page: Page, server: LiveServer) -> None:
    made = server.room_with("Tagged", ["err1", "err2"], mode="roundtable")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    page.get_by_label("Mode for this turn only").select_option("manual")
    send(page, "nobody is tagged")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "error")
    expect(turn.locator(".turn-notice")).to_contain_text(
        "Could not start the turn: Mention at least one agent of the room: @err1, @err2"
    )
    expect(page.get_by_label("Message")).to_have_value("nobody is tagged")  # kept to fix

    page.locator("#sidebar").get_by_role("button", name="+ New agent").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Key").fill("err1")
    dialog.get_by_label("Name", exact=True).fill("Duplicate")
    dialog.get_by_label("Role prompt").fill("Again.")
    dialog.get_by_role("button", name="Create agent").click()
    expect(dialog.locator(".form-error")).to_have_text("An agent with key 'err1' already exists")
    dialog.press("Escape")
    expect(page.locator("dialog[open]")).to_have_count(0)
    screenshot(page, "desktop-error-detail")
