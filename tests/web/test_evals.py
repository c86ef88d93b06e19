"""The evaluations page: a run's progress, its targets compared in a table and a chart,
each case per target linking to its session, cancel, and flips against another run."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

CASES = [
    {"id": "greet", "message": "say hello", "facts": ["hello"]},
    {"id": "colour", "message": "name a colour", "facts": ["blue"]},
    {"id": "plain", "message": "no colours", "checks": [{"type": "not_contains", "value": "blue"}]},
]


def _run(server: LiveServer, room_id: str, modes: list[str]) -> dict[str, Any]:
    dataset = server.api("POST", "/v1/evals/datasets", {"name": "smoke", "cases": CASES})
    targets = [{"room_id": room_id, "mode": mode} for mode in modes]
    run: dict[str, Any] = server.api(
        "POST", "/v1/evals", {"dataset_id": dataset["id"], "targets": targets}
    )
    return run


def _finished(server: LiveServer, run_id: str) -> dict[str, Any]:
    for _ in range(1000):
        run: dict[str, Any] = server.api("GET", f"/v1/evals/{run_id}")
        if run["status"] != "running":
            return run
        time.sleep(0.01)
    raise AssertionError("the run did not end")


def test_a_finished_run_compares_its_targets(page: Page, server: LiveServer) -> None:
    server.scripted.script("hello, blue")
    made = server.room_with("Eval room", ["ann", "ben"], mode="roundtable")
    room_id = made["room"]["id"]
    run = _run(server, room_id, ["standalone", "roundtable", "orchestrator"])
    _finished(server, run["id"])

    page.goto("/#/evals")
    page.get_by_role("link", name="smoke").click()
    expect(page.get_by_role("heading", name="smoke completed")).to_be_visible()
    expect(page.locator(".eval-progress")).to_contain_text("9 of 9 cases · passed 6")
    table = page.get_by_role("table", name="Targets compared")
    expect(table.locator("tbody th")).to_have_text(
        ["Eval room · standalone (ann)", "Eval room · roundtable", "Eval room · orchestrator"]
    )
    expect(table.locator("tbody tr").first.locator("td").first).to_have_text("2/3")
    chart = page.get_by_role("img", name="Pass rate against cost per case, one dot per target")
    expect(chart.locator("circle")).to_have_count(3)
    grid = page.get_by_role("table", name="Cases")
    expect(grid.locator("tbody tr")).to_have_count(3)
    expect(grid.locator('td[data-passed="false"]')).to_have_count(3)
    screenshot(page, "desktop-eval-report")

    grid.get_by_role("link", name="greet: every check passed").nth(1).click()
    expect(page).to_have_url(f"{server.url}/#/rooms/{room_id}/sessions/" + page.url.split("/")[-1])
    expect(page.locator(".turn")).to_have_count(1)
    # The room's lists leave eval sessions out, but the opened one is shown as open.
    expect(page.locator(".session-current")).to_have_text("eval smoke: greet")
    expect(page.locator(".side-session")).to_have_count(2)  # its own session and this one


def test_a_running_run_shows_progress_and_can_be_cancelled(page: Page, server: LiveServer) -> None:
    server.scripted.script("slow", delay_s=60)
    made = server.room_with("Slow room", ["cal"], mode="roundtable")
    run = _run(server, made["room"]["id"], ["roundtable"])

    page.goto(f"/#/evals/{run['id']}")
    expect(page.get_by_role("heading", name="smoke running")).to_be_visible()
    page.get_by_role("button", name="Cancel run").click()
    expect(page.get_by_role("heading", name="smoke cancelled")).to_be_visible()
    expect(page.locator(".eval-error")).to_have_text("cancelled by request")
    assert _finished(server, run["id"])["status"] == "cancelled"


def test_two_runs_show_the_cases_that_flipped(page: Page, server: LiveServer) -> None:
    made = server.room_with("Flip room", ["fay"], mode="roundtable")
    server.scripted.script("hello, blue")
    first = _run(server, made["room"]["id"], ["roundtable"])
    _finished(server, first["id"])
    server.scripted.script("hello")
    second = _run(server, made["room"]["id"], ["roundtable"])
    _finished(server, second["id"])

    page.goto(f"/#/evals/{second['id']}")
    page.get_by_label("Compare with").select_option(first["id"])
    expect(page.get_by_role("list", name="Flipped cases").get_by_role("listitem")).to_have_text(
        [
            "colour on Flip room · roundtable: pass → fail",
            "plain on Flip room · roundtable: fail → pass",
        ]
    )
