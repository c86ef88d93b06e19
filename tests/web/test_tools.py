"""Tool calls in the agent's panel (collapsed rows: name, ok/failed, duration; opened:
arguments and result as text), live and after a reload; the agent form's tools picker."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, Route, expect

from pantheon.llm.providers.scripted import ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def calculating(request: LLMRequest) -> ScriptedReply:
    """Asks the built-in calculator for 17*23 once, then answers with its result."""
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedReply(f"17*23 is **{last.content}**.")
    return ScriptedReply(
        "Let me compute that.", (tool_call("calculator", {"expression": "17*23"}),)
    )


def sloppy(request: LLMRequest) -> ScriptedReply:
    """Writes arguments that are not JSON; reads the failure and says so."""
    if request.messages[-1].role == "tool":
        return ScriptedReply("The calculator refused my arguments.")
    return ScriptedReply("", (tool_call("calculator", '{"expression": 17*23<b>x</b>'),))


def tool_room(server: LiveServer, name: str) -> dict[str, str]:
    room = server.api("POST", "/v1/rooms", {"name": name, "mode": "roundtable"})
    for key in ("calc", "sloppy"):
        agent = server.api(
            "POST",
            "/v1/agents",
            {
                "key": f"{key}{name}",
                "name": key.title(),
                "role_prompt": "x",
                "tools": ["calculator"],
            },
        )
        server.api("POST", f"/v1/rooms/{room['id']}/agents", {"agent_id": agent["id"]})
    session = server.api("POST", f"/v1/rooms/{room['id']}/sessions", {"title": name})
    server.scripted.script(calculating, agent=f"calc{name}")
    server.scripted.script(sloppy, agent=f"sloppy{name}")
    return {
        "room": room["id"],
        "session": session["id"],
        "calc": f"calc{name}",
        "sloppy": f"sloppy{name}",
    }


def check_tool_rows(page: Page, made: dict[str, str], shot: str | None = None) -> None:
    turn = page.locator(".turn").last
    ok = turn.locator(f".panel[data-agent='{made['calc']}'] .tool-call")
    expect(ok).to_have_count(1)
    expect(ok).to_have_attribute("data-state", "ok")
    expect(ok).to_have_attribute("data-tool", "calculator")
    expect(ok.locator("summary")).to_contain_text("calculator")
    expect(ok.locator(".tool-badge")).to_have_text("ok")
    expect(ok.locator(".tool-duration")).to_have_text(re.compile(r"^\d+(\.\d+)? m?s$"))
    expect(ok.locator(".tool-args")).not_to_be_visible()  # collapsed by default
    if shot:
        ok.scroll_into_view_if_needed()
        screenshot(page, f"{shot}-collapsed")
    ok.locator("summary").click()
    expect(ok.locator(".tool-args")).to_be_visible()
    assert '"expression": "17*23"' in ok.locator(".tool-args").inner_text()
    expect(ok.locator(".tool-result")).to_have_text("391")
    expect(turn.locator(f".panel[data-agent='{made['calc']}'] .panel-body")).to_contain_text(
        "17*23 is 391"
    )

    bad = turn.locator(f".panel[data-agent='{made['sloppy']}'] .tool-call")
    expect(bad).to_have_attribute("data-state", "failed")
    expect(bad.locator(".tool-badge")).to_have_text("failed")
    expect(bad.locator(".tool-badge")).to_have_css("font-weight", "600")  # marked, not just said
    bad.locator("summary").click()
    expect(bad.locator(".tool-label").first).to_contain_text("not a JSON object")
    expect(bad.locator(".tool-args")).to_have_text('{"expression": 17*23<b>x</b>')
    expect(bad.locator(".tool-args b")).to_have_count(0)  # text, never HTML
    expect(bad.locator(".tool-result pre.failed")).not_to_be_empty()


def test_tool_calls_live_and_after_reload(page: Page, server: LiveServer) -> None:
    made = tool_room(server, "Tools")
    page.goto(f"/#/rooms/{made['room']}/sessions/{made['session']}")
    box = page.get_by_label("Message")
    box.fill("What is 17 times 23?")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    check_tool_rows(page, made, "desktop-tool-calls")
    page.locator(".tool-call[data-state='failed']").scroll_into_view_if_needed()
    screenshot(page, "desktop-tool-calls-open")

    page.reload()
    expect(page.locator(".turn").last).to_have_attribute("data-status", "completed")
    check_tool_rows(page, made)

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    check_tool_rows(page, made, "phone-tool-calls")
    page.locator(".tool-call[data-state='failed'] .tool-result").scroll_into_view_if_needed()
    screenshot(page, "phone-tool-calls-open")
    scroll = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert scroll <= 0, "the page scrolls sideways on a phone"
    page.emulate_media(color_scheme="dark")  # no stored choice: the page follows the system
    screenshot(page, "phone-tool-calls-dark")


def test_agent_form_picks_tools(page: Page, server: LiveServer) -> None:
    page.goto("/#/")
    page.get_by_role("button", name="New agent").first.click()
    dialog = page.locator("dialog[open]")
    picker = dialog.locator("fieldset.tools-picker")
    expect(picker.locator(".tool-option[data-tool='calculator']")).to_contain_text("arithmetic")
    expect(picker.locator(".tool-option[data-tool='current_time']")).to_be_visible()
    expect(picker.locator(".tools-group[data-source='builtin'] .tools-group-title")).to_have_text(
        "Built-in tools"
    )
    dialog.get_by_label("Key").fill("picker")
    dialog.get_by_label("Name").fill("Picker")
    dialog.get_by_label("Role prompt").fill("You pick.")
    picker.locator("input[value='calculator']").check()
    picker.locator("input[value='current_time']").check()
    screenshot(page, "desktop-agent-form-tools")
    dialog.get_by_role("button", name="Create agent").click()
    expect(page.locator("dialog[open]")).to_have_count(0)
    agents = server.api("GET", "/v1/agents?limit=200")["items"]
    saved = next(a for a in agents if a["key"] == "picker")
    assert sorted(saved["tools"]) == ["calculator", "current_time"]

    # Editing shows the saved selection; unticking one saves the rest.
    page.goto(f"/#/agents/{saved['id']}")
    page.get_by_role("button", name="Agent actions").click()
    page.get_by_role("menuitem", name="Edit agent…").click()
    picker = page.locator("dialog[open] fieldset.tools-picker")
    expect(picker.locator("input[value='calculator']")).to_be_checked()
    picker.locator("input[value='current_time']").uncheck()
    page.locator("dialog[open]").get_by_role("button", name="Save").click()
    expect(page.locator("dialog[open]")).to_have_count(0)
    assert server.api("GET", f"/v1/agents/{saved['id']}")["tools"] == ["calculator"]


def test_unknown_tool_error_reads_for_a_person(page: Page, server: LiveServer) -> None:
    page.goto("/#/")
    expect(page.locator("body")).to_be_visible()
    text = page.evaluate(
        """() => import('/js/text/humanize.js').then((m) => m.describeError({status: 422, message:
           "tools: unknown tool 'nope'; built-in tools: calculator, current_time"}))"""
    )
    assert text == (
        "This server has no tool called “nope”. Untick it and pick from the list. "
        "The built-in tools are: calculator, current_time."
    )


RENDER_EVENTS = """async () => {
  const { TurnView } = await import('/js/chat/turn-view.js');
  const view = new TurnView({ message: 'm', mode: 'orchestrator' });
  document.body.append(view.el);
  const passages = '[1] <img src=x onerror=window.__pwned=1>.pdf, page 3\\nFirst passage\\nline two'
    + '\\n\\n[2] notes.md\\nSecond passage';
  const events = [
    { type: 'turn_started', turn_id: 't-rendered', mode: 'orchestrator' },
    { type: 'round_start', round: 1 },
    { type: 'routing', round: 1, agents: ['lib'], fallback: false },
    { type: 'agent_started', round: 1, agent_key: 'lib', agent_name: 'Librarian' },
    { type: 'tool_call', round: 1, agent_key: 'lib', call_id: 'c1', name: 'search_knowledge',
      arguments: { query: 'refunds', limit: 2 }, arguments_raw: null },
    { type: 'tool_result', round: 1, agent_key: 'lib', call_id: 'c1', name: 'search_knowledge',
      ok: true, content: passages, duration_ms: 1234 },
    { type: 'agent_completed', round: 1, agent_key: 'lib', text: 'Found it.', usage: null },
    { type: 'round_end', round: 1 },
    { type: 'round_start', round: 2 },
    { type: 'routing', round: 2, agents: ['lib'], fallback: false },
    { type: 'agent_started', round: 2, agent_key: 'lib', agent_name: 'Librarian' },
    { type: 'tool_call', round: 2, agent_key: 'lib', call_id: 'c2', name: 'current_time',
      arguments: {}, arguments_raw: null },
    { type: 'turn_completed', status: 'cancelled', usage: null, message_ids: [], error_code: null },
  ];
  for (const e of events) view.apply(e);
}"""


def test_knowledge_passages_and_orchestrator_rounds(page: Page, server: LiveServer) -> None:
    """Rendered from events directly: search_knowledge passages as text, tool events in
    the panel of the agent's current orchestrator round, an unfinished call at the end."""
    page.goto("/#/")
    expect(page.locator("body")).to_be_visible()
    page.evaluate(RENDER_EVENTS)
    turn = page.locator(".turn[data-turn-id='t-rendered']")
    first = turn.locator(".round[data-round='1'] .panel[data-agent='lib'] .tool-call")
    expect(first).to_have_attribute("data-state", "ok")
    expect(first.locator(".tool-duration")).to_have_text("1.23 s")
    first.locator("summary").click()
    passages = first.locator(".tool-passage")
    expect(passages).to_have_count(2)
    expect(passages.nth(0).locator(".tool-passage-source")).to_have_text(
        "[1] <img src=x onerror=window.__pwned=1>.pdf, page 3"
    )
    expect(passages.nth(0).locator(".tool-passage-text")).to_have_text("First passage\nline two")
    expect(passages.nth(1).locator(".tool-passage-source")).to_have_text("[2] notes.md")
    assert page.locator(".turn img").count() == 0
    second = turn.locator(".round[data-round='2'] .panel[data-agent='lib'] .tool-call")
    expect(second).to_have_attribute("data-state", "unfinished")
    expect(second.locator(".tool-badge")).to_have_text("no result")
    assert turn.locator(".round[data-round='1'] .tool-call").count() == 1


