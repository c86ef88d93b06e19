"""The static web client: nested module paths are served, the lint tooling beside it is not."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from fastapi import FastAPI

from pantheon.web import PUBLIC_ENTRIES, WEB_DIR, mount_web

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
    assert '<script type="module" src="js/app.js">' in response.text


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
