"""The composer grows with its text, the per-turn picker's text is never cut, and each
"Re-run from here" button has its own accessible name (issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def test_composer_grows_and_the_turn_picker_is_not_cut(page: Page, server: LiveServer) -> None:
    made = server.room_with("Grow", ["grower"])
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    before = box.bounding_box()
    box.fill("\n".join(f"line {n}" for n in range(8)))
    box.dispatch_event("input")  # fill() sends input already; make the resize explicit
    grown = box.bounding_box()
    assert before is not None
    assert grown is not None
    assert grown["height"] > before["height"] * 2
    assert box.evaluate("(el) => el.scrollHeight <= el.clientHeight + 2")  # all lines show
    screenshot(page, "desktop-composer-grown")
    box.fill("")
    box.dispatch_event("input")
    shrunk = box.bounding_box()
    assert shrunk is not None
    assert shrunk["height"] <= before["height"] + 2
    picker = page.get_by_label("Mode for this turn only")
    for value in [o.get_attribute("value") for o in picker.locator("option").all()]:
        picker.select_option(value or "")
        assert picker.evaluate("(el) => el.scrollWidth <= el.clientWidth"), value


def test_each_rerun_button_names_its_stage(page: Page, server: LiveServer) -> None:
    keys = ["stagea", "stageb", "stagec", "staged"]
    made = server.room_with("Stages", keys, mode="pipeline")
    for key in keys:
        server.scripted.script(f"{key} output", agent=key)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Go")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    buttons = turn.get_by_role("button", name="Re-run from here")
    expect(buttons).to_have_count(3)
    names = [b.get_attribute("aria-label") for b in buttons.all()]
    assert names == [
        "Re-run from here: stage 2, Stageb",
        "Re-run from here: stage 3, Stagec",
        "Re-run from here: stage 4, Staged",
    ]


@pytest.mark.parametrize("how", ["Escape", "Close"])
def test_typing_after_find_sessions_is_closed_lands_in_the_box(
    page: Page, server: LiveServer, how: str
) -> None:
    """Issue 33 item 17: Ctrl+K then Esc (or Close) gave the box focus but dropped keys."""
    made = server.room_with(f"Find {how}", [f"find{how.lower()}"], mode="roundtable")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.click()
    page.keyboard.type("before ")
    page.keyboard.press("Control+k")
    dialog = page.locator("dialog.sessions-dialog")
    expect(dialog.get_by_label("Search sessions")).to_be_focused()
    if how == "Escape":
        page.keyboard.press("Escape")
    else:
        dialog.get_by_role("button", name="Close", exact=True).click()
    expect(dialog).to_have_count(0)
    expect(box).to_be_focused()
    page.keyboard.type("after")
    expect(box).to_have_value("before after")
