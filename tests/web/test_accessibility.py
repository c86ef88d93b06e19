"""axe-core over every view and the dialogs they open, at desktop and phone width, light and
dark: no serious or critical violation (issue 33 item 19); in keys mode too, the sign-in
screen, the account menu, change password, the Share dialog, a share link, the admin view
(a person's keys and budgets too) and its invite form, and the invitation page (issue 35).

axe-core comes from apps/web's lockfile (``npm ci`` in apps/web, which ``make lint-web``
and .ci/run do), injected from node_modules; nothing is fetched. The page's CSP forbids
scripts it did not serve, so the context bypasses CSP for the injected script only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from pantheon.llm.providers.scripted import ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.people import PASSWORD, api_as, keys_server, make_person
from tests.web.scripts import script_orchestrator
from tests.web.server import LiveServer
from tests.web.views import SIZES, VIEWS, Theme, open_sidebar

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "apps/web/node_modules/axe-core/axe.min.js"
SERIOUS = ("serious", "critical")
# Rules that fail at any impact: a role the element may not take (the message box was a
# textarea with role=combobox, which axe rates only "minor").
STRICT = ("aria-allowed-role", "aria-allowed-attr")


def check(page: Page, where: str) -> None:
    """Run axe-core on the page as it is; fail naming each serious or critical violation
    (and each of ``STRICT``)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )
    bad = [v for v in found if v["impact"] in SERIOUS or v["id"] in STRICT]
    lines = [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(" ".join(n["target"]) + f" [{n['failureSummary']}]" for n in v["nodes"][:4])
        for v in bad
    ]
    assert not lines, f"{where}: axe-core found\n" + "\n".join(lines)


def gated(request: LLMRequest) -> ScriptedReply:
    """Asks for the calculator, so its turn waits for approval (Approve / Reject)."""
    return ScriptedReply("Let me compute that.", (tool_call("calculator", {"expression": "2"}),))


def _setup(server: LiveServer, size: str, theme: Theme) -> dict[str, Any]:
    """A room with a finished orchestrator turn, a room whose turn waits for approval, an
    agent, and a finished evaluation run."""
    tag = f"{size[0]}{theme[0]}"
    keys = (f"{tag}a", f"{tag}b", f"{tag}c")
    script_orchestrator(server.scripted, keys, words=6, chunk_delay_s=0.0)
    made = server.room_with(f"Axe {tag}", list(keys))
    server.api("POST", f"/v1/sessions/{made['session']['id']}/turns", {"message": "Plan it"})
    room = server.api("POST", "/v1/rooms", {"name": f"Gate {tag}", "mode": "roundtable"})
    body = {"key": f"{tag}gate", "name": "Gate", "role_prompt": "x", "tools": ["calculator!"]}
    agent = server.api("POST", "/v1/agents", body)
    server.api("POST", f"/v1/rooms/{room['id']}/agents", {"agent_id": agent["id"]})
    server.scripted.script(gated, agent=f"{tag}gate")
    paused = server.api("POST", f"/v1/rooms/{room['id']}/sessions", {})
    server.api("POST", f"/v1/sessions/{paused['id']}/turns", {"message": "Compute 2"})
    cases = [{"id": "greet", "message": "say hello", "facts": ["hello"]}]
    dataset = server.api("POST", "/v1/evals/datasets", {"name": f"axe {tag}", "cases": cases})
    target = {"room_id": made["room"]["id"], "mode": "roundtable"}
    run = server.api("POST", "/v1/evals", {"dataset_id": dataset["id"], "targets": [target]})
    for _ in range(1000):
        if server.api("GET", f"/v1/evals/{run['id']}")["status"] != "running":
            break
        time.sleep(0.01)
    return {"room": made["room"], "session": made["session"], "gate": room, "paused": paused,
            "agent": agent, "run": run}  # fmt: skip


def _page(browser: Browser, server: LiveServer, size: str, theme: Theme) -> Iterator[Page]:
    width, height = SIZES[size]
    phone = size == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height}, base_url=server.url, is_mobile=phone,
        has_touch=phone, color_scheme=theme, bypass_csp=True,
    )  # fmt: skip
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


