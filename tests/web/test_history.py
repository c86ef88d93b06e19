"""A reopened session shows each turn exactly as it streamed: rounds, routing and
evaluation decisions with their fallback badges, failures, per-agent usage and calls."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from pantheon.llm.errors import Unavailable
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import answer
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

TURN_TEXT = """(id) => {
  const turn = document.querySelector(`.turn[data-turn-id="${id}"]`);
  const pick = (sel) => [...turn.querySelectorAll(sel)].map((el) => el.innerText.trim());
  return { body: turn.querySelector('.turn-body').innerText, usage: pick('.turn-usage'),
           status: turn.dataset.status, badges: pick('.badge'), panels: pick('.panel-foot') };
}"""


def test_reopened_orchestrator_turn_matches_the_live_view(page: Page, server: LiveServer) -> None:
    made = server.room_with("Replay", ["lead", "flaky", "closer"])
    s = server.scripted
    # Round 1: the manager's answer is unusable (fallback: the first agent runs) and it is
    # slow enough to see "choosing"; its evaluation is unparsable (fallback: stop).
    s.script("I think lead should go", purpose="route", delay_s=0.8)
    s.script("maybe?", purpose="evaluate", delay_s=0.8)
    s.script(answer("lead", 6), agent="lead", chunk_delay_s=0.05)
    s.script("## Plan\n\n| step | who |\n|---|---|\n| 1 | ~~me~~ you |", purpose="synthesis")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Make a plan")
    box.press("Enter")
    turn = page.locator(".turn").last
    routing = turn.locator(".round[data-round='1'] .routing")
    expect(routing).to_have_attribute("data-pending", "true")
    expect(routing).to_contain_text("Manager is choosing who answers")
    screenshot(page, "desktop-manager-routing")
    evaluation = turn.locator(".round[data-round='1'] .evaluation")
    expect(evaluation).to_contain_text("Manager is checking whether another round is needed")
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(routing).to_contain_text("fallback: unusable answer")
    expect(evaluation).to_contain_text("fallback: unparsable answer means stop")
    expect(turn.locator(".usage-calls")).to_contain_text("route 1")  # GET /v1/turns/{id}
    turn_id = turn.get_attribute("data-turn-id")
    live = page.evaluate(TURN_TEXT, turn_id)

    page.reload()
    stored = page.locator(f".turn[data-turn-id='{turn_id}']")
    expect(stored.locator(".usage-calls")).to_contain_text("route 1")
    assert page.evaluate(TURN_TEXT, turn_id) == live
    expect(stored.locator(".synthesis table td del")).to_have_text("me")
    expect(stored.locator(".panel[data-agent='lead'] .panel-foot")).to_contain_text("1 call")


def test_reopened_turn_keeps_failures_and_partial_status(page: Page, server: LiveServer) -> None:
    made = server.room_with("Failing", ["good", "bad"], mode="roundtable")
    server.scripted.script(answer("good", 4), agent="good")
    server.scripted.script("", agent="bad", error=Unavailable("upstream 503 at 10.0.0.7"))
    session_id = made["session"]["id"]
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{session_id}")
    box = page.get_by_label("Message")
    box.fill("Both of you")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    bad = turn.locator(".panel[data-agent='bad']")
    expect(bad).to_have_attribute("data-state", "failed")
    expect(bad.locator(".panel-error")).to_have_text(
        "The model provider could not be reached. Try again in a moment."
    )
    expect(bad).not_to_contain_text("10.0.0.7")
    # The finished turn's figures (calls, latency) arrive from GET /v1/turns/{id} after the
    # stream ends: compare once they are shown, not while the fetch is in flight.
    expect(turn.locator(".usage-calls")).to_be_visible()
    live = page.evaluate(TURN_TEXT, turn.get_attribute("data-turn-id"))

    page.goto("/#/")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{session_id}")
    stored = page.locator(".turn").last
    expect(stored.locator(".usage-calls")).to_be_visible()
    assert page.evaluate(TURN_TEXT, stored.get_attribute("data-turn-id")) == live
