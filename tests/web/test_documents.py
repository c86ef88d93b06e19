"""Documents of rooms and agents through the page (upload with progress, status, errors in
words, delete, search) and the "Sources" under an answer that used search_knowledge."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.knowledge.files import pdf_bytes
from tests.knowledge.test_knowledge_turn import librarian
from tests.web.conftest import screenshot
from tests.web.server import UPLOAD_MAX_BYTES, LiveServer

pytestmark = pytest.mark.browser

INGEST_MS = 40_000  # the first parse starts the parser process (spawn): allow for it
PAGES = ["Harbour rules and tides.", "The lighthouse lamp is lit at dusk daily."]
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
HOSTILE = "<img src=x onerror=alert(1)> lamp.txt"  # a file name is user input

# Every value a progress bar in the uploads list takes, kept on window for the test.
RECORD_PROGRESS = """() => {
  window.progressSeen = [];
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.target.tagName === "PROGRESS") window.progressSeen.push(r.target.value);
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["value"]});
}"""

SLOW_UPLOAD = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 40_000}
PART_WAY = """() => {
  const bar = document.querySelector(".docs-uploads progress");
  return bar !== null && bar.value > 0 && bar.value < 100;
}"""

# A drop of one text file on the drop zone, as a person dragging it from a file manager.
DROP_FILE = """([name, text]) => {
  const data = new DataTransfer();
  data.items.add(new File([text], name, {type: "text/plain"}));
  const zone = document.querySelector(".docs-drop");
  const init = {dataTransfer: data, bubbles: true, cancelable: true};
  zone.dispatchEvent(new DragEvent("dragover", init));
  zone.dispatchEvent(new DragEvent("drop", init));
}"""


def upload(server: LiveServer, place: str, name: str, data: bytes) -> dict[str, Any]:
    """Upload through the API and wait until the document is ready."""
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        response = client.post(f"/v1/{place}/documents", files={"file": (name, data)})
        response.raise_for_status()
        deadline = time.monotonic() + INGEST_MS / 1000
        while time.monotonic() < deadline:
            document: dict[str, Any] = client.get(f"/v1/documents/{response.json()['id']}").json()
            if document["status"] != "pending":
                assert document["status"] == "ready", document
                return document
            time.sleep(0.05)
    raise AssertionError(f"{name} still pending")


def open_documents(page: Page, menu: str) -> Any:
    page.get_by_role("button", name=menu).click()
    page.get_by_role("menuitem", name="Documents…").click()
    return page.locator("dialog.documents-dialog")


def test_room_documents_upload_status_errors_delete_and_search(
    page: Page, server: LiveServer
) -> None:
    room = server.api("POST", "/v1/rooms", {"name": "Harbour", "mode": "roundtable"})
    page.goto(f"/#/rooms/{room['id']}")
    dialog = open_documents(page, "Room actions")
    expect(dialog.get_by_role("heading", name="Documents of Harbour")).to_be_visible()
    expect(dialog.locator(".docs-status").first).to_have_text("No documents yet.")
    page.evaluate(RECORD_PROGRESS)
    chooser = dialog.get_by_label("Choose files to upload")

    chooser.set_input_files(
        [
            {"name": "keeper.pdf", "mimeType": "application/pdf", "buffer": pdf_bytes(PAGES)},
            {"name": "scan.pdf", "mimeType": "application/pdf", "buffer": pdf_bytes([""])},
        ]
    )
    keeper = dialog.locator(".doc-item", has_text="keeper.pdf")
    expect(keeper).to_have_attribute("data-status", "ready", timeout=INGEST_MS)
    expect(keeper.locator(".doc-status")).to_have_text("Ready · 2 pages · 2 passages")
    scan = dialog.locator(".doc-item", has_text="scan.pdf")
    expect(scan).to_have_attribute("data-status", "failed", timeout=INGEST_MS)
    expect(scan.locator(".doc-status")).to_contain_text("Failed: ")
    expect(scan.locator(".doc-status")).to_contain_text("no extractable text")

    chooser.set_input_files(
        {"name": "tool.exe", "mimeType": "application/octet-stream", "buffer": b"MZ"}
    )
    refused = dialog.locator(".upload-item[data-state='failed']", has_text="tool.exe")
    expect(refused).to_contain_text("tool.exe was not added: its type is not accepted (.exe).")
    expect(refused).to_contain_text("Accepted: PDF, DOCX, TXT, Markdown, CSV or HTML files")
    expect(refused).to_contain_text(".pdf .docx")

    big = b"tide table line\n" * (UPLOAD_MAX_BYTES // 16 + 1024)
    chooser.set_input_files({"name": "tides.txt", "mimeType": "text/plain", "buffer": big})
    too_big = dialog.locator(".upload-item[data-state='failed']", has_text="tides.txt")
    expect(too_big).to_contain_text("tides.txt is too large: a document can be at most 256 KB.")
    seen = page.evaluate("window.progressSeen")
    assert seen, "no upload progress was shown"
    assert max(seen) > 0, f"the progress bar never moved: {seen}"

    # A slow link (Chromium's network emulation) shows the bar part-way through an upload.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", SLOW_UPLOAD)
    slow = b"Harbour log entry: calm sea, light wind.\n" * 4000
    chooser.set_input_files({"name": "log.txt", "mimeType": "text/plain", "buffer": slow})
    page.wait_for_function(PART_WAY)
    screenshot(page, "desktop-documents-uploading")
    cdp.send("Network.emulateNetworkConditions", {**SLOW_UPLOAD, "uploadThroughput": -1})
    log = dialog.locator(".doc-item", has_text="log.txt")
    expect(log).to_have_attribute("data-status", "ready", timeout=INGEST_MS)

    page.evaluate(DROP_FILE, ["notes.txt", "Ferries leave at noon from pier four."])
    notes = dialog.locator(".doc-item", has_text="notes.txt")
    expect(notes).to_have_attribute("data-status", "ready", timeout=INGEST_MS)
    expect(notes.locator(".doc-status")).to_have_text("Ready · 1 passage")
    expect(dialog.locator(".docs-status").first).to_have_text("4 documents")

    dialog.get_by_label("Search these documents").fill("When is the lighthouse lamp lit?")
    dialog.get_by_role("button", name="Search", exact=True).click()
    first = dialog.locator(".docs-results .passage").first
    expect(first.locator(".passage-source")).to_have_text("keeper.pdf, page 2")
    expect(first.locator(".passage-text")).to_contain_text("lighthouse lamp is lit at dusk")
    screenshot(page, "desktop-documents")

    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "phone-documents")
    first.scroll_into_view_if_needed()
    screenshot(page, "phone-documents-search")
    page.set_viewport_size(DESKTOP)

    dialog.get_by_role("button", name="Delete notes.txt").click()
    confirm = page.locator("dialog[open]").filter(has_text="Delete notes.txt?")
    confirm.get_by_role("button", name="Delete").click()
    expect(notes).to_have_count(0)
    expect(dialog.locator(".docs-status").first).to_have_text("3 documents")
    listed = server.api("GET", f"/v1/rooms/{room['id']}/documents")
    assert sorted(d["filename"] for d in listed["items"]) == ["keeper.pdf", "log.txt", "scan.pdf"]

    dialog.get_by_role("button", name="Close").click()
    page.reload()  # the list comes back from the server, settled
    dialog = open_documents(page, "Room actions")
    expect(dialog.locator(".doc-item")).to_have_count(3)
    expect(dialog.locator(".doc-item[data-status='ready']")).to_have_count(2)


def test_sources_under_an_answer_that_searched(page: Page, server: LiveServer) -> None:
    room = server.api("POST", "/v1/rooms", {"name": "Library", "mode": "roundtable"})
    agent = server.api(
        "POST",
        "/v1/agents",
        {"key": "lib", "name": "Librarian", "role_prompt": "Cite.", "tools": ["search_knowledge"]},
    )
    server.api("POST", f"/v1/rooms/{room['id']}/agents", {"agent_id": agent["id"]})
    upload(server, f"rooms/{room['id']}", "keeper.pdf", pdf_bytes(PAGES))
    upload(server, f"agents/{agent['id']}", HOSTILE, b"Trim the lamp wick weekly.")
    server.scripted.script(librarian, agent="lib")

    page.goto(f"/#/rooms/{room['id']}")
    box = page.get_by_label("Message")
    box.fill("When is the lamp lit?")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed")
    sources = turn.locator(".panel[data-agent='lib'] .sources")
    expect(sources.get_by_role("heading", name="Sources")).to_be_visible()
    screenshot(page, "desktop-sources")
    cited = sources.locator(".source[data-cited='true']").first
    expect(cited).to_have_text("keeper.pdf, page 2")
    expect(sources.locator(".source", has_text=HOSTILE)).to_have_count(1)
    screenshot(page, "desktop-sources")

    page.reload()  # history replays the recorded events: the same Sources
    sources = page.locator(".turn").last.locator(".panel[data-agent='lib'] .sources")
    expect(sources.locator(".source").first).to_have_text("keeper.pdf, page 2")
    page.set_viewport_size(PHONE)
    expect(sources).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    sources.scroll_into_view_if_needed()
    screenshot(page, "phone-sources")
    page.set_viewport_size(DESKTOP)

    page.goto(f"/#/agents/{agent['id']}")
    dialog = open_documents(page, "Agent actions")
    expect(dialog.get_by_role("heading", name="Documents of Librarian")).to_be_visible()
    expect(dialog.locator(".doc-item")).to_have_count(1)
    expect(dialog.locator(".doc-name")).to_have_text(HOSTILE)  # text, not markup
    dialog.get_by_label("Search these documents").fill("wick")
    dialog.get_by_label("Search these documents").press("Enter")
    expect(dialog.locator(".passage-source").first).to_have_text(HOSTILE)
