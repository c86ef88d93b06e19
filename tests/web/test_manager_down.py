"""A manager whose model is down or answers nonsense: each fallback says why and names
the model; the page never promises a synthesis that does not come (issue 24)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from pantheon.llm.errors import Unavailable
from pantheon.settings import LLMSettings
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import answer
from tests.web.server import LiveServer, running_server

pytestmark = pytest.mark.browser

DOWN = "The model provider could not be reached"  # ErrorCode.UNAVAILABLE's sentence


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Quick retries, so a model that is down fails in well under a second."""
    quick = LLMSettings(max_attempts=2, backoff_base_s=0.01, backoff_max_s=0.02)
    with running_server(tmp_path_factory.mktemp("web"), llm=quick) as live:
        yield live


def test_manager_down_says_why_names_the_model_and_claims_no_synthesis(
    page: Page, server: LiveServer
) -> None:
    made = server.room_with("Down", ["first", "second"])
    for purpose in ("route", "evaluate", "synthesis"):
        server.scripted.script(error=Unavailable("connection refused"), purpose=purpose)
    server.scripted.script(answer("first", 4), agent="first")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Anyone there?")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    for when in ("live", "reloaded"):
        routing = turn.locator(".round[data-round='1'] .routing")
        expect(routing).to_contain_text("first agent runs")
        expect(routing).to_contain_text(f"scripted: {DOWN}")
        expect(routing).not_to_contain_text("unusable answer")
        evaluation = turn.locator(".round[data-round='1'] .evaluation")
        expect(evaluation).to_contain_text(f"scripted: {DOWN}")
        expect(evaluation).not_to_contain_text("synthesise")
        # No synthesis: the specialist's reply is the answer, and the head says why.
        head = turn.get_by_label("Answer", exact=True).locator(".answer-head")
        expect(head).to_contain_text("no synthesis")
        expect(head).to_contain_text(f"scripted: {DOWN}")
        screenshot(page, f"desktop-manager-down-{when}")
        page.reload()
        turn = page.locator(".turn").last
        expect(turn).to_have_attribute("data-status", "partial")
    page.set_viewport_size({"width": 390, "height": 844})
    turn.locator(".round[data-round='1']").scroll_into_view_if_needed()
    screenshot(page, "phone-manager-down")


def test_unreadable_manager_answers_keep_their_words(page: Page, server: LiveServer) -> None:
    made = server.room_with("Babble", ["only", "other"])
    server.scripted.script("I would ask only", purpose="route")
    server.scripted.script("maybe?", purpose="evaluate")
    server.scripted.script(answer("only", 4), agent="only")
    server.scripted.script("All done.", purpose="synthesis")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Plan it")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    routing = turn.locator(".round[data-round='1'] .routing")
    expect(routing).to_contain_text("fallback: unusable answer")
    expect(routing).to_contain_text("scripted: The manager model's answer could not be read")
    expect(turn.locator(".synthesis .panel")).to_have_attribute("data-state", "done")