def _dialog(page: Page, where: str, opener: Any) -> None:
    opener.click()
    expect(page.locator("dialog[open]")).to_have_count(1)
    check(page, where)
    page.keyboard.press("Escape")
    expect(page.locator("dialog[open]")).to_have_count(0)


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_no_serious_violation_on_any_view(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    assert AXE.exists(), f"{AXE} missing: run `npm ci` in apps/web"
    made = _setup(server, size, theme)
    room_id, gate_id = made["room"]["id"], made["gate"]["id"]
    for page in _page(browser, server, size, theme):
        name = f"{size}-{theme}"
        page.goto(f"/#/rooms/{room_id}/sessions/{made['session']['id']}")
        expect(page.locator(".synthesis .panel")).to_have_attribute("data-state", "done")
        expect(page.locator(".usage-calls")).to_be_visible()
        page.locator("details.turn-work > summary").first.click()  # the folded rounds too
        check(page, f"{name} chat")
        screenshot(page, f"axe-{name}-chat")
        _dialog(page, f"{name} roster", page.get_by_role("button", name="Roster (3)"))
        page.get_by_role("button", name="Room actions").click()
        check(page, f"{name} room menu")
        page.get_by_role("menuitem", name="Edit room…").click()
        expect(page.locator("dialog[open]")).to_have_count(1)
        check(page, f"{name} room settings")
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Room actions").click()
        page.get_by_role("menuitem", name="Documents…").click()
        expect(page.locator("dialog[open]")).to_have_count(1)
        check(page, f"{name} knowledge")
        page.keyboard.press("Escape")
        _dialog(page, f"{name} sessions", page.get_by_role("button", name="Sessions (1)"))
        page.get_by_role("button", name="Session actions").click()
        page.get_by_role("menuitem", name="Usage…").click()
        expect(page.locator("dialog[open] table").first).to_be_visible()
        check(page, f"{name} usage")
        page.keyboard.press("Escape")
        page.keyboard.press("Control+/")
        check(page, f"{name} shortcuts")
        page.keyboard.press("Escape")

        page.goto(f"/#/rooms/{gate_id}/sessions/{made['paused']['id']}")
        expect(page.locator(".approval-card")).to_have_attribute("data-state", "open")
        # Why Send is off shows on a phone too (other hints are left out there).
        expect(page.locator(".composer-hint")).to_contain_text("waits for your approval")
        check(page, f"{name} approval")
        screenshot(page, f"axe-{name}-approval")

        page.goto(f"/#/agents/{made['agent']['id']}")
        expect(page.locator(".view-title")).to_contain_text("Gate")
        check(page, f"{name} agent")
        page.get_by_role("button", name="Agent actions").click()
        page.get_by_role("menuitem", name="Edit agent…").click()
        expect(page.locator("dialog[open]")).to_have_count(1)
        check(page, f"{name} agent form")
        page.keyboard.press("Escape")
        open_sidebar(page, size)
        check(page, f"{name} sidebar")
        page.locator("#sidebar").get_by_role("button", name="+ New room").click()
        expect(page.locator("dialog[open]")).to_have_count(1)
        check(page, f"{name} new room")
        page.keyboard.press("Escape")

        page.goto("/#/evals")
        run_link = page.get_by_role("link", name=f"axe {size[0]}{theme[0]}", exact=True)
        expect(run_link).to_be_visible()
        check(page, f"{name} evals")
        page.goto(f"/#/evals/{made['run']['id']}")
        expect(page.get_by_role("table", name="Cases")).to_be_visible()
        check(page, f"{name} eval run")
        page.goto("/#/")
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
        check(page, f"{name} welcome")


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A second server, in keys mode: the sign-in screen and the account menu."""
    yield from keys_server(tmp_path_factory)


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_no_serious_violation_signed_out_or_in_keys_mode(
    browser: Browser, keys: LiveServer, size: str, theme: Theme
) -> None:
    login = f"axe-{size}-{theme}"
    key = make_person(keys, login, display_name=f"Axe {size} {theme}", admin=True)
    room = api_as(keys, key, "POST", "/v1/rooms", {"name": f"Axe room {size} {theme}"})
    session = api_as(keys, key, "POST", f"/v1/rooms/{room['id']}/sessions", {"title": "S"})
    invited = keys.api("POST", "/v1/admin/users", {"login": f"inv-{size}-{theme}"})
    for page in _page(browser, keys, size, theme):
        name = f"{size}-{theme}"
        page.goto("/?signin_error=pending")
        expect(page.get_by_role("heading", name="Sign in to Pantheon")).to_be_visible()
        page.get_by_text("Use an API key instead").click()
        check(page, f"{name} sign-in")
        page.get_by_label("Login").fill(login)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in", exact=True).click()
        expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
        open_sidebar(page, size)
        page.get_by_role("button", name=f"Account: Axe {size} {theme}").click()
        check(page, f"{name} account menu")
        page.get_by_role("menuitem", name="Change password…").click()
        expect(page.locator("dialog[open]")).to_have_count(1)
        check(page, f"{name} change password")
        page.keyboard.press("Escape")

        page.goto(f"/#/rooms/{room['id']}/sessions/{session['id']}")
        page.get_by_role("button", name="Room actions").click()
        page.get_by_role("menuitem", name="Share…").click()
        expect(
            page.locator("dialog[open]").get_by_text("Not shared with anyone yet.")
        ).to_be_visible()
        page.get_by_label("Find a person").fill("axe")
        expect(page.get_by_role("status")).not_to_have_text("")
        check(page, f"{name} share dialog")
        page.get_by_role("button", name="Done").click()
        page.get_by_role("button", name="Session actions").click()
        page.get_by_role("menuitem", name="Share link…").click()
        page.get_by_role("button", name="Create link").click()
        expect(page.get_by_role("textbox", name="Share link URL")).to_be_visible()
        check(page, f"{name} share link")
        page.keyboard.press("Escape")

        page.goto("/#/admin")
        expect(page.get_by_role("table", name="People")).to_be_visible()
        check(page, f"{name} admin")
        page.get_by_role("button", name=f"Keys and budgets of Axe {size} {theme}").click()
        expect(page.get_by_role("region", name="API keys").locator("li")).to_have_count(1)
        expect(page.get_by_role("region", name="Budgets")).to_contain_text("No budget")
        check(page, f"{name} admin keys and budgets")
        page.get_by_role("button", name="+ Invite a person").click()
        expect(page.locator("dialog[open]")).to_have_count(1)
        check(page, f"{name} invite form")
        page.keyboard.press("Escape")

        page.goto(invited["invite_url"])
        expect(page.get_by_label("New password")).to_be_focused()
        check(page, f"{name} invitation")
