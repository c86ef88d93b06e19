"""Pipeline and review rooms in the browser: the stage strip with reused stages and
"Re-run from here", review rounds with scores and the chosen draft, both mode pickers."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def send(page: Page, message: str) -> None:
    box = page.get_by_label("Message")
    box.fill(message)
    box.press("Enter")


def test_a_pipeline_shows_its_stages_and_reruns_from_a_later_stage(
    page: Page, server: LiveServer
) -> None:
    made = server.room_with("Pipe", ["pipea", "pipeb", "pipec"], mode="pipeline")
    server.scripted.script("research notes", agent="pipea")
    server.scripted.script("first draft", agent="pipeb", times=1)
    server.scripted.script("second draft", agent="pipeb")
    server.scripted.script("polished text", agent="pipec")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    send(page, "Write the announcement")
    first = page.locator(".turn").first
    expect(first).to_have_attribute("data-status", "completed")
    chips = first.locator(".stage-strip .stage")
    expect(chips).to_have_count(3)
    for index in range(3):
        expect(chips.nth(index)).to_have_attribute("data-state", "done")
    expect(chips.nth(0).locator(".stage-rerun")).to_have_count(0)
    rerun = chips.nth(1).get_by_role("button", name="Re-run from here")
    expect(rerun).to_be_visible()
    screenshot(page, "pipeline-stages")

    rerun.click()
    second = page.locator(".turn").nth(1)
    expect(second).to_have_attribute("data-status", "completed")
    again = second.locator(".stage-strip .stage")
    expect(again.nth(0)).to_have_attribute("data-state", "reused")
    expect(again.nth(1)).to_have_attribute("data-state", "done")
    reused = second.locator(".panel[data-agent='pipea']")
    expect(reused).to_have_attribute("data-reused", "true")
    expect(reused.locator(".panel-body")).to_have_text("research notes")
    expect(second.locator(".panel[data-agent='pipeb'] .panel-body")).to_have_text("second draft")
    # Only the latest pipeline turn offers reruns (rerun_from reuses the latest one).
    expect(first.locator(".stage-rerun").first).to_be_hidden()
    expect(again.nth(2).get_by_role("button", name="Re-run from here")).to_be_visible()
    assert len(server.scripted.calls(agent="pipea")) == 1  # stage 1 was not run again
    screenshot(page, "pipeline-rerun")


def _verdict(approved: bool, score: int, feedback: str) -> str:
    return json.dumps({"approved": approved, "score": score, "feedback": feedback})


def test_a_review_room_shows_rounds_scores_and_the_chosen_draft(
    page: Page, server: LiveServer
) -> None:
    made = server.room_with("Rev", ["writera", "critica"], mode="review")
    server.scripted.script("the revised draft", agent="writera")
    server.scripted.script("a first draft", agent="writera", times=1)
    server.scripted.script(_verdict(True, 9, "good now"), agent="critica")
    server.scripted.script(_verdict(False, 4, "too vague"), agent="critica", times=1)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    room_modes = page.get_by_label("Room default mode").locator("option")
    expect(room_modes).to_contain_text(["Room default: pipeline", "Room default: review"])
    expect(page.get_by_label("Room default mode")).to_have_value("review")
    turn_modes = page.get_by_label("Mode for this turn only").locator("option")
    expect(turn_modes.filter(has_text="This turn: pipeline")).to_have_count(1)
    expect(turn_modes.filter(has_text="This turn: review")).to_have_count(1)

    send(page, "Describe the product")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed")
    reviews = turn.locator(".review")
    expect(reviews).to_have_count(2)
    expect(reviews.nth(0)).to_have_attribute("data-approved", "false")
    expect(reviews.nth(0)).to_contain_text("not approved · 4/10")
    expect(reviews.nth(0)).to_contain_text("too vague")
    expect(reviews.nth(1)).to_contain_text("approved · 9/10")
    expect(turn.locator(".round[data-round='2'] .panel[data-agent='writera']")).to_have_attribute(
        "data-chosen", "true"
    )
    expect(turn.locator(".answer-head")).to_contain_text("Answer: the round 2 draft")
    expect(turn.locator(".answer-head")).to_contain_text("every reviewer approved")
    expect(turn.locator(".decision.routing:visible")).to_have_count(0)  # no manager here
    screenshot(page, "review-rounds")
