"""While the server retries an agent's failed upstream call, its panel says "retrying 2/6"
and why, instead of only "thinking…"; the answer then replaces the note (issue 24)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from pantheon.llm.errors import RateLimited, UpstreamError
from pantheon.settings import LLMSettings
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer, running_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Six attempts with short waits; the answer after the retry is held back a while."""
    quick = LLMSettings(max_attempts=6, backoff_base_s=0.01, backoff_max_s=0.02)
    with running_server(tmp_path_factory.mktemp("web"), llm=quick) as live:
        yield live


@pytest.mark.parametrize(
    ("width", "scheme", "error", "sentence"),
    [
        (1280, "light", UpstreamError("upstream returned 502"), "answered with a server error"),
        (390, "dark", RateLimited("429"), None),
    ],
)
def test_a_retried_call_shows_its_attempt_and_reason(
    page: Page,
    server: LiveServer,
    width: int,
    scheme: str,
    error: UpstreamError | RateLimited,
    sentence: str | None,
) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
    key = f"flaky{width}"
    made = server.room_with(f"Retry {width}", [key], mode="roundtable")
    # The reply after the retry waits 3 s, so the retrying state can be seen meanwhile.
    server.scripted.script("Back on my feet.", agent=key, delay_s=3)
    server.scripted.script(error=error, agent=key, times=1)
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Are you there?")
    box.press("Enter")
    panel = page.locator(".turn").last.locator(f".panel[data-agent='{key}']")
    expect(panel).to_have_attribute("data-state", "retrying", timeout=WAIT_MS)
    expect(panel.locator(".panel-state")).to_have_text("retrying 2/6")
    note = panel.locator(".retry-note")
    expect(note).to_contain_text("attempt 2 of 6")
    if sentence:
        expect(note).to_contain_text(sentence)
    screenshot(page, f"retrying-{width}-{scheme}")
    expect(panel).to_have_attribute("data-state", "done", timeout=WAIT_MS)
    expect(panel.locator(".panel-body")).to_have_text("Back on my feet.")
    expect(note).to_have_count(0)
    page.reload()  # the stored turn replays its retrying event: the answer still wins
    panel = page.locator(".turn").last.locator(f".panel[data-agent='{key}']")
    expect(panel).to_have_attribute("data-state", "done")
    expect(panel.locator(".panel-state")).to_have_text("done")
