"""What chat users expect: rich Markdown with highlighted, copyable code; copy, regenerate
and edit-and-resend; @mention suggestions; shortcuts; a remembered theme; exports; words
for a person in errors; long words that wrap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import answer
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

RICH = """Results:

| name | score |
|:-----|------:|
| **ada** | 10 |
| bob \\| co | 7 |

- [x] done ~~gone~~
- [ ] open <img src=x onerror="window.__pwned=1">

```python
def f(x):
    return "<script>window.__pwned=1</script>" + 1
```
"""


def send(page: Page, text: str) -> None:
    box = page.get_by_label("Message")
    box.fill(text)
    box.press("Enter")


def last_turn_done(page: Page, status: str = "completed") -> None:
    expect(page.locator(".turn").last).to_have_attribute("data-status", status, timeout=WAIT_MS)


def test_rich_markdown_renders_safely_with_highlighted_copyable_code(
    page: Page, server: LiveServer
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    agent = server.agent("writer")
    server.scripted.script(RICH, agent="writer")
    page.goto(f"/#/agents/{agent['id']}/new")
    send(page, "show me")
    last_turn_done(page)
    body = page.locator(".panel[data-agent='writer'] .panel-body")
    expect(body.locator("th")).to_have_text(["name", "score"])
    expect(body.locator("td")).to_have_text(["ada", "10", "bob | co", "7"])
    expect(body.locator("td strong")).to_have_text("ada")
    expect(body.locator("td").nth(1)).to_have_attribute("data-align", "right")
    expect(body.locator("li.task input[type=checkbox]")).to_have_count(2)
    expect(body.locator("li.task input").first).to_be_checked()
    expect(body.locator("li.task input").last).not_to_be_checked()
    expect(body.locator("del")).to_have_text("gone")
    code = body.locator(".code-block pre code")
    expect(code).to_have_attribute("data-highlighted", "true")
    expect(code.locator(".tok-keyword").first).to_have_text("def")
    expect(code.locator(".tok-string")).to_have_text('"<script>window.__pwned=1</script>"')
    assert page.locator(".turn script, .turn img").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    tags = page.evaluate(
        "[...new Set([...document.querySelectorAll('.panel-body *')].map((e) => e.tagName))]"
    )
    assert set(tags) <= {"DIV", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD", "STRONG", "P",
                         "UL", "LI", "INPUT", "DEL", "PRE", "CODE", "SPAN", "BUTTON"}  # fmt: skip

    body.get_by_role("button", name="Copy python code").click()
    expect(body.get_by_role("button", name="Copy python code")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == 'def f(x):\n    return "<script>window.__pwned=1</script>" + 1'
    page.get_by_role("button", name="Copy Writer's answer").click()
    assert page.evaluate("navigator.clipboard.readText()") == RICH
    page.get_by_role("button", name="Copy what you wrote").click()
    assert page.evaluate("navigator.clipboard.readText()") == "show me"
    screenshot(page, "desktop-rich-markdown")


def test_regenerate_and_edit_send_new_turns(page: Page, server: LiveServer) -> None:
    made = server.room_with("Again", ["ag1", "ag2"], mode="roundtable")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    page.get_by_label("Mode for this turn only").select_option("manual")
    send(page, "@ag2 first try")
    last_turn_done(page)
    first = page.locator(".turn").first
    expect(first.locator(".panel")).to_have_count(1)

    first.get_by_role("button", name="Regenerate").click()
    expect(page.locator(".turn")).to_have_count(2)
    last_turn_done(page)
    again = page.locator(".turn").last
    expect(again.locator(".msg-user")).to_have_text("@ag2 first try")
    expect(again.locator(".badge.mode")).to_have_text("manual")  # the turn's own mode

    first.get_by_role("button", name="Edit").click()
    box = page.get_by_label("Message")
    expect(box).to_have_value("@ag2 first try")
    expect(box).to_be_focused()
    expect(page.locator(".edit-note")).to_contain_text("Send posts it as a new turn")
    box.fill("@ag1 second try")
    box.press("Enter")
    expect(page.locator(".turn")).to_have_count(3)
    last_turn_done(page)
    expect(page.locator(".turn").last.locator(".panel[data-agent='ag1']")).to_have_count(1)
    expect(page.locator(".edit-note")).to_be_hidden()
    turns = server.api("GET", f"/v1/sessions/{made['session']['id']}/turns")["items"]
    assert [t["message"] for t in turns] == ["@ag2 first try", "@ag2 first try", "@ag1 second try"]


def test_mention_suggestions_in_manual_mode(page: Page, server: LiveServer) -> None:
    made = server.room_with("Tags", ["bravo", "bishop", "charlie"], mode="manual")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.press_sequentially("Ask @b")
    options = page.locator("#mention-list").get_by_role("option")
    expect(options).to_have_count(2)
    expect(box).to_have_attribute("aria-activedescendant", "mention-0")
    expect(box).not_to_have_attribute("role", "combobox")  # a textarea may not be one
    box.press("ArrowDown")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", "mention-1")
    box.press("Enter")  # inserts, does not send
    expect(box).to_have_value("Ask @bishop ")
    expect(options).to_have_count(0)
    box.press_sequentially("and @ch")
    box.press("Tab")
    expect(box).to_have_value("Ask @bishop and @charlie ")
    box.press("Enter")
    last_turn_done(page)
    keys = (
        page.locator(".turn")
        .last.locator(".panel")
        .evaluate_all("(panels) => panels.map((p) => p.dataset.agent)")
    )
    assert keys == ["bishop", "charlie"]
    page.get_by_label("Mode for this turn only").select_option("roundtable")
    box.press_sequentially("@b")
    expect(options).to_have_count(0)  # mentions matter in manual only


def test_shortcuts_theme_and_exports(page: Page, server: LiveServer, tmp_path: Path) -> None:
    agent = server.agent("slowpoke")
    session = server.api("POST", f"/v1/agents/{agent['id']}/sessions", {"title": "Export me"})
    server.api("POST", f"/v1/sessions/{session['id']}/turns", {"message": "Hello *there*"})
    page.goto(f"/#/agents/{agent['id']}/sessions/{session['id']}")
    expect(page.locator(".turn")).to_have_count(1)
    expect(page.get_by_label("Mode for this turn only")).to_be_hidden()  # no empty picker

    page.get_by_role("button", name="Session actions").click()
    with page.expect_download() as markdown:
        page.get_by_role("menuitem", name="Export as Markdown").click()
    assert markdown.value.suggested_filename == "pantheon-Export-me.md"
    text = Path(markdown.value.path()).read_text()
    assert text.startswith("# Export me\n")
    assert "## You (standalone, completed)\n\nHello *there*" in text
    assert "**Slowpoke (@slowpoke)**\n\nslowpoke: Hello *there*" in text
    page.get_by_role("button", name="Session actions").click()
    with page.expect_download() as raw:
        page.get_by_role("menuitem", name="Export as JSON").click()
    data = json.loads(Path(raw.value.path()).read_text())
    assert data["session"]["id"] == session["id"]
    assert [m["role"] for m in data["turns"][0]["messages"]] == ["user", "assistant"]
    assert data["turns"][0]["llm_calls"][0]["purpose"] == "specialist"

    page.keyboard.press("Shift+Escape")
    expect(page.get_by_label("Message")).to_be_focused()
    page.keyboard.press("Control+Shift+O")
    expect(page).to_have_url(f"{server.url}/#/agents/{agent['id']}/new")
    page.keyboard.press("Control+/")
    expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_contain_text(
        "Stop the running turn"
    )
    page.keyboard.press("Escape")

    # Send stays off until the new chat is shown (docs/web.md): wait for it, or Enter under
    # load can land while the view still loads and send nothing.
    expect(page.get_by_role("heading", name="New session")).to_be_visible()
    server.scripted.script(answer("slowpoke", 80), agent="slowpoke", chunk_delay_s=0.1)
    send(page, "a long one")
    expect(page.locator(".panel[data-state='streaming']")).to_have_count(1)
    page.locator("body").press("Escape")
    last_turn_done(page, "cancelled")

    theme = page.get_by_role("button", name="Dark theme")
    expect(theme).to_have_attribute("aria-pressed", "false")
    theme.click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".turn").last).to_have_attribute("data-status", "cancelled")
    screenshot(page, "desktop-dark")
    page.get_by_role("button", name="Dark theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")


def test_errors_in_words_and_long_words_wrap(page: Page, server: LiveServer) -> None:
    made = server.room_with("Words", ["w1"], mode="roundtable")
    room_id = made["room"]["id"]
    page.goto(f"/#/rooms/{room_id}/sessions/{made['session']['id']}")
    word = "x" * 400
    send(page, word)
    last_turn_done(page)
    bubble = page.locator(".msg-user").last.bounding_box()
    log = page.locator(".chat-log").bounding_box()
    assert bubble is not None
    assert log is not None
    assert bubble["x"] + bubble["width"] <= log["x"] + log["width"]
    assert page.evaluate("document.querySelector('.chat-log').scrollWidth") <= log["width"] + 1

    page.get_by_label("Message").fill("y" * 32_001)  # over the server's limit
    page.get_by_label("Message").press("Enter")  # refused in the page (test_composer_limits)
    expect(page.locator(".composer-too-long")).to_have_text(
        "This message is 1 character over the server's limit of 32,000. Shorten it to send it."
    )  # no environment-variable name
    expect(page.get_by_label("Message")).to_have_value("y" * 32_001)
    page.get_by_label("Message").fill("")

    page.goto(f"/#/rooms/{room_id}/sessions/00000000-0000-0000-0000-000000000000")
    expect(page.locator(".toasts")).to_contain_text(
        "That session no longer exists; it may have been deleted."
    )
    expect(page).to_have_url(f"{server.url}/#/rooms/{room_id}/sessions/{made['session']['id']}")
    member = server.api("GET", f"/v1/rooms/{room_id}")["agents"][0]
    server.api("DELETE", f"/v1/rooms/{room_id}/agents/{member['agent_id']}")
    page.goto(f"/#/rooms/{room_id}/new")
    page.reload()
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_disabled()
    expect(page.locator(".composer-hint")).to_have_text("Add agents to the roster first.")
    text = page.locator("body").inner_text()
    assert "PANTHEON_" not in text
    assert made["session"]["id"] not in text