PICKER = """async () => {
  const { toolsPicker } = await import('/js/agents/tools-picker.js');
  const tools = [
    { name: 'orders.refund', description: 'Refund an order.\\n\\nMore.', source: 'mcp:orders',
      available: false, parameters: {} },
    { name: 'orders.lookup', description: 'Find an order.', source: 'mcp:orders',
      available: false, definition_changed: true, parameters: {} },
    { name: 'calculator', description: 'Arithmetic.', source: 'builtin', available: true,
      parameters: {} },
  ];
  const picker = toolsPicker({ tools, selected: ['orders.refund!', 'files.*'] });
  picker.element.id = 'picker-under-test';
  document.body.append(picker.element);
  window.__readPicker = picker.read;
}"""


def test_picker_groups_mcp_tools_and_keeps_what_it_cannot_list(page: Page) -> None:
    page.goto("/#/")
    expect(page.locator("body")).to_be_visible()
    page.evaluate(PICKER)
    picker = page.locator("#picker-under-test")
    titles = picker.locator(".tools-group-title")
    expect(titles).to_have_text(["Built-in tools", "MCP server orders", "Other entries"])
    refund = picker.locator(".tool-option[data-tool='orders.refund']")
    expect(refund.locator("input")).to_be_disabled()
    expect(refund.locator("input")).to_be_checked()
    expect(refund).to_contain_text("unavailable: the server cannot be reached now")
    lookup = picker.locator(".tool-option[data-tool='orders.lookup']")
    expect(lookup.locator("input")).to_be_disabled()
    expect(lookup.locator(".badge")).to_have_text(
        "quarantined: its definition changed since it was pinned; an admin must accept it"
    )
    expect(refund.locator(".tool-option-desc")).to_have_text("Refund an order.")
    expect(picker.locator(".tool-option[data-tool='files.*'] input")).to_be_checked()
    picker.locator("input[value='calculator']").check()
    assert page.evaluate("window.__readPicker()") == ["calculator", "orders.refund!", "files.*"]
    picker.locator(".tool-option[data-tool='files.*'] input").uncheck()
    assert page.evaluate("window.__readPicker()") == ["calculator", "orders.refund!"]


def test_unknown_tool_422_shows_in_the_form(page: Page, server: LiveServer) -> None:
    """A stale list (a tool gone since the form opened): the API's 422 reads for a person,
    inside the form, which stays open. The request is altered in flight to get there."""

    def stale(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        route.continue_(post_data=json.dumps({**body, "tools": ["calculator", "abacus"]}))

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/#/")
    page.route("**/v1/agents", lambda route: stale(route) if route.request.method == "POST"
               else route.continue_())  # fmt: skip
    page.get_by_role("button", name="New agent").first.click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Key").fill("stale")
    dialog.get_by_label("Name").fill("Stale")
    dialog.get_by_label("Role prompt").fill("x")
    dialog.locator("input[value='calculator']").check()
    dialog.get_by_role("button", name="Create agent").click()
    error = dialog.locator(".form-error")
    expect(error).to_have_text(
        "This server has no tool called “abacus”. Untick it and pick from the list. "
        "The built-in tools are: calculator, current_time, search_knowledge."
    )
    error.scroll_into_view_if_needed()
    screenshot(page, "phone-agent-form-tool-error")
    expect(dialog).to_be_visible()
