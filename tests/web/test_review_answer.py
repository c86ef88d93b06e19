"""A review turn reads for a person: reviewer panels show verdicts (never JSON), the chosen
draft closes the turn in full with why the loop stopped, live, after a reload and in the
Markdown export (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

DRAFT = "The **revised** draft.\n\n- light\n- fast"


def _verdict(approved: bool, score: int, feedback: str) -> str:
    return json.dumps({"approved": approved, "score": score, "feedback": feedback})


def test_review_turn_shows_verdicts_and_ends_with_the_answer(
    page: Page, server: LiveServer
) -> None:
    made = server.room_with("Reviewed", ["drafter", "judge"], mode="review")
    server.scripted.script(DRAFT, agent="drafter")
    server.scripted.script("a first draft", agent="drafter", times=1)
    server.scripted.script(_verdict(True, 9, "good now"), agent="judge")
    server.scripted.script(_verdict(False, 4, "too vague"), agent="judge", times=1)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Describe the product")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    for when in ("live", "reloaded"):
        judge = turn.locator(".round[data-round='2'] .panel[data-agent='judge'] .panel-body")
        expect(judge).to_have_text("approved · 9/10 · good now")
        expect(turn.locator(".panel[data-agent='judge'] .panel-body").first).not_to_contain_text(
            "{"
        )
        answer = turn.locator(".answer")
        expect(answer).to_contain_text("Answer: the round 2 draft")
        expect(answer).to_contain_text("every reviewer approved")
        expect(answer.locator(".answer-body strong")).to_have_text("revised")
        expect(answer.locator(".answer-body li")).to_have_text(["light", "fast"])
        # The answer closes the turn: nothing but the figures below it.
        assert turn.evaluate(
            "(t) => t.querySelector('.answer').compareDocumentPosition("
            "[...t.querySelectorAll('.round')].at(-1)) & Node.DOCUMENT_POSITION_PRECEDING"
        )
        answer.scroll_into_view_if_needed()
        screenshot(page, f"desktop-review-answer-{when}")
        page.reload()
        turn = page.locator(".turn").last
        expect(turn).to_have_attribute("data-status", "completed")

    page.get_by_role("button", name="Session actions").click()
    with page.expect_download() as markdown:
        page.get_by_role("menuitem", name="Export as Markdown").click()
    text = Path(markdown.value.path()).read_text()
    assert '"approved"' not in text
    assert "approved · 9/10 · good now" in text
    assert "### Answer (the round 2 draft, score 9; stopped: every reviewer approved)" in text
    assert text.count(DRAFT) == 2  # the round 2 draft, and the answer
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator(".answer").scroll_into_view_if_needed()
    screenshot(page, "phone-review-answer")
