"""Sharing rooms in keys mode: a room owner's Share dialog (person picker, roles, removal)
and what a viewer sees of a shared room. At desktop and phone sizes, light and dark."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import screenshot
from tests.web.people import api_as, keys_server, make_person, sign_in
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, open_sidebar, viewed

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from keys_server(tmp_path_factory)


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_share_a_room_then_a_viewer_only_reads_it(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    tag = f"{size[0]}{theme[0]}"
    owner, reader = f"own{tag}", f"read{tag}"
    key = make_person(server, owner, display_name=f"Owner {tag}")
    make_person(server, reader, display_name=f"Reader {tag}")
    room = api_as(server, key, "POST", "/v1/rooms", {"name": f"Shared {tag}", "mode": "roundtable"})
    body = {"key": f"bot{tag}", "name": "Bot", "role_prompt": "You answer."}
    agent = api_as(server, key, "POST", "/v1/agents", body)
    api_as(server, key, "POST", f"/v1/rooms/{room['id']}/agents", {"agent_id": agent["id"]})
    api_as(server, key, "POST", f"/v1/rooms/{room['id']}/sessions", {"title": "First"})
    with viewed(browser, server, size, theme) as page:
        sign_in(page, owner)
        page.goto(f"/#/rooms/{room['id']}")
        expect(page.locator(".view-title")).to_have_text(f"Shared {tag}")
        page.get_by_role("button", name="Room actions").click()
        page.get_by_role("menuitem", name="Share…").click()
        dialog = page.locator("dialog.share-dialog")
        expect(dialog.get_by_label("Find a person")).to_be_focused()
        expect(dialog).to_contain_text(f"Owner: Owner {tag} (@{owner})")
        expect(dialog).to_contain_text("Not shared with anyone yet.")
        dialog.get_by_label("Find a person").fill(f"Reader {tag}")
        dialog.get_by_role("button", name=f"Add Reader {tag} (@{reader})").click()
        member = dialog.locator(f".member[data-login='{reader}']")
        expect(member.get_by_label(f"Role of Reader {tag} (@{reader})")).to_have_value("viewer")
        screenshot(page, f"share-{size}-{theme}")
        members = api_as(server, key, "GET", f"/v1/rooms/{room['id']}/members")
        assert [(m["login"], m["role"]) for m in members["items"]] == [(reader, "viewer")]
        page.keyboard.press("Escape")
        expect(page.locator("dialog[open]")).to_have_count(0)

    with viewed(browser, server, size, theme) as page:
        sign_in(page, reader)
        open_sidebar(page, size)
        expect(page.locator("#sidebar")).to_contain_text("shared, Can view")
        page.goto(f"/#/rooms/{room['id']}")
        expect(page.locator(".access-badge")).to_have_text("Shared with you · Can view")
        expect(page.get_by_role("button", name="Roster (1)")).to_have_count(0)
        expect(page.locator(".roster-inline")).to_have_text(f"@bot{tag}")
        expect(page.get_by_label("Room default mode")).to_have_count(0)
        page.get_by_role("button", name="Room actions").click()
        menu = page.get_by_role("menu")
        expect(menu.get_by_role("menuitem", name="Documents…")).to_be_visible()
        for hidden in ("Share…", "Edit room…", "Delete room…"):
            expect(menu.get_by_role("menuitem", name=hidden)).to_have_count(0)
        page.keyboard.press("Escape")
        # Sessions are each person's own: the owner's is not listed, a new one is theirs.
        expect(page.locator(".session-button")).to_have_text("Sessions (0)")
        box = page.get_by_label("Message")
        box.fill("hello from a viewer")
        box.press("Enter")
        expect(page.locator(".turn").last).to_have_attribute("data-status", "completed")
        expect(page.locator(".session-count")).to_have_text("Sessions (1)")


def test_an_editor_edits_but_neither_shares_nor_deletes(
    browser: Browser, server: LiveServer
) -> None:
    key = make_person(server, "ona", display_name="Ona")
    make_person(server, "ed", display_name="Ed")
    room = api_as(server, key, "POST", "/v1/rooms", {"name": "Edited room"})
    people = api_as(server, key, "GET", "/v1/people?q=ed")["items"]
    ed = next(p for p in people if p["login"] == "ed")
    api_as(server, key, "PUT", f"/v1/rooms/{room['id']}/members/{ed['id']}", {"role": "editor"})
    with viewed(browser, server, "desktop", "dark") as page:
        sign_in(page, "ed")
        page.goto(f"/#/rooms/{room['id']}")
        expect(page.locator(".access-badge")).to_have_text("Shared with you · Can edit")
        expect(page.get_by_role("button", name="Roster (0)")).to_be_visible()
        expect(page.get_by_label("Room default mode")).to_be_visible()
        page.get_by_role("button", name="Room actions").click()
        menu = page.get_by_role("menu")
        expect(menu.get_by_role("menuitem", name="Edit room…")).to_be_visible()
        for hidden in ("Share…", "Delete room…"):
            expect(menu.get_by_role("menuitem", name=hidden)).to_have_count(0)


def test_change_a_role_and_remove_a_member(browser: Browser, server: LiveServer) -> None:
    key = make_person(server, "owen", display_name="Owen")
    make_person(server, "eddie", display_name="Eddie")
    room = api_as(server, key, "POST", "/v1/rooms", {"name": "Team room"})
    with viewed(browser, server, "desktop", "light") as page:
        sign_in(page, "owen")
        page.goto(f"/#/rooms/{room['id']}")
        page.get_by_role("button", name="Room actions").click()
        page.get_by_role("menuitem", name="Share…").click()
        dialog = page.locator("dialog.share-dialog")
        dialog.get_by_label("Their role").select_option("editor")
        dialog.get_by_label("Find a person").fill("edd")
        dialog.get_by_role("button", name="Add Eddie (@eddie)").click()
        role = dialog.get_by_label("Role of Eddie (@eddie)")
        expect(role).to_have_value("editor")
        role.select_option("viewer")
        expect(role).to_be_focused()
        members = api_as(server, key, "GET", f"/v1/rooms/{room['id']}/members")
        assert [m["role"] for m in members["items"]] == ["viewer"]
        dialog.get_by_role("button", name="Remove Eddie (@eddie)").click()
        expect(dialog).to_contain_text("Not shared with anyone yet.")
        dialog.get_by_label("Find a person").fill("owen")  # the owner is not offered
        expect(dialog.get_by_role("status")).to_have_text("Nobody else matches.")
