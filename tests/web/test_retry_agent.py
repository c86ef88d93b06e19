"""A failed agent's panel offers Retry: a new turn runs just that agent on the same
message; a retry the server refuses says why and leaves the history as it was (issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from pantheon.llm.errors import BadRequest
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_retry_runs_the_failed_agent_alone_in_a_new_turn(
    page: Page, server: LiveServer, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
    steady, shaky = f"steady{width}", f"shaky{width}"
    made = server.room_with(f"Retry {width}", [steady, shaky], mode="roundtable")
    server.scripted.script("Steady here.", agent=steady)
    server.scripted.script("Back and well.", agent=shaky)
    server.scripted.script(error=BadRequest("upstream refused"), agent=shaky, times=1)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Roll call")
    box.press("Enter")
    failed = page.locator(".turn").last
    expect(failed).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    retry = failed.get_by_role("button", name=f"Retry {shaky.capitalize()}")
    expect(retry).to_have_count(1)  # only the failed agent offers it
    expect(failed.locator(f".panel[data-agent='{steady}'] .panel-retry")).to_have_count(0)
    screenshot(page, f"retry-offered-{width}-{scheme}")
    calls = len(server.scripted.requests)
    retry.click()
    again = page.locator(".turn").nth(1)
    expect(again).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(again.locator(".msg-user")).to_have_text("Roll call")
    expect(again.locator(".panel")).to_have_count(1)
    expect(again.locator(f".panel[data-agent='{shaky}'] .panel-body")).to_have_text(
        "Back and well."
    )
    assert [r.request.agent_key for r in server.scripted.requests[calls:]] == [shaky]
    screenshot(page, f"retry-done-{width}-{scheme}")
    page.reload()  # the stored failed turn still offers it
    expect(page.locator(".turn")).to_have_count(2)
    expect(
        page.locator(".turn").first.get_by_role("button", name=f"Retry {shaky.capitalize()}")
    ).to_be_enabled()


def test_a_refused_retry_says_why(page: Page, server: LiveServer) -> None:
    made = server.room_with("Gone", ["stays", "leaves"], mode="roundtable")
    server.scripted.script(error=BadRequest("upstream refused"), agent="leaves", times=1)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Who is here?")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "partial", timeout=WAIT_MS)
    agents = server.api("GET", "/v1/agents?limit=200")["items"]
    leaves = next(a for a in agents if a["key"] == "leaves")
    server.api("DELETE", f"/v1/rooms/{made['room']['id']}/agents/{leaves['id']}")
    turn.get_by_role("button", name="Retry Leaves").click()
    refused = page.locator(".turn").last
    expect(refused).to_have_attribute("data-status", "error", timeout=WAIT_MS)
    expect(refused.locator(".turn-notice")).to_have_text(
        "Could not start the turn: Agent 'leaves' is not in this room's roster (its agents: stays)"
    )
    turns = server.api("GET", f"/v1/sessions/{made['session']['id']}/turns")["items"]
    assert len(turns) == 1  # nothing was added
