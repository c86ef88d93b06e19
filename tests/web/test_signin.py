"""Signing in on the page (PANTHEON_AUTH_MODE=keys): the sign-in screen, a password
sign-in, the account menu (who, change password, sign out), an API key as the second
way in, sign-in errors from /?signin_error=, and the invitation page's form. At desktop
and phone sizes, light and dark."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.people import PASSWORD, account, keys_server, make_person, sign_in
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, viewed

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from keys_server(tmp_path_factory)


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_password_sign_in_account_menu_and_sign_out(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    login = f"ann-{size}-{theme}"
    make_person(server, login, display_name=f"Ann {size} {theme}")
    with viewed(browser, server, size, theme) as page:
        sign_in(page, login, "not the password", wait=False)
        expect(page.get_by_role("alert")).to_have_text("Wrong login or password.")
        screenshot(page, f"signin-{size}-{theme}")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in", exact=True).click()
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()

        # A write by cookie: the page sends the CSRF token (the server refuses it without).
        page.get_by_role("button", name="+ New room").first.click()
        dialog = page.locator("dialog[open]")
        dialog.get_by_label("Name").fill(f"Room of {login}")
        dialog.get_by_role("button", name="Create room").click()
        expect(page.locator(".view-title")).to_have_text(f"Room of {login}")

        account(page, size, f"Ann {size} {theme}")
        menu = page.get_by_role("menu")
        expect(menu.get_by_role("menuitem", name="Admin")).to_have_count(0)  # a member
        menu.get_by_role("menuitem", name="Sign out").click()
        expect(page.get_by_role("heading", name="Sign in to Pantheon")).to_be_visible()
        page.reload()  # the session is gone on the server, not only in this page
        expect(page.get_by_role("heading", name="Sign in to Pantheon")).to_be_visible()


def test_change_password_then_sign_in_with_it(browser: Browser, server: LiveServer) -> None:
    make_person(server, "bob", display_name="Bob")
    new = "a brand new passphrase"
    with viewed(browser, server, "desktop", "light") as page:
        sign_in(page, "bob")
        account(page, "desktop", "Bob")
        page.get_by_role("menuitem", name="Change password…").click()
        dialog = page.locator("dialog[open]")
        expect(dialog.get_by_label("Current password")).to_be_focused()
        dialog.get_by_label("Current password").fill("wrong current one")
        dialog.get_by_label("New password", exact=True).fill(new)
        dialog.get_by_label("Repeat the new password").fill(new + "x")
        dialog.get_by_role("button", name="Change password").click()
        expect(dialog.get_by_role("alert")).to_have_text("The two new passwords differ.")
        dialog.get_by_label("Repeat the new password").fill(new)
        dialog.get_by_role("button", name="Change password").click()
        expect(dialog.get_by_role("alert")).to_contain_text("current password is wrong")
        dialog.get_by_label("Current password").fill(PASSWORD)
        dialog.get_by_role("button", name="Change password").click()
        # Checking one argon2 hash and making another: slow on a busy machine.
        expect(page.locator("dialog[open]")).to_have_count(0, timeout=WAIT_MS)
        expect(page.locator(".toast")).to_contain_text("Password changed.")
        account(page, "desktop", "Bob")
        page.get_by_role("menuitem", name="Sign out").click()
        sign_in(page, "bob", new, go=False)  # signing out shows the screen
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()


def test_an_admin_sees_the_admin_entry(browser: Browser, server: LiveServer) -> None:
    make_person(server, "ada", display_name="Ada", admin=True)
    with viewed(browser, server, "desktop", "dark") as page:
        sign_in(page, "ada")
        account(page, "desktop", "Ada")
        expect(page.get_by_role("menuitem", name="Admin")).to_be_visible()


def test_an_api_key_is_the_second_way_in(browser: Browser, server: LiveServer) -> None:
    key = make_person(server, "kim", display_name="Kim")
    with viewed(browser, server, "phone", "light") as page:
        page.goto("/")
        page.get_by_text("Use an API key instead").click()
        page.get_by_label("API key").fill("pk_not_a_key")
        page.get_by_role("button", name="Use this key").click()
        expect(page.get_by_role("alert")).to_have_text("That key was not accepted.")
        page.get_by_label("API key").fill(key)
        page.get_by_role("button", name="Use this key").click()
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
        account(page, "phone", "Kim")
        expect(page.get_by_role("menuitem", name="Change password…")).to_have_count(0)
        page.get_by_role("menuitem", name="Sign out").click()  # forgets the key
        expect(page.get_by_role("heading", name="Sign in to Pantheon")).to_be_visible()
        assert page.evaluate("localStorage.getItem('pantheon.apiKey')") is None


def test_a_sign_in_error_from_a_provider_is_shown(browser: Browser, server: LiveServer) -> None:
    with viewed(browser, server, "desktop", "light") as page:
        page.goto("/")
        button = page.get_by_role("link", name="Sign in with Corp SSO")
        expect(button).to_have_attribute("href", "/auth/oidc/corp/login")
        button.click()  # the provider cannot be reached: back to the screen, saying so
        expect(page.get_by_role("alert")).to_contain_text("could not be reached")
        assert page.url.endswith("/?signin_error=provider")
        page.goto("/?signin_error=pending")
        expect(page.get_by_role("alert")).to_contain_text("waiting for an administrator")
        page.goto("/?signin_error=something_new")
        expect(page.get_by_role("alert")).to_contain_text("(something_new)")
