"""Page notes (toasts) do not stack the same sentence twice and never cover the header's
buttons, at 1280 px and 390 px (issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

TWICE = """() => import('/js/core/notify.js').then(({ notify }) => {
  const text = "Pantheon is not answering. Check that the server is running, then try again.";
  notify(text, "error", 0);
  notify(text, "error", 0);
  notify("Another note", "info", 0);
})"""

OVERLAPS = """() => {
  const boxes = (sel) => [...document.querySelectorAll(sel)]
    .map((el) => el.getBoundingClientRect());
  const hit = (a, b) => a.left < b.right && b.left < a.right
    && a.top < b.bottom && b.top < a.bottom;
  const buttons = boxes('.view-head button, .view-head select, .composer button');
  return boxes('.toast').some((t) => buttons.some((b) => b.width && hit(t, b)));
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_toasts_do_not_stack_or_cover_the_header(
    page: Page, server: LiveServer, width: int
) -> None:
    made = server.room_with(f"Toasts{width}", [f"noter{width}"])
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    expect(page.get_by_label("Message")).to_be_visible()
    page.evaluate(TWICE)
    expect(page.locator(".toast")).to_have_count(2)
    expect(page.locator(".toast.error")).to_have_count(1)
    assert page.evaluate(OVERLAPS) is False
    screenshot(page, f"toasts-{width}")
