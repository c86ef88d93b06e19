"""One Answer block closes every turn whose mode spec names one text as the answer (the
synthesis, the chosen draft, the last pipeline stage), with the Sources of every agent
that searched; the rounds fold above it once the turn ends. Modes whose answers are the
agents' own replies get no block (issue 24, item 1)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from pantheon.llm.errors import BadRequest
from tests.knowledge.test_knowledge_turn import librarian
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer
from tests.web.test_documents import upload

pytestmark = pytest.mark.browser

PASSAGE = "The lighthouse lamp is lit at dusk daily."
VIEWS = [(1280, "light"), (390, "dark")]


def _open(page: Page, made: dict[str, dict[str, str]], width: int, scheme: str) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")


def _send(page: Page, message: str) -> Locator:
    box = page.get_by_label("Message")
    box.fill(message)
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    return turn


def _closes_the_turn(turn: Locator) -> None:
    """The Answer is the body's last block, after the folded work."""
    assert turn.evaluate(
        "(t) => t.querySelector('.turn-body').lastElementChild.matches('.answer')"
        " && !t.querySelector('.turn-body > .round')"
    )


@pytest.mark.parametrize(("width", "scheme"), VIEWS)
def test_a_pipeline_ends_with_its_last_stage_and_the_sources(
    page: Page, server: LiveServer, width: int, scheme: str
) -> None:
    keys = [f"finder{width}", f"editor{width}", f"closer{width}"]
    made = server.room_with(f"Line {width}", keys, mode="pipeline")
    seeker = next(
        a for a in server.api("GET", "/v1/agents?limit=200")["items"] if a["key"] == keys[0]
    )
    server.api("PATCH", f"/v1/agents/{seeker['id']}", {"tools": ["search_knowledge"]})
    upload(server, f"rooms/{made['room']['id']}", "keeper.txt", PASSAGE.encode())
    server.scripted.script(librarian, agent=keys[0])
    server.scripted.script("Tidied: lit at dusk.", agent=keys[1])
    server.scripted.script("**Final**: the lamp is lit at dusk (keeper.txt).", agent=keys[2])
    _open(page, made, width, scheme)
    turn = _send(page, "When is the lamp lit?")
    for when in ("live", "reloaded"):
        answer = turn.locator(".answer")
        expect(answer.locator(".answer-head")).to_contain_text(
            f"Answer: stage 3, {keys[2].capitalize()}"
        )
        expect(answer.locator(".answer-body strong")).to_have_text("Final")
        expect(answer.locator(".sources .source")).to_have_text(["keeper.txt"])
        answer.get_by_role("button", name="keeper.txt").click()
        expect(answer.locator(".source-passage")).to_contain_text(PASSAGE)
        work = turn.locator(".turn-work")
        expect(work.locator(":scope > summary")).to_have_text("How the answer was made (3 stages)")
        expect(work.locator(".panel").first).to_be_hidden()
        _closes_the_turn(turn)
        answer.scroll_into_view_if_needed()
        screenshot(page, f"pipeline-answer-{width}-{scheme}-{when}")
        work.locator(":scope > summary").click()
        expect(work.locator(f".panel[data-agent='{keys[1]}'] .panel-body")).to_have_text(
            "Tidied: lit at dusk."
        )
        page.reload()
        turn = page.locator(".turn").last
        expect(turn).to_have_attribute("data-status", "completed")


@pytest.mark.parametrize(("width", "scheme"), VIEWS)
def test_an_orchestrator_turn_folds_its_rounds_above_the_synthesis(
    page: Page, server: LiveServer, width: int, scheme: str
) -> None:
    keys = [f"scout{width}", f"sage{width}"]
    made = server.room_with(f"Orch {width}", keys)
    s = server.scripted
    s.script(f'{{"agents": ["{keys[0]}", "{keys[1]}"]}}', purpose="route")
    s.script('{"continue": false}', purpose="evaluate")
    s.script("Scouted.", agent=keys[0])
    s.script("Pondered.", agent=keys[1])
    s.script("Both agree: **yes**.", purpose="synthesis")
    _open(page, made, width, scheme)
    turn = _send(page, "Shall we?")
    answer = turn.locator(".answer")
    expect(answer).to_have_class("answer synthesis")
    expect(answer.locator(".panel-name")).to_have_text("Answer: synthesis")
    expect(answer.locator(".panel-body strong")).to_have_text("yes")
    work = turn.locator(".turn-work")
    expect(work).not_to_have_attribute("open", "")
    expect(work.locator(":scope > summary")).to_have_text("How the answer was made (1 round)")
    expect(work.locator(".decision.routing")).to_be_hidden()
    _closes_the_turn(turn)
    screenshot(page, f"orchestrator-answer-{width}-{scheme}")
    work.locator(":scope > summary").click()
    expect(work.locator(".decision.routing")).to_contain_text(f"@{keys[0]}, @{keys[1]}")
    expect(work.locator(f".panel[data-agent='{keys[0]}'] .panel-body")).to_have_text("Scouted.")


def test_each_agents_reply_is_an_answer_so_no_block_and_nothing_folds(
    page: Page, server: LiveServer
) -> None:
    made = server.room_with("Table", ["left", "right"], mode="roundtable")
    _open(page, made, 1280, "light")
    turn = _send(page, "Hello both")
    expect(turn.locator(".panel")).to_have_count(2)
    expect(turn.locator(".panel").first).to_be_visible()
    expect(turn.locator(".answer")).to_have_count(0)
    expect(turn.locator(".turn-work")).to_have_count(0)


def test_a_failed_last_stage_is_named_and_a_failed_synthesis_answers_with_the_replies(
    page: Page, server: LiveServer
) -> None:
    made = server.room_with("Broken line", ["first", "second"], mode="pipeline")
    server.scripted.script("First output.", agent="first")
    server.scripted.script(error=BadRequest("upstream refused"), agent="second")
    _open(page, made, 1280, "light")
    box = page.get_by_label("Message")
    box.fill("Go")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    head = turn.locator(".answer .answer-head")
    expect(head).to_have_text(
        "Answer: stage 1, First · stage 2 failed, so this is stage 1's output"
    )
    expect(turn.locator(".answer .answer-body")).to_have_text("First output.")

    orch = server.room_with("No synthesis", ["lone"])
    server.scripted.script('{"agents": ["lone"]}', purpose="route")
    server.scripted.script(error=BadRequest("upstream refused"), purpose="synthesis")
    page.goto(f"/#/rooms/{orch['room']['id']}/sessions/{orch['session']['id']}")
    page.reload()
    box.fill("Anyone?")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    # The synthesis failed: the lone specialist's reply is the answer, said so (item 15).
    head = turn.get_by_label("Answer", exact=True).locator(".answer-head")
    expect(head).to_contain_text("Answer: the specialists' own replies")
    expect(head).to_contain_text("no synthesis")
