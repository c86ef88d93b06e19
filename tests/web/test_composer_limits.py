"""The composer counts characters live against the server's limit (GET /v1/defaults) and
refuses an over-long message before sending; "server default" names the model; a room's
manager model is chosen in the room form and runs the manager's calls (issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_the_count_follows_the_servers_limit_and_over_long_text_is_not_sent(
    page: Page, server: LiveServer, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
    limit = server.api("GET", "/v1/defaults")["max_message_chars"]
    made = server.room_with(f"Count {width}", [f"counter{width}"], mode="roundtable")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    count = page.locator(".composer-count")
    expect(count).to_be_hidden()  # nothing typed yet
    box.fill("héllo 👋")
    expect(count).to_have_text(f"7 / {limit:,}")  # characters as the server counts them
    expect(count).to_have_attribute("data-state", "ok")
    box.fill("x" * (limit - 10))
    expect(count).to_have_attribute("data-state", "near")
    box.fill("x" * (limit + 1))
    expect(count).to_have_text(f"{limit + 1:,} / {limit:,}")
    expect(count).to_have_attribute("data-state", "over")
    alert = page.locator(".composer-too-long")
    expect(alert).to_have_text(
        f"This message is 1 character over the server's limit of {limit:,}. Shorten it to send it."
    )
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("button", name="Send")).to_be_disabled()
    screenshot(page, f"composer-over-limit-{width}-{scheme}")
    box.press("Enter")
    expect(page.locator(".turn")).to_have_count(0)  # nothing was sent
    assert len(box.input_value()) == limit + 1  # and nothing was lost
    sessions = server.api("GET", f"/v1/sessions/{made['session']['id']}/turns")
    assert sessions["items"] == []
    box.fill("x" * limit)  # exactly the limit is fine
    expect(alert).to_be_hidden()
    expect(page.get_by_role("button", name="Send")).to_be_enabled()


def test_server_default_names_the_model_and_the_manager_model_can_be_chosen(
    page: Page, server: LiveServer
) -> None:
    page.goto("/")
    page.locator("#sidebar").get_by_role("button", name="+ New agent").click()
    dialog = page.locator("dialog[open]")
    expect(dialog.get_by_label("Model").locator("option").first).to_have_text(
        "server default (scripted)"
    )
    page.keyboard.press("Escape")

    page.locator("#sidebar").get_by_role("button", name="+ New room").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Name").fill("Managed")
    manager = dialog.get_by_label("Manager model")
    expect(manager).to_have_value("")
    expect(manager.locator("option").first).to_have_text("server default (scripted)")
    manager.select_option("metered")
    screenshot(page, "room-form-manager-model")
    dialog.get_by_role("button", name="Create room").click()
    expect(page.locator(".view-title")).to_have_text("Managed")
    room = next(
        r for r in server.api("GET", "/v1/rooms?limit=200")["items"] if r["name"] == "Managed"
    )
    assert room["manager_model"] == "metered"

    page.get_by_role("button", name="Room actions").click()
    page.get_by_role("menuitem", name="Edit room…").click()
    dialog = page.locator("dialog[open]")
    expect(dialog.get_by_label("Manager model")).to_have_value("metered")
    dialog.get_by_label("Manager model").select_option("")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_have_count(0)
    assert server.api("GET", f"/v1/rooms/{room['id']}")["manager_model"] is None

    made = server.room_with("Routed", ["router"])
    server.api("PATCH", f"/v1/rooms/{made['room']['id']}", {"manager_model": "metered"})
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    page.reload()  # the page learns of rooms made through the API when it loads
    box = page.get_by_label("Message")
    box.fill("Who answers?")
    box.press("Enter")
    expect(page.locator(".turn").last).to_have_attribute(
        "data-status", "completed", timeout=WAIT_MS
    )
    assert {c.alias for c in server.scripted.calls(purpose="route")} == {"metered"}
