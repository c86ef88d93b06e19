"""The admin view (#/admin) in keys mode: the user list, inviting a person and their
invitation link (which sets a password and signs them in), approving a pending person,
changing a role, disabling and enabling. At desktop and phone sizes, light and dark."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import screenshot
from tests.web.people import PASSWORD, account, keys_server, make_person, set_status, sign_in
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, viewed

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from keys_server(tmp_path_factory)


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_invite_approve_role_and_disable(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    tag = f"{size[0]}{theme[0]}"
    admin, waiting = f"adm{tag}", f"wait{tag}"
    make_person(server, admin, display_name=f"Admin {tag}", admin=True)
    make_person(server, waiting, display_name=f"Waiting {tag}")
    set_status(server, waiting, "pending")
    with viewed(browser, server, size, theme) as page:
        sign_in(page, admin)
        account(page, size, f"Admin {tag}")
        page.get_by_role("menuitem", name="Admin").click()
        expect(page.get_by_role("heading", name="People")).to_be_visible()
        table = page.get_by_role("table", name="People")
        row = table.locator(f"tr[data-login='{waiting}']")
        expect(row).to_contain_text("Pending approval")
        screenshot(page, f"admin-{size}-{theme}")
        row.get_by_role("button", name=f"Approve Waiting {tag}").click()
        expect(row).to_contain_text("Active")
        expect(row.get_by_role("button", name=f"Disable Waiting {tag}")).to_be_focused()

        # The select shows the choice at once; the server has it when the PATCH answers.
        with page.expect_response(
            lambda r: r.request.method == "PATCH" and "/v1/admin/users/" in r.url
        ) as patched:
            row.get_by_label(f"Role of Waiting {tag}").select_option("admin")
        assert patched.value.ok
        expect(row.get_by_label(f"Role of Waiting {tag}")).to_have_value("admin")
        users = {u["login"]: u for u in server.api("GET", "/v1/admin/users?limit=200")["items"]}
        assert users[waiting]["role"] == "admin"
        assert users[waiting]["status"] == "active"
        row.get_by_role("button", name=f"Disable Waiting {tag}").click()
        expect(row).to_contain_text("Disabled")
        row.get_by_role("button", name=f"Enable Waiting {tag}").click()
        expect(row).to_contain_text("Active")

        # Yourself: the server refuses, the page says so and keeps the row as it was.
        own = table.locator(f"tr[data-login='{admin}']")
        own.get_by_role("button", name=f"Disable Admin {tag}").click()
        expect(page.locator(".toast.error")).to_be_visible()
        expect(own).to_contain_text("Active")

        page.get_by_role("button", name="+ Invite a person").click()
        dialog = page.locator("dialog[open]")
        dialog.get_by_label("Login").fill(f"new{tag}")
        dialog.get_by_label("Display name (optional)").fill(f"Newcomer {tag}")
        dialog.get_by_role("button", name="Invite").click()
        link = page.locator("dialog[open]").get_by_role("textbox", name="Invitation link")
        expect(link).to_be_visible()
        url = link.input_value()
        assert url.startswith(f"{server.url}/invite/"), url
        page.get_by_role("button", name="Done").click()
        expect(table.locator(f"tr[data-login='new{tag}']")).to_contain_text(f"Newcomer {tag}")

    with viewed(browser, server, size, theme) as page:
        page.goto(url)
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
        page.get_by_label("New password").fill(PASSWORD)
        page.get_by_label("Repeat the password").fill(PASSWORD + "!")
        page.get_by_role("button", name="Set password and sign in").click()
        expect(page.get_by_role("alert")).to_have_text("The two passwords differ.")
        page.get_by_label("Repeat the password").fill(PASSWORD)
        page.get_by_role("button", name="Set password and sign in").click()
        expect(page.locator(".account")).to_be_attached()  # reloaded, signed in
        account(page, size, f"Newcomer {tag}")
        expect(page.get_by_role("menuitem", name="Sign out")).to_be_visible()
        page.goto(url)  # used once: a second time it is refused
        page.get_by_label("New password").fill(PASSWORD)
        page.get_by_label("Repeat the password").fill(PASSWORD)
        page.get_by_role("button", name="Set password and sign in").click()
        expect(page.get_by_role("alert")).to_be_visible()


def test_a_member_cannot_open_the_admin_view(browser: Browser, server: LiveServer) -> None:
    make_person(server, "plain", display_name="Plain")
    with viewed(browser, server, "desktop", "light") as page:
        sign_in(page, "plain")
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
        page.goto("/#/admin")
        expect(page.locator(".admin-view [role=alert]")).to_contain_text("admin")
