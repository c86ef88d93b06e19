"""A session's share link on the page: create it, copy its URL, open it without signing
in, make a new snapshot (the old URL stops working), revoke it. In keys mode (signed in by
password, so every write carries the CSRF header), at desktop and phone sizes, light and
dark."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import screenshot
from tests.web.people import api_as, keys_server, make_person, sign_in
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, viewed

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from keys_server(tmp_path_factory)


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_share_link_create_copy_and_revoke(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    tag = f"{size[0]}{theme[0]}"
    key = make_person(server, f"link{tag}", display_name=f"Linker {tag}")
    room = api_as(server, key, "POST", "/v1/rooms", {"name": f"Linked {tag}"})
    session = api_as(server, key, "POST", f"/v1/rooms/{room['id']}/sessions", {"title": "Notes"})
    with viewed(browser, server, size, theme) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        sign_in(page, f"link{tag}")
        page.goto(f"/#/rooms/{room['id']}/sessions/{session['id']}")
        page.get_by_role("button", name="Session actions").click()
        page.get_by_role("menuitem", name="Share link…").click()
        dialog = page.locator("dialog.share-link-dialog")
        expect(dialog).to_contain_text("This session is not shared.")
        dialog.get_by_role("button", name="Create link").click()
        url_box = dialog.get_by_label("Share link URL")
        expect(url_box).to_be_visible()
        url = url_box.input_value()
        assert url.startswith(f"{server.url}/share/"), url
        dialog.get_by_role("button", name="Copy share link").click()
        expect(dialog.get_by_role("button", name="Copy share link")).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == url
        assert httpx.get(url).status_code == 200  # public: no key, no cookie
        screenshot(page, f"share-link-{size}-{theme}")

        dialog.get_by_role("button", name="Close").click()
        page.get_by_role("button", name="Session actions").click()
        page.get_by_role("menuitem", name="Share link…").click()
        # Only the token's hash is kept: read back, the link has no URL to show.
        expect(dialog).to_contain_text("This session is shared.")
        expect(dialog.get_by_label("Share link URL")).to_have_count(0)
        dialog.get_by_role("button", name="New snapshot").click()
        expect(url_box).to_be_visible()
        expect(url_box).not_to_have_value(url)
        newer = url_box.input_value()
        assert httpx.get(url).status_code == 404  # the old link stopped working
        dialog.get_by_role("button", name="Revoke link").click()
        expect(dialog).to_contain_text("This session is not shared.")
        assert httpx.get(newer).status_code == 404
