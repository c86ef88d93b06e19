"""Agent output is untrusted: it renders as text and runs nothing. The chat works on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
HOSTILE = (
    f"Look: {SCRIPT} and {IMG}\n\n"
    "[click me](javascript:window.__pwned=1) and [docs](https://example.com/docs)\n\n"
    "```html\n<svg onload=window.__pwned=1></svg>\n```"
)


def standalone_session(server: LiveServer, key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    agent = server.agent(key)
    session = server.api("POST", f"/v1/agents/{agent['id']}/sessions", {"title": "Hostile"})
    return agent, session


def assert_inert(page: Page) -> None:
    turn = page.locator(".turn").last
    body = turn.locator(".panel-body")
    expect(body).to_contain_text(SCRIPT)
    expect(body).to_contain_text(IMG)
    expect(body.locator("pre code")).to_have_text("<svg onload=window.__pwned=1></svg>")
    expect(body.locator("a")).to_have_count(1)  # only the https link became a link
    expect(body.locator("a")).to_have_attribute("href", "https://example.com/docs")
    expect(body).to_contain_text("[click me](javascript:window.__pwned=1)")
    assert page.locator(".turn script, .turn img, .turn svg, .turn [onerror]").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_hostile_agent_output_shows_as_text(page: Page, server: LiveServer) -> None:
    agent, session = standalone_session(server, "hostile")
    server.scripted.script(HOSTILE, agent="hostile", chunk_delay_s=0.01)
    page.goto(f"/#/agents/{agent['id']}/sessions/{session['id']}")
    expect(page.locator(".view-title")).to_contain_text(agent["name"])
    box = page.get_by_label("Message")
    box.fill(f"echo {IMG}")
    box.press("Shift+Enter")  # a newline, not a send
    expect(box).to_have_value(f"echo {IMG}\n")
    box.press("Enter")
    expect(page.locator(".turn").last).to_have_attribute("data-status", "completed")
    expect(page.locator(".msg-user")).to_contain_text(f"echo {IMG}")
    assert_inert(page)

    page.reload()  # the same text, now rendered from the stored history
    expect(page.locator(".turn")).to_have_count(1)
    assert_inert(page)


def test_markdown_renderer_builds_only_safe_nodes(page: Page, server: LiveServer) -> None:
    page.goto("/")
    result = page.evaluate(
        """async () => {
      const { renderMarkdown } = await import('/js/text/markdown-dom.js');
      const box = document.createElement('div');
      box.append(renderMarkdown([
        '# Title', 'Some *italic*, **bold**, `x < y` and snake_case_name.',
        '- one', '- two', '  1. nested', '', '> quoted',
        '[bad](data:text/html,hi) [ok](http://example.org) https://example.net/a.',
        '<b onclick="x()">raw</b>',
      ].join('\\n')));
      const tags = [...box.querySelectorAll('*')].map((el) => el.tagName.toLowerCase());
      const attrs = [...box.querySelectorAll('*')].flatMap((el) => el.getAttributeNames());
      return { tags: [...new Set(tags)].sort(), attrs: [...new Set(attrs)].sort(),
               text: box.textContent, links: [...box.querySelectorAll('a')].map((a) => a.href) };
    }"""
    )
    assert set(result["tags"]) <= {
        "h3",
        "p",
        "em",
        "strong",
        "code",
        "ul",
        "ol",
        "li",
        "blockquote",
        "a",
        "br",
        "pre",
    }
    assert {"h3", "em", "strong", "code", "ul", "ol", "blockquote", "a"} <= set(result["tags"])
    assert set(result["attrs"]) <= {"href", "target", "rel", "start", "data-lang"}
    assert result["links"] == ["http://example.org/", "https://example.net/a"]
    assert "snake_case_name" in result["text"]
    assert '<b onclick="x()">raw</b>' in result["text"]
    assert "[bad](data:text/html,hi)" in result["text"]


def test_phone_width_chat_is_usable(browser: Browser, server: LiveServer) -> None:
    server.scripted.reset()
    made = server.room_with("Pocket", ["ph1", "ph2"], mode="roundtable")
    session_id = made["session"]["id"]
    server.api("POST", f"/v1/sessions/{session_id}/turns", {"message": "Short **answers** please"})
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, base_url=server.url, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(WAIT_MS)
    try:
        page = context.new_page()
        page.goto(f"/#/rooms/{made['room']['id']}/sessions/{session_id}")
        expect(page.locator(".turn")).to_have_count(1)
        expect(page.locator(".panel")).to_have_count(2)
        box = page.get_by_label("Message")
        send = page.get_by_role("button", name="Send", exact=True)
        for element in (box, send, page.get_by_role("button", name="+ New session")):
            expect(element).to_be_in_viewport()
        expect(page.locator("#sidebar")).to_be_hidden()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"horizontal scrolling at phone width: {width}px"
        panels = page.locator(".panel")
        first, second = panels.nth(0).bounding_box(), panels.nth(1).bounding_box()
        assert first is not None
        assert second is not None
        assert second["y"] >= first["y"] + first["height"], "panels should stack on a phone"
        screenshot(page, "phone-chat")

        page.get_by_role("button", name="☰ Rooms & agents").click()
        expect(page.locator("#sidebar")).to_be_visible()
        expect(page.locator("#sidebar")).to_contain_text("Pocket")
        screenshot(page, "phone-menu")
    finally:
        context.close()
