"""Issue 33, items 14-16: the Answer block names the agents whose work is missing, with
Retry there (not folded away under "How the answer was made"); a retry ends in a new
synthesis that includes the retried agent; a failed synthesis falls back to the
specialists' replies, said so, with "Retry the synthesis"."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from pantheon.llm.errors import BadRequest
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def _send(page: Page, text: str) -> None:
    box = page.get_by_label("Message")
    box.fill(text)
    box.press("Enter")


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_the_answer_names_a_failed_agent_and_its_retry_joins_the_synthesis(
    page: Page, server: LiveServer, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
    sure, shaky = f"sure{width}", f"shaky{width}"
    made = server.room_with(f"Missing {width}", [sure, shaky], mode="orchestrator")
    scripted = server.scripted
    scripted.script(f'{{"agents": ["{sure}", "{shaky}"]}}', purpose="route", times=1)
    scripted.script('{"continue": false}', purpose="evaluate", times=1)
    scripted.script("Sure's careful answer.", agent=sure, times=1)
    scripted.script(error=BadRequest("upstream refused"), agent=shaky, times=1)
    scripted.script("Only half the team.", purpose="synthesis", times=1)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    _send(page, "Plan the week")
    first = page.locator(".turn").last
    expect(first).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    answer = first.get_by_label("Answer", exact=True)
    name = shaky.capitalize()
    expect(answer.locator(".answer-missing")).to_contain_text(f"Missing from this answer: {name}")
    retry = answer.get_by_role("button", name=f"Retry {name}")
    expect(retry).to_be_visible()
    expect(first.locator("details.turn-work")).not_to_have_attribute("open", "")
    screenshot(page, f"answer-missing-{width}-{scheme}")
    before = len(scripted.requests)
    scripted.script("Shaky is back.", agent=shaky, times=1)
    scripted.script("The whole team agrees.", purpose="synthesis", times=1)
    retry.click()
    again = page.locator(".turn").nth(1)
    expect(again).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(again).to_have_attribute("data-retries", made_turn_id(server, made))
    expect(again.get_by_label("Answer", exact=True)).to_contain_text("The whole team agrees.")
    expect(again.locator(".answer-missing")).to_have_count(0)
    made_calls = [(r.request.purpose, r.request.agent_key) for r in scripted.requests[before:]]
    assert made_calls == [("specialist", shaky), ("synthesis", "manager")]
    assert "Sure's careful answer." in scripted.requests[-1].request.messages[-1].content
    page.reload()  # the stored turns say the same
    expect(page.locator(".turn")).to_have_count(2)
    stored = page.locator(".turn").first.get_by_label("Answer", exact=True)
    expect(stored.get_by_role("button", name=f"Retry {name}")).to_be_visible()


def made_turn_id(server: LiveServer, made: dict[str, dict[str, str]]) -> str:
    turns = server.api("GET", f"/v1/sessions/{made['session']['id']}/turns")["items"]
    turn_id: str = turns[0]["id"]
    return turn_id


def test_a_failed_synthesis_answers_with_the_replies_and_retries_the_synthesis_alone(
    page: Page, server: LiveServer
) -> None:
    made = server.room_with("Fallback", ["lone", "spare"], mode="orchestrator")
    scripted = server.scripted
    scripted.script(error=BadRequest("manager refused"), agent="manager", times=3)
    scripted.script("Lone's whole answer.", agent="lone", times=1)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    _send(page, "Help")
    first = page.locator(".turn").last
    expect(first).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    answer = first.get_by_label("Answer", exact=True)
    expect(answer.locator(".answer-head")).to_contain_text("Answer: the specialists' own replies")
    expect(answer.locator(".answer-head")).to_contain_text("no synthesis")
    expect(answer.locator(".answer-body")).to_have_text("Lone's whole answer.")
    screenshot(page, "answer-fallback")
    before = len(scripted.requests)
    scripted.script("A real synthesis at last.", purpose="synthesis", times=1)
    answer.get_by_role("button", name="Retry the synthesis").click()
    again = page.locator(".turn").nth(1)
    expect(again).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(again.get_by_label("Answer", exact=True)).to_contain_text("A real synthesis at last.")
    assert [r.request.purpose for r in scripted.requests[before:]] == ["synthesis"]
