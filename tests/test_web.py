"""The static web client: nested module paths are served, the lint tooling beside it is not,
and it reads the modes from ``GET /v1/modes`` instead of keeping its own list."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from fastapi import FastAPI

from pantheon.engine.modes.specs import MODES
from pantheon.server.api import ModeConstraints, ModeRead
from pantheon.server.web import PUBLIC_ENTRIES, WEB_DIR, mount_web

IMPORT = re.compile(r'\bfrom\s+"(\.{1,2}/[^"]+)"')
ASSET = re.compile(r'\b(?:src|href)="([^"#:]+)"')


def _served_urls() -> set[str]:
    """Every file index.html loads, and every module a module imports, as a URL path."""
    urls = {"/" + ref for ref in ASSET.findall((WEB_DIR / "index.html").read_text())}
    for module in sorted((WEB_DIR / "js").rglob("*.js")):
        for ref in IMPORT.findall(module.read_text()):
            target = (module.parent / ref).resolve().relative_to(WEB_DIR)
            urls.add("/" + target.as_posix())
    return urls


async def test_every_script_and_import_of_the_page_is_served(client: httpx.AsyncClient) -> None:
    urls = _served_urls()
    assert "/js/app.js" in urls
    assert any(u.startswith("/js/text/") for u in urls)
    for url in sorted(urls):
        response = await client.get(url)
        assert response.status_code == 200, url
        if url.endswith(".js"):
            assert "javascript" in response.headers["content-type"], url


async def test_the_index_page_is_served_at_the_root(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 200
    assert re.search(r'<script type="module" src="/js/app.js\?v=[0-9a-f]{16}">', response.text)


async def test_tooling_beside_the_page_is_not_served(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "js" / "core").mkdir(parents=True)
    (tmp_path / "js" / "core" / "dom.js").write_text("export const x = 1;\n")
    (tmp_path / "node_modules" / "eslint").mkdir(parents=True)
    (tmp_path / "node_modules" / "eslint" / "package.json").write_text("{}")
    for name in ("package.json", "package-lock.json", "eslint.config.js"):
        (tmp_path / name).write_text("{}")
    app = FastAPI()
    mount_web(app, tmp_path)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://web") as web:
        assert (await web.get("/")).status_code == 200
        assert (await web.get("/js/core/dom.js")).text == "export const x = 1;\n"
        for private in (
            "/package.json",
            "/package-lock.json",
            "/eslint.config.js",
            "/node_modules/eslint/package.json",
            "/js/../package.json",
            "/js/%2e%2e/package.json",
        ):
            response = await web.get(private)
            assert response.status_code == 404, private


def test_the_public_entries_are_what_the_page_has() -> None:
    top_level = {p.name for p in WEB_DIR.iterdir()}
    assert top_level >= PUBLIC_ENTRIES
    assert top_level - PUBLIC_ENTRIES <= {
        "package.json",
        "package-lock.json",
        "eslint.config.js",
        "node_modules",
        "README.md",
    }


# A mode's name as a whole string literal ("review", 'review', `review`, and so inside a
# selector like '[data-mode="review"]'); prose such as "In review mode" is copy, not a branch.
MODE_LITERAL = re.compile(rf"""(["'`])({"|".join(MODES)})\1""")
# "review" is also a review verdict's class and an LLM call's purpose; more than these two
# means the page keeps its own list of modes or branches on a name (issue 22).
MAX_MODE_LITERALS = 2
# What the page reads of a spec: `spec.<field>` and `modeSpec(...)?.<field>`.
SPEC_READ = re.compile(r"\b(?:spec|modeSpec\([^()]*\))\??\.([a-z_]+)")


def _scripts() -> list[Path]:
    return sorted((WEB_DIR / "js").rglob("*.js"))


def _mode_literals(text: str) -> list[str]:
    return [match.group(2) for match in MODE_LITERAL.finditer(text)]


def test_the_page_holds_no_list_of_modes() -> None:
    found = [
        f"{path.relative_to(WEB_DIR)}:{number}: {name}"
        for path in _scripts()
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        for name in _mode_literals(line)
    ]
    assert len(found) <= MAX_MODE_LITERALS, f"read the mode's spec (core/modes.js): {found}"


def test_the_mode_literal_rule_catches_what_it_should() -> None:
    branches = (
        'view.mode === "orchestrator"',
        "effectiveMode === 'manual'",
        "'article.turn[data-mode=\"pipeline\"]'",
        "?? `standalone`",
    )
    assert [_mode_literals(code) for code in branches] == [
        ["orchestrator"],
        ["manual"],
        ["pipeline"],
        ["standalone"],
    ]
    assert _mode_literals("Roundtable answers in this order; the orchestrator's fallback") == []
    assert _mode_literals('"reviewer" "manual.pdf"') == []


def test_the_page_reads_only_fields_the_modes_route_serves() -> None:
    served = (set(ModeRead.model_fields) - {"constraints"}) | set(ModeConstraints.model_fields)
    read = {field for path in _scripts() for field in SPEC_READ.findall(path.read_text())}
    assert {"name", "uses_manager", "needs_mentions", "can_rerun", "session"} <= read
    assert read <= served, f"not in GET /v1/modes: {sorted(read - served)}"


def test_the_page_loads_the_modes_from_the_server() -> None:
    api_js = (WEB_DIR / "js" / "core" / "api.js").read_text()
    assert 'request("GET", "/v1/modes")' in api_js
    assert "setModes(" in (WEB_DIR / "js" / "app.js").read_text()


async def test_a_page_path_serves_the_index_whose_files_load_from_any_depth(
    client: httpx.AsyncClient,
) -> None:
    root = await client.get("/")
    deep = await client.get("/invite/some-token")
    assert deep.status_code == 200
    assert deep.headers["content-type"].startswith("text/html")
    assert deep.text == root.text
    refs = ASSET.findall(deep.text)
    assert refs
    assert all(ref.startswith("/") for ref in refs)  # not /invite/js/...
    for ref in refs:
        assert (await client.get(ref)).status_code == 200, ref
    assert (await client.post("/invite/some-token")).status_code == 405
    assert (await client.get("/invite/a/b")).status_code == 404
