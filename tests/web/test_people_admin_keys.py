"""The admin view's Keys and Budgets panels (#/admin, under a person's row): an admin makes
a key for a person, it works against the API and is shown once; revoking it (after a
confirm) refuses it at once; setting a daily budget lists it, clearing lifts it. At
desktop and phone sizes, light and dark."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import screenshot
from tests.web.people import account, keys_server, make_person, sign_in
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, viewed

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from keys_server(tmp_path_factory)


def me(server: LiveServer, key: str) -> httpx.Response:
    """``GET /v1/me`` with ``key``, as a program (curl) would call the API."""
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.get(f"{server.url}/v1/me", headers=headers, timeout=10.0)


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_keys_and_budgets_of_a_person(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    tag = f"{size[0]}{theme[0]}"
    admin, person = f"kadm{tag}", f"kp{tag}"
    make_person(server, admin, display_name=f"Keeper {tag}", admin=True)
    make_person(server, person, display_name=f"Person {tag}")
    with viewed(browser, server, size, theme) as page:
        sign_in(page, admin)
        account(page, size, f"Keeper {tag}")
        page.get_by_role("menuitem", name="Admin").click()
        row = page.get_by_role("table", name="People").locator(f"tr[data-login='{person}']")
        toggle = row.get_by_role("button", name=f"Keys and budgets of Person {tag}")
        expect(toggle).to_have_attribute("aria-expanded", "false")
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        keys = page.get_by_role("region", name="API keys")
        expect(keys.locator("li")).to_have_count(1)  # the key make_person made
        live = row.locator("td").nth(4)  # the Keys column: live keys
        expect(live).to_have_text("1")

        keys.get_by_role("button", name=f"New key for Person {tag}").click()
        shown = page.locator("dialog[open]").get_by_role("textbox", name="API key")
        expect(shown).to_be_visible()
        key = shown.input_value()
        assert key.startswith("pk_"), key
        assert me(server, key).json()["login"] == person
        page.get_by_role("button", name="Done").click()
        prefix = key[:11]
        item = keys.locator(f"li[data-prefix='{prefix}']")
        expect(item).to_be_visible()
        expect(keys).not_to_contain_text(key)  # shown once, in the dialog only
        expect(live).to_have_text("2")

        item.get_by_role("button", name=f"Revoke key {prefix}").click()
        page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
        assert me(server, key).status_code == 200  # not confirmed: still works
        item.get_by_role("button", name=f"Revoke key {prefix}").click()
        page.locator("dialog[open]").get_by_role("button", name="Revoke").click()
        expect(item).to_contain_text("Revoked")
        expect(item.get_by_role("button")).to_have_count(0)
        assert me(server, key).status_code == 401
        expect(live).to_have_text("1")

        budgets = page.get_by_role("region", name="Budgets")
        expect(budgets).to_contain_text("No budget")
        budgets.get_by_role("button", name=f"Set budget for Person {tag}").click()
        form = page.locator("dialog[open]")
        form.get_by_role("button", name="Set budget").click()
        expect(form.get_by_role("alert")).to_contain_text("daily or a monthly")
        form.get_by_label("Daily limit (USD)").fill("2.5")
        form.get_by_role("button", name="Set budget").click()
        expect(page.locator("dialog[open]")).to_have_count(0)
        expect(budgets).to_contain_text("Daily: $0.00 of $2.50 spent")
        screenshot(page, f"admin-keys-budgets-{size}-{theme}")
        person_id = next(
            u["id"]
            for u in server.api("GET", "/v1/admin/users?limit=200")["items"]
            if u["login"] == person
        )
        listed = server.api("GET", f"/v1/admin/users/{person_id}/budgets")["items"]
        assert [(b["daily_usd"], b["monthly_usd"], b["room_id"]) for b in listed] == [
            (2.5, None, None)
        ]
        budgets.get_by_role("button", name="Clear budget: All rooms").click()
        expect(budgets).to_contain_text("No budget")
        assert server.api("GET", f"/v1/admin/users/{person_id}/budgets")["items"] == []
